/**
 * Log parsing (docs/DESIGN.md 2b, spec 2.2): a log configuration is checked and compiled once into a
 * parser that turns one received line into a record (`_timestamp`, the configured fields in their
 * types, `parsed: 1`, `log_setting_id`, `raw_data`, `log_id`) or a failure with a stable code and its
 * reason. plain_text lines are read by regex areas, json lines by member paths (regex areas too);
 * times by the spec's tokens in the configuration's zone, a year-less time never placed in the future.
 * Pure: no I/O, no clock (the caller passes `now`), and `parse` never throws.
 */
export { compileParser } from './log-parser.ts';
export type { LogParser, ParseContext, ParseOutcome, ParsedRecord } from './log-parser.ts';
export {
  CONFIG_PROBLEM_CODES,
  FIELD_TYPES,
  KEY_TARGETS,
  PARSE_LIMITS,
  PREDEFINED_TIME_FORMAT,
  RECORD_META_FIELDS,
  TEMPLATE_TYPES,
} from './config.ts';
export type {
  ConfigProblem,
  ConfigProblemCode,
  FieldConfig,
  FieldType,
  JsonFieldConfig,
  KeyTarget,
  LogParseConfig,
  RegexFieldConfig,
  TemplateType,
  TimeConfig,
  TimeFormat,
} from './config.ts';
export { LOCALES, PARSE_FAILURE_CODES, parseFailureText, requiredFieldMissingText } from './failures.ts';
export type { FailureParams, Locale, ParseFailure, ParseFailureCode } from './failures.ts';
export { guessFields } from './guess-fields.ts';
export type { GuessOutcome } from './guess-fields.ts';
export { preview } from './preview.ts';
export type { PreviewOutcome } from './preview.ts';
