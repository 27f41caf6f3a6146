import { capText } from '#engine/shared';

/**
 * Why a line did not become a record: a stable `code` with `params` (what the console translates), and
 * `reason`, the English sentence the engine stores with a failed line (spec 7: `parsed = 0` and the
 * reason). The texts of both console languages live here so the engine's live preview and the stored
 * reason say the same thing.
 */
export const PARSE_FAILURE_CODES = [
  'line_empty',
  'line_too_long',
  'line_binary',
  'json_malformed',
  'json_not_object',
  'required_field_missing',
  'time_missing',
  'time_format_mismatch',
  'time_invalid',
  'parse_error',
] as const;
export type ParseFailureCode = (typeof PARSE_FAILURE_CODES)[number];

export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];

export type FailureParams = Readonly<Record<string, string | number>>;

export interface ParseFailure {
  ok: false;
  code: ParseFailureCode;
  /** The English text (`parseFailureText(failure, 'en')`). */
  reason: string;
  /** The configured field that was missing, for `required_field_missing`. */
  field?: string;
  params: FailureParams;
}

/** A JSON value's kind, for `json_not_object`. */
export type JsonKind = 'array' | 'string' | 'number' | 'boolean' | 'null';

const JSON_KIND_ZH: Record<JsonKind, string> = {
  array: '数组',
  string: '字符串',
  number: '数字',
  boolean: '布尔值',
  null: 'null',
};

/** Longest quoted piece of a line (a time text, a JSON error) in a reason. */
const QUOTE_MAX = 120;

const param = (params: FailureParams, key: string): string => String(params[key] ?? '');

type Wording = Record<Locale, (params: FailureParams) => string>;

const TEXTS: Record<ParseFailureCode, Wording> = {
  line_empty: { en: () => 'The line is empty', 'zh-CN': () => '日志为空' },
  line_too_long: {
    en: (p) => `The line is longer than ${param(p, 'maximum')} characters (${param(p, 'length')})`,
    'zh-CN': (p) => `日志长度超过 ${param(p, 'maximum')} 个字符（${param(p, 'length')}）`,
  },
  line_binary: {
    en: () => 'The line contains NUL characters: it is binary data, not text',
    'zh-CN': () => '日志包含 NUL 字符：是二进制数据而不是文本',
  },
  json_malformed: {
    en: (p) => `The line is not valid JSON: ${param(p, 'detail')}`,
    'zh-CN': (p) => `日志不是有效的 JSON：${param(p, 'detail')}`,
  },
  json_not_object: {
    en: (p) => `The line is JSON but not an object (it is ${param(p, 'kind')})`,
    'zh-CN': (p) => `日志是 JSON 但不是对象（是${JSON_KIND_ZH[param(p, 'kind') as JsonKind] ?? param(p, 'kind')}）`,
  },
  required_field_missing: {
    en: (p) => requiredFieldMissingText(param(p, 'field'), 'en'),
    'zh-CN': (p) => requiredFieldMissingText(param(p, 'field'), 'zh-CN'),
  },
  time_missing: {
    en: (p) => `The time was not found (time field: ${param(p, 'source')})`,
    'zh-CN': (p) => `未找到时间（时间字段：${param(p, 'source')}）`,
  },
  time_format_mismatch: {
    en: (p) => `The time "${param(p, 'text')}" does not match the format ${param(p, 'format')}`,
    'zh-CN': (p) => `时间“${param(p, 'text')}”与格式 ${param(p, 'format')} 不符`,
  },
  time_invalid: {
    en: (p) => `The time "${param(p, 'text')}" is not a valid date and time`,
    'zh-CN': (p) => `时间“${param(p, 'text')}”不是有效的日期时间`,
  },
  parse_error: {
    en: (p) => `The line could not be parsed (${param(p, 'detail')})`,
    'zh-CN': (p) => `日志无法解析（${param(p, 'detail')}）`,
  },
};

/** Spec 7's text for a required field that is missing or empty, in a console language. */
export function requiredFieldMissingText(field: string, locale: Locale): string {
  return locale === 'zh-CN' ? `必要字段不允许为空: ${field}` : `Required field must not be empty: ${field}`;
}

/** A failure's text in a console language. */
export function parseFailureText(failure: Pick<ParseFailure, 'code' | 'params'>, locale: Locale): string {
  return TEXTS[failure.code][locale](failure.params);
}

export function parseFailure(code: ParseFailureCode, params: FailureParams = {}, field?: string): ParseFailure {
  const capped: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(params)) {
    capped[key] = typeof value === 'string' ? capText(value, QUOTE_MAX) : value;
  }
  const reason = TEXTS[code].en(capped);
  return field === undefined
    ? { ok: false, code, reason, params: capped }
    : { ok: false, code, reason, field, params: capped };
}
