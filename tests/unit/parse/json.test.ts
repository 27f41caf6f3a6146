import { describe, expect, it } from 'vitest';
import { at, jsonField, parserOf, regexField } from './fixtures.ts';

const NOW = at('2026-03-01T00:00:00Z');

/** Spec 4.1's json record shape, with a nested member added. */
const LINE = JSON.stringify({
  timestamp: '2026-02-28 23:59:58',
  message: 'Accepted publickey for deploy',
  host: 'web-01',
  severity: 'info',
  facility: 'auth',
  'app-name': 'sshd',
  procid: '4242',
  http: { status: 200, request_time: 0.125, client: { ip: '203.0.113.7' } },
  tags: ['a', 'b'],
  flag: true,
  nothing: null,
});

const parser = parserOf({
  templateType: 'json',
  time: { mode: 'extract', format: 'YYYY-MM-DD hh:mm:ss', field: 'timestamp' },
  fields: [
    jsonField('host', 'host', { required: true }),
    jsonField('app', 'app-name'),
    jsonField('procid', 'procid', { type: 'integer' }),
    jsonField('status', 'http.status', { type: 'integer' }),
    jsonField('request_time', 'http.request_time', { type: 'float' }),
    jsonField('src_ip', 'http.client.ip'),
    jsonField('client', 'http.client'),
    jsonField('tags', 'tags'),
    jsonField('flag', 'flag'),
    jsonField('nothing', 'nothing'),
    jsonField('absent', 'no.such.member'),
    regexField('user', 'for (\\w+)'),
  ],
});

describe('a json line', () => {
  it('becomes a record from member paths, nested paths and regex areas on the raw text', () => {
    const outcome = parser.parse(LINE, { now: NOW, logId: 'topic-0-7' });
    expect(outcome).toEqual({
      ok: true,
      record: {
        _timestamp: at('2026-02-28T23:59:58Z'),
        host: 'web-01',
        app: 'sshd',
        procid: 4242,
        status: 200,
        request_time: 0.125,
        src_ip: '203.0.113.7',
        client: '{"ip":"203.0.113.7"}',
        tags: '["a","b"]',
        flag: 'true',
        user: 'deploy',
        parsed: 1,
        log_setting_id: 'cfg-1',
        raw_data: LINE,
        log_id: 'topic-0-7',
      },
    });
  });

  it('reads a key that contains dots before the nested path of the same name', () => {
    const exact = parserOf({ templateType: 'json', fields: [jsonField('status', 'http.status', { required: true })] });
    const outcome = exact.parse(JSON.stringify({ http: { status: 200 }, 'http.status': 'the exact key' }), {
      now: NOW,
    });
    expect(outcome.ok && outcome.record.status).toBe('the exact key');
  });

  it('does not read inherited members such as constructor', () => {
    const inherited = parserOf({
      templateType: 'json',
      fields: [jsonField('host', 'host', { required: true }), jsonField('c', 'constructor')],
    });
    const outcome = inherited.parse('{"host":"h"}', { now: NOW });
    expect(outcome.ok && 'c' in outcome.record).toBe(false);
  });

  it('fails when a required member is absent, null or empty', () => {
    for (const line of ['{"other":1}', '{"host":null}', '{"host":""}']) {
      expect(parser.parse(line.replace('{', '{"timestamp":"2026-01-01 00:00:00",'), { now: NOW })).toMatchObject({
        ok: false,
        code: 'required_field_missing',
        reason: 'Required field must not be empty: host',
        field: 'host',
      });
    }
  });

  it('refuses a number that is not a whole number for an integer member', () => {
    const integers = parserOf({
      templateType: 'json',
      fields: [jsonField('n', 'n', { type: 'integer', required: true })],
    });
    expect(integers.parse('{"n":1.5}', { now: NOW })).toMatchObject({ ok: false, field: 'n' });
    expect(integers.parse('{"n":"12abc"}', { now: NOW })).toMatchObject({ ok: false, field: 'n' });
    expect(integers.parse('{"n":true}', { now: NOW })).toMatchObject({ ok: false, field: 'n' });
    const outcome = integers.parse('{"n":"  42 "}', { now: NOW });
    expect(outcome.ok && outcome.record.n).toBe(42);
  });

  it('fails on malformed JSON with the JSON parser reason', () => {
    const outcome = parser.parse('{"host": "web-01", ', { now: NOW });
    expect(outcome).toMatchObject({ ok: false, code: 'json_malformed' });
    expect(!outcome.ok && outcome.reason).toMatch(/^The line is not valid JSON: .+/);
    expect(!outcome.ok && outcome.params.detail).toMatch(/JSON/);
  });

  it.each([
    ['[1,2]', 'array'],
    ['"text"', 'string'],
    ['42', 'number'],
    ['true', 'boolean'],
    ['null', 'null'],
  ])('fails on %s, which is JSON but not an object', (line, kind) => {
    expect(parser.parse(line, { now: NOW })).toEqual({
      ok: false,
      code: 'json_not_object',
      reason: `The line is JSON but not an object (it is ${kind})`,
      params: { kind },
    });
  });

  it('keeps a member named __proto__ as data', () => {
    const proto = parserOf({ templateType: 'json', fields: [jsonField('p', '__proto__.x', { required: true })] });
    const outcome = proto.parse('{"__proto__":{"x":"y"}}', { now: NOW });
    expect(outcome.ok && outcome.record.p).toBe('y');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
