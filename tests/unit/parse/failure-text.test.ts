import { describe, expect, it } from 'vitest';
import {
  LOCALES,
  PARSE_FAILURE_CODES,
  parseFailureText,
  preview,
  requiredFieldMissingText,
  type ParseFailureCode,
} from '#engine/parse';
import { at, config, jsonField, regexField } from './fixtures.ts';

const NOW = at('2026-03-01T00:00:00Z');

describe('the required-field text of spec 7', () => {
  it('is worded in Chinese and English', () => {
    expect(requiredFieldMissingText('src_ip', 'zh-CN')).toBe('必要字段不允许为空: src_ip');
    expect(requiredFieldMissingText('src_ip', 'en')).toBe('Required field must not be empty: src_ip');
  });

  it('is the text of a required_field_missing failure in each language', () => {
    const failure = { code: 'required_field_missing' as const, params: { field: 'user' } };
    expect(parseFailureText(failure, 'zh-CN')).toBe('必要字段不允许为空: user');
    expect(parseFailureText(failure, 'en')).toBe('Required field must not be empty: user');
  });
});

describe('failure texts', () => {
  const params: Record<ParseFailureCode, Record<string, string | number>> = {
    line_empty: {},
    line_too_long: { maximum: 1048576, length: 2000000 },
    line_binary: {},
    json_malformed: { detail: 'Unexpected end of JSON input' },
    json_not_object: { kind: 'array' },
    required_field_missing: { field: 'host' },
    time_missing: { source: 'timestamp' },
    time_format_mismatch: { text: '2026/01/05', format: 'YYYY-MM-DD hh:mm:ss' },
    time_invalid: { text: '2026-02-30 10:00:00' },
    parse_error: { detail: 'boom' },
  };

  it.each(PARSE_FAILURE_CODES.flatMap((code) => LOCALES.map((locale) => [code, locale] as const)))(
    '%s has a %s text holding its parameters',
    (code, locale) => {
      const text = parseFailureText({ code, params: params[code] }, locale);
      expect(text.length).toBeGreaterThan(0);
      for (const value of Object.values(params[code])) {
        if (code !== 'json_not_object' || locale === 'en') expect(text).toContain(String(value));
      }
    },
  );

  it('words a JSON kind in Chinese', () => {
    expect(parseFailureText({ code: 'json_not_object', params: { kind: 'array' } }, 'zh-CN')).toBe(
      '日志是 JSON 但不是对象（是数组）',
    );
  });
});

describe('preview', () => {
  const valid = config({
    templateType: 'json',
    fields: [jsonField('src_ip', 'src_ip', { required: true }), jsonField('status', 'status', { type: 'integer' })],
  });

  it('shows the record of a sample that parses', () => {
    expect(preview(valid, '{"src_ip":"203.0.113.7","status":"404"}', NOW, 'en')).toEqual({
      kind: 'parsed',
      record: {
        _timestamp: NOW,
        src_ip: '203.0.113.7',
        status: 404,
        parsed: 1,
        log_setting_id: 'cfg-1',
        raw_data: '{"src_ip":"203.0.113.7","status":"404"}',
      },
    });
  });

  it('shows the spec text for a missing required field in the reader language', () => {
    const zh = preview(valid, '{"status":200}', NOW, 'zh-CN');
    expect(zh).toMatchObject({
      kind: 'failed',
      text: '必要字段不允许为空: src_ip',
      failure: { code: 'required_field_missing' },
    });
    const en = preview(valid, '{"status":200}', NOW, 'en');
    expect(en).toMatchObject({ kind: 'failed', text: 'Required field must not be empty: src_ip' });
  });

  it('keeps the English reason in the failure whatever the reader language', () => {
    const outcome = preview(valid, 'not json', NOW, 'zh-CN');
    expect(outcome.kind).toBe('failed');
    if (outcome.kind === 'failed') {
      expect(outcome.text).toMatch(/^日志不是有效的 JSON：/);
      expect(outcome.failure.reason).toMatch(/^The line is not valid JSON: /);
    }
  });

  it('shows the configuration problems instead of a parse while there is no required field', () => {
    const outcome = preview(config({ fields: [regexField('host', '(\\S+)')] }), 'web-01', NOW, 'en');
    expect(outcome).toMatchObject({
      kind: 'config_invalid',
      problems: [{ field: 'fields', code: 'required_field_none' }],
    });
  });
});
