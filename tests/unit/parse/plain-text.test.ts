import { describe, expect, it } from 'vitest';
import { at, parserOf, regexField } from './fixtures.ts';

/** Spec 4.1's plain_text record shape: `<timestamp, 15 characters> <hostname> <severity> <facility> [<procid>]: <message>`. */
const LINE = 'Jan  5 10:00:00 web-01 warning auth [4242]: Failed password for root from 203.0.113.7 port 52113';
const NOW = at('2026-03-01T00:00:00Z');

const syslog = parserOf({
  fields: [
    regexField('hostname', '^.{15} (\\S+)', { required: true }),
    regexField('severity', '^.{15} \\S+ (\\S+)'),
    regexField('procid', '\\[(\\d+)\\]', { type: 'integer' }),
    regexField('src_ip', 'from (\\d+\\.\\d+\\.\\d+\\.\\d+)'),
    regexField('port', 'port (\\d+)', { type: 'float' }),
    regexField('message', ']: (.*)$'),
    regexField('whole', 'Failed password', { group: 0 }),
    regexField('session', 'session=(\\w+)'),
  ],
});

describe('a plain_text line', () => {
  it('becomes a record with each regex area in its type', () => {
    const outcome = syslog.parse(LINE, { now: NOW });
    expect(outcome).toEqual({
      ok: true,
      record: {
        _timestamp: NOW,
        hostname: 'web-01',
        severity: 'warning',
        procid: 4242,
        src_ip: '203.0.113.7',
        port: 52113,
        message: 'Failed password for root from 203.0.113.7 port 52113',
        whole: 'Failed password',
        parsed: 1,
        log_setting_id: 'cfg-1',
        raw_data: LINE,
      },
    });
  });

  it('leaves out an optional field whose regex does not match', () => {
    const outcome = syslog.parse(LINE, { now: NOW });
    expect(outcome.ok && 'session' in outcome.record).toBe(false);
  });

  it('carries the log id when the intake gives one', () => {
    const outcome = syslog.parse(LINE, { now: NOW, logId: 'logs-0-1234' });
    expect(outcome.ok && outcome.record.log_id).toBe('logs-0-1234');
  });

  it('takes the arrival second as the time in current-time mode, milliseconds dropped', () => {
    const outcome = syslog.parse(LINE, { now: at('2026-03-01T08:15:30.789Z') });
    expect(outcome.ok && outcome.record._timestamp).toBe(at('2026-03-01T08:15:30.000Z'));
  });

  it('fails when a required field does not match, with the spec reason', () => {
    expect(syslog.parse('short line', { now: NOW })).toEqual({
      ok: false,
      code: 'required_field_missing',
      reason: 'Required field must not be empty: hostname',
      field: 'hostname',
      params: { field: 'hostname' },
    });
  });

  it('fails when a required field captures empty text', () => {
    const parser = parserOf({ fields: [regexField('user', 'user=(\\w*)', { required: true })] });
    expect(parser.parse('user= action=login', { now: NOW })).toMatchObject({
      ok: false,
      code: 'required_field_missing',
      field: 'user',
    });
  });

  it('fails when a required field cannot take its type, and leaves out an optional one', () => {
    const parser = parserOf({
      fields: [
        regexField('status', 'status=(\\S+)', { type: 'integer', required: true }),
        regexField('bytes', 'bytes=(\\S+)', { type: 'integer' }),
        regexField('duration', 'took=(\\S+)', { type: 'float' }),
      ],
    });
    expect(parser.parse('status=12abc bytes=5', { now: NOW })).toMatchObject({ ok: false, field: 'status' });
    const outcome = parser.parse('status=200 bytes=1.5 took=NaN', { now: NOW });
    expect(outcome.ok && outcome.record).toMatchObject({ status: 200 });
    expect(outcome.ok && ('bytes' in outcome.record || 'duration' in outcome.record)).toBe(false);
  });

  it('runs areas sharing a pattern once per line, each taking its own group', () => {
    const parser = parserOf({
      fields: [
        regexField('user', '(\\w+)@(\\w+)', { required: true }),
        regexField('domain', '(\\w+)@(\\w+)', { group: 2, required: true }),
      ],
    });
    const outcome = parser.parse('login alice@example ok', { now: NOW });
    expect(outcome.ok && outcome.record).toMatchObject({ user: 'alice', domain: 'example' });
  });
});

describe('field types', () => {
  const parser = parserOf({
    fields: [
      regexField('value', 'v=(.*)$', { required: true }),
      regexField('integer', 'v=(.*)$', { type: 'integer' }),
      regexField('float', 'v=(.*)$', { type: 'float' }),
    ],
  });
  const typed = (text: string): Record<string, unknown> => {
    const outcome = parser.parse(`v=${text}`, { now: NOW });
    if (!outcome.ok) throw new Error(outcome.reason);
    const { integer, float } = outcome.record;
    return { integer, float };
  };

  it.each([
    ['200', { integer: 200, float: 200 }],
    ['-17', { integer: -17, float: -17 }],
    ['+5', { integer: 5, float: 5 }],
    ['007', { integer: 7, float: 7 }],
    ['0.25', { integer: undefined, float: 0.25 }],
    ['1e3', { integer: undefined, float: 1000 }],
    ['.5', { integer: undefined, float: 0.5 }],
    ['12abc', { integer: undefined, float: undefined }],
    ['0x1f', { integer: undefined, float: undefined }],
    ['NaN', { integer: undefined, float: undefined }],
    ['Infinity', { integer: undefined, float: undefined }],
    ['1e999', { integer: undefined, float: undefined }],
    ['9007199254740993', { integer: undefined, float: 9007199254740992 }],
  ])('%j converts to %j', (text, expected) => {
    expect(typed(text)).toEqual(expected);
  });
});
