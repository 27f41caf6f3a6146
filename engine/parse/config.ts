import type { ErrorParams } from '#engine/shared';

/**
 * A log configuration as the parser needs it (spec 2.2): the API validates its shape with zod at the
 * edge; `compileParser` checks what a shape cannot (regexes, groups, time format, time zone, names).
 */

export const TEMPLATE_TYPES = ['plain_text', 'json'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export const FIELD_TYPES = ['string', 'integer', 'float'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** The predefined time format of spec 2.2. */
export const PREDEFINED_TIME_FORMAT = 'YYYY-MM-DD hh:mm:ss';
export type TimeFormat = typeof PREDEFINED_TIME_FORMAT | { custom: string };

/**
 * `current`: the arrival moment is the record's time. `extract`: for plain_text, `field` is a regular
 * expression matching the time text (capture group 1 when it has groups, else the whole match); for
 * json, the member holding it (a dotted path such as `meta.time`; a key that itself contains the dots
 * wins over the path).
 */
export type TimeConfig = { mode: 'current' } | { mode: 'extract'; format: TimeFormat; field: string };

/** A regex extraction area: on a plain_text line, or on the raw text of a json line. */
export interface RegexFieldConfig {
  kind: 'regex';
  name: string;
  type: FieldType;
  regex: string;
  /** Capture group holding the value; 0 is the whole match. */
  group: number;
  required: boolean;
}

/** A json extraction area: `source` is a member name or a dotted path to a nested member. */
export interface JsonFieldConfig {
  kind: 'json';
  name: string;
  source: string;
  type: FieldType;
  required: boolean;
}

export type FieldConfig = RegexFieldConfig | JsonFieldConfig;

export const KEY_TARGETS = ['ip', 'device', 'user', 'custom1', 'custom2'] as const;
export type KeyTarget = (typeof KEY_TARGETS)[number];

export interface LogParseConfig {
  id: string;
  name: string;
  templateType: TemplateType;
  time: TimeConfig;
  /** IANA time zone the log's wall-clock times are in (`Asia/Shanghai`, `UTC`). */
  timezone: string;
  fields: readonly FieldConfig[];
  /** Which configured field each key target means for events and rule actions. */
  keyFields: Partial<Record<KeyTarget, string>>;
  /** Match src_ip and user_agent against the intelligence store (done after parsing, not here). */
  intelligence: boolean;
}

/** Bounds on a configuration and on what one line may cost. */
export const PARSE_LIMITS = {
  fields: 100,
  fieldName: 64,
  regex: 1000,
  /** A json source or time member path. */
  source: 256,
  timeFormat: 64,
  timezone: 64,
  /** Longest line parsed, in UTF-16 code units (1 MiB of ASCII); a longer one is a failure. */
  line: 1024 * 1024,
  /** `raw_data` keeps at most this much of the line. */
  rawData: 16 * 1024,
  /** Longest string value of a field. */
  fieldValue: 8 * 1024,
  /** A year-less time is never placed later than `now` plus this (clock skew between hosts). */
  futureToleranceMs: 24 * 60 * 60 * 1000,
} as const;

/**
 * Record fields the parser or the engine writes: a configured field may not take one of these
 * names, nor any name starting with `_` (`_timestamp`, `_intelligence_result` and those to come).
 */
export const RECORD_META_FIELDS = [
  '_timestamp',
  '_intelligence_result',
  'parsed',
  'log_id',
  'log_setting_id',
  'raw_data',
  'reason',
] as const;

export const CONFIG_PROBLEM_CODES = [
  'fields_too_many',
  'required_field_none',
  'json_field_on_plain_text',
  'field_name_empty',
  'field_name_too_long',
  'field_name_reserved',
  'field_name_invalid',
  'field_name_duplicate',
  'regex_empty',
  'regex_too_long',
  'regex_invalid',
  'regex_not_linear',
  'group_invalid',
  'group_out_of_range',
  'source_empty',
  'source_too_long',
  'time_field_empty',
  'time_format_empty',
  'time_format_too_long',
  'time_format_unknown_text',
  'time_format_missing_token',
  'time_format_repeated_token',
  'timezone_unknown',
  'key_field_unknown',
  'key_target_unknown',
  'intelligence_fields_missing',
] as const;
export type ConfigProblemCode = (typeof CONFIG_PROBLEM_CODES)[number];

/**
 * One thing wrong with a configuration: `field` is its path (`fields[2].regex`), `message` the English
 * predicate (`must be at most 64 characters`). It is a FieldProblem, so `validationFailed` takes a
 * list of them; `params.code` repeats `code` so the console can translate it from there too.
 */
export interface ConfigProblem {
  field: string;
  code: ConfigProblemCode;
  message: string;
  params: ErrorParams & { code: ConfigProblemCode };
}

export function configProblem(
  field: string,
  code: ConfigProblemCode,
  message: string,
  params: ErrorParams = {},
): ConfigProblem {
  return { field, code, message, params: { ...params, code } };
}
