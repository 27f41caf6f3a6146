import { describe, expect, it } from 'vitest';
import { compileParser, guessFields, PARSE_LIMITS } from '#engine/parse';
import { at, config } from './fixtures.ts';

/** Spec 4.1's json record shape, with numbers and nesting as a web server would add. */
const SAMPLE = JSON.stringify({
  timestamp: '2026-02-28 23:59:58',
  message: 'GET /login',
  host: 'web-01',
  'app-name': 'nginx',
  procid: '4242',
  http: { status: 200, request_time: 0.125, client: { ip: '203.0.113.7' } },
  tags: ['a'],
  secure: true,
  _id: 'abc',
  raw_data: 'kept',
  empty: {},
});

describe('guessFields on a json sample', () => {
  it('gives one optional area per member, nested members as dotted sources, types from the values', () => {
    const guess = guessFields(SAMPLE, 'json');
    expect(guess).toEqual({
      ok: true,
      truncated: false,
      fields: [
        { kind: 'json', name: 'timestamp', source: 'timestamp', type: 'string', required: false },
        { kind: 'json', name: 'message', source: 'message', type: 'string', required: false },
        { kind: 'json', name: 'host', source: 'host', type: 'string', required: false },
        { kind: 'json', name: 'app-name', source: 'app-name', type: 'string', required: false },
        { kind: 'json', name: 'procid', source: 'procid', type: 'string', required: false },
        { kind: 'json', name: 'http.status', source: 'http.status', type: 'integer', required: false },
        { kind: 'json', name: 'http.request_time', source: 'http.request_time', type: 'float', required: false },
        { kind: 'json', name: 'http.client.ip', source: 'http.client.ip', type: 'string', required: false },
        { kind: 'json', name: 'tags', source: 'tags', type: 'string', required: false },
        { kind: 'json', name: 'secure', source: 'secure', type: 'string', required: false },
        { kind: 'json', name: 'id', source: '_id', type: 'string', required: false },
        { kind: 'json', name: 'raw_data_field', source: 'raw_data', type: 'string', required: false },
        { kind: 'json', name: 'empty', source: 'empty', type: 'string', required: false },
      ],
    });
  });

  it('gives areas that make a valid configuration once one is required, and that read the sample back', () => {
    const guess = guessFields(SAMPLE, 'json');
    if (!guess.ok) throw new Error(guess.failure.reason);
    const fields = guess.fields.map((f) => ({ ...f, required: f.name === 'host' }));
    const compiled = compileParser(config({ templateType: 'json', fields }));
    expect(compiled.ok).toBe(true);
    const outcome = compiled.ok ? compiled.value.parse(SAMPLE, { now: at('2026-03-01T00:00:00Z') }) : null;
    expect(outcome?.ok && outcome.record).toMatchObject({
      'http.status': 200,
      'http.client.ip': '203.0.113.7',
      id: 'abc',
    });
  });

  it('keeps names unique when sanitising makes two alike', () => {
    const guess = guessFields('{"a b":1,"a_b":2,"_a_b":3}', 'json');
    expect(guess.ok && guess.fields.map((f) => f.name)).toEqual(['a_b', 'a_b_2', 'a_b_3']);
  });

  it('stops at the field limit and says so', () => {
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, i])));
    const guess = guessFields(wide, 'json');
    expect(guess.ok && guess.fields).toHaveLength(PARSE_LIMITS.fields);
    expect(guess.ok && guess.truncated).toBe(true);
  });

  it('says why a sample that is not a JSON object gives nothing', () => {
    expect(guessFields('{"a":', 'json')).toMatchObject({ ok: false, failure: { code: 'json_malformed' } });
    expect(guessFields('[1]', 'json')).toMatchObject({ ok: false, failure: { code: 'json_not_object' } });
  });
});

describe('guessFields on a plain_text sample', () => {
  it('gives no areas: free text has no members to list', () => {
    expect(guessFields('Jan  5 10:00:00 web-01 sshd[42]: hello', 'plain_text')).toEqual({
      ok: true,
      fields: [],
      truncated: false,
    });
  });
});
