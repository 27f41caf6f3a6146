import { describe, expect, it } from 'vitest';
import { PARSE_LIMITS } from '#engine/parse';
import { at, jsonField, parserOf, regexField } from './fixtures.ts';

const NOW = at('2026-03-01T00:00:00Z');

const plain = parserOf({
  fields: [regexField('host', '^\\S+ ([^\\s:]+)', { required: true }), regexField('message', ': (.*)$')],
});
const json = parserOf({ templateType: 'json', fields: [jsonField('host', 'host', { required: true })] });

describe('lines that are not logs', () => {
  it.each(['', '   ', '\t\r'])('%j is an empty line', (line) => {
    expect(plain.parse(line, { now: NOW })).toEqual({
      ok: false,
      code: 'line_empty',
      reason: 'The line is empty',
      params: {},
    });
  });

  it('binary data with NUL bytes is a failure, not an exception', () => {
    const garbage = String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i));
    expect(plain.parse(garbage, { now: NOW })).toMatchObject({ ok: false, code: 'line_binary' });
    expect(json.parse(garbage, { now: NOW })).toMatchObject({ ok: false, code: 'line_binary' });
  });

  it('undecodable bytes (replacement characters) are text like any other', () => {
    const outcome = plain.parse('Jan web-\uFFFD\uFFFD: caf\uFFFD', { now: NOW });
    expect(outcome.ok && outcome.record).toMatchObject({ host: 'web-\uFFFD\uFFFD', message: 'caf\uFFFD' });
  });

  it('random bytes without NUL fail cleanly on both templates', () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let n = 0; n < 200; n++) {
      const line = String.fromCharCode(...Array.from({ length: 1 + (random() % 300) }, () => 1 + (random() % 0xfffe)));
      for (const parser of [plain, json]) {
        const outcome = parser.parse(line, { now: NOW });
        if (!outcome.ok) expect(outcome.reason.length).toBeGreaterThan(0);
      }
    }
  });

  it('a line longer than the limit fails without being read', () => {
    const line = `x web-01: ${'a'.repeat(PARSE_LIMITS.line)}`;
    expect(plain.parse(line, { now: NOW })).toEqual({
      ok: false,
      code: 'line_too_long',
      reason: `The line is longer than ${PARSE_LIMITS.line} characters (${line.length})`,
      params: { maximum: PARSE_LIMITS.line, length: line.length },
    });
  });
});

describe('long lines', () => {
  it('a 1 MB plain_text line parses, its raw_data and string fields capped', () => {
    const line = `x web-01: ${'a'.repeat(1_000_000)}`;
    const outcome = plain.parse(line, { now: NOW });
    expect(outcome.ok).toBe(true);
    if (outcome.ok) {
      expect(outcome.record.host).toBe('web-01');
      expect(outcome.record.raw_data).toHaveLength(PARSE_LIMITS.rawData);
      expect(line.startsWith(outcome.record.raw_data.slice(0, -1))).toBe(true);
      expect(outcome.record.message).toHaveLength(PARSE_LIMITS.fieldValue);
    }
  });

  it('a 1 MB json line parses', () => {
    const line = JSON.stringify({ host: 'web-01', message: 'b'.repeat(1_000_000) });
    const outcome = json.parse(line, { now: NOW });
    expect(outcome.ok && outcome.record.host).toBe('web-01');
  });

  it('a 1 MB line against a pattern prone to backtracking ends', () => {
    const parser = parserOf({ fields: [regexField('tail', '(a+)+$', { required: true })] });
    const outcome = parser.parse(`${'a'.repeat(1_000_000)}!`, { now: NOW });
    expect(outcome).toMatchObject({ ok: false, code: 'required_field_missing' });
  });

  it('deeply nested JSON is a failure or a record, never an exception', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(json.parse(deep, { now: NOW })).toMatchObject({ ok: false });
  });
});
