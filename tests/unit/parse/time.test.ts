import { describe, expect, it } from 'vitest';
import { PREDEFINED_TIME_FORMAT, type TimeFormat } from '#engine/parse';
import { at, jsonField, parserOf, regexField } from './fixtures.ts';

const NOW = at('2026-06-15T12:00:00Z');

/** A plain_text parser whose lines are `<time>|<host>`. */
function timeParser(format: TimeFormat, timezone = 'UTC', field = '^([^|]*)\\|') {
  return parserOf({
    timezone,
    time: { mode: 'extract', format, field },
    fields: [regexField('host', '\\|(\\S+)', { required: true })],
  });
}

function timeOf(format: TimeFormat, timezone: string, text: string, now = NOW): string {
  const outcome = timeParser(format, timezone).parse(`${text}|web-01`, { now });
  if (!outcome.ok) throw new Error(outcome.reason);
  return new Date(outcome.record._timestamp).toISOString();
}

const PREDEFINED = PREDEFINED_TIME_FORMAT;

describe('time formats', () => {
  it.each([
    [PREDEFINED, 'UTC', '2026-02-28 23:59:58', '2026-02-28T23:59:58.000Z'],
    [PREDEFINED, 'UTC', '2026-02-28 23:59:58.789', '2026-02-28T23:59:58.000Z'],
    [PREDEFINED, 'UTC', '2026-02-28 23:59:58,5', '2026-02-28T23:59:58.000Z'],
    [PREDEFINED, 'UTC', '2028-02-29 00:00:00', '2028-02-29T00:00:00.000Z'],
    [{ custom: 'MMM DD hh:mm:ss' }, 'UTC', 'Jan  5 10:00:00', '2026-01-05T10:00:00.000Z'],
    [{ custom: 'MMM DD hh:mm:ss' }, 'UTC', 'Jan 15 10:00:00', '2026-01-15T10:00:00.000Z'],
    [{ custom: 'MMM DD hh:mm:ss' }, 'UTC', 'JAN 05 10:00:00', '2026-01-05T10:00:00.000Z'],
    [{ custom: 'MMM DD hh:mm:ss' }, 'UTC', 'jun  1 08:30:15.123456', '2026-06-01T08:30:15.000Z'],
    [{ custom: 'DD/MMM/YYYY:hh:mm:ss' }, 'UTC', '05/Dec/2025:10:00:00', '2025-12-05T10:00:00.000Z'],
    [{ custom: 'YYYY-MM-DDThh:mm:ss' }, 'UTC', '2026-01-05T10:00:00.250', '2026-01-05T10:00:00.000Z'],
    [{ custom: 'YYYYMMDDhhmmss' }, 'UTC', '20260105100000', '2026-01-05T10:00:00.000Z'],
    [{ custom: 'DD.MM.YYYY hh:mm:ss' }, 'UTC', '05.01.2026 10:00:00', '2026-01-05T10:00:00.000Z'],
  ] satisfies [TimeFormat, string, string, string][])('%j reads %s %j as %s', (format, zone, text, expected) => {
    expect(timeOf(format, zone, text)).toBe(expected);
  });
});

describe('time zones', () => {
  it.each([
    ['Asia/Shanghai', '2026-01-05 10:00:00', '2026-01-05T02:00:00.000Z'],
    ['Asia/Kolkata', '2026-01-05 10:00:00', '2026-01-05T04:30:00.000Z'],
    ['America/New_York', '2026-01-15 12:00:00', '2026-01-15T17:00:00.000Z'],
    ['America/New_York', '2026-07-01 12:00:00', '2026-07-01T16:00:00.000Z'],
    // Summer time starts at 02:00 on 8 March 2026: the last second before and the first after.
    ['America/New_York', '2026-03-08 01:59:59', '2026-03-08T06:59:59.000Z'],
    ['America/New_York', '2026-03-08 03:00:00', '2026-03-08T07:00:00.000Z'],
    // 02:30 does not exist that day: it is read as 03:30 summer time.
    ['America/New_York', '2026-03-08 02:30:00', '2026-03-08T07:30:00.000Z'],
    // 01:30 happens twice on 1 November 2026: the first one (summer time) is taken.
    ['America/New_York', '2026-11-01 01:30:00', '2026-11-01T05:30:00.000Z'],
    ['America/New_York', '2026-11-01 02:00:00', '2026-11-01T07:00:00.000Z'],
    ['Europe/London', '2026-10-25 00:59:59', '2026-10-24T23:59:59.000Z'],
  ])('%s reads %j as %s', (zone, text, expected) => {
    expect(timeOf(PREDEFINED, zone, text)).toBe(expected);
  });
});

describe('year-less times', () => {
  const SYSLOG = { custom: 'MMM DD hh:mm:ss' };

  it("place New Year's Eve in the year just ended when read just after midnight", () => {
    expect(timeOf(SYSLOG, 'Asia/Shanghai', 'Dec 31 23:59:59', at('2027-01-01T00:00:05+08:00'))).toBe(
      '2026-12-31T15:59:59.000Z',
    );
  });

  it('place the first second of the year in the new year when the sender is a little ahead', () => {
    expect(timeOf(SYSLOG, 'UTC', 'Jan  1 00:00:10', at('2026-12-31T23:59:30Z'))).toBe('2027-01-01T00:00:10.000Z');
  });

  it('are never placed more than a day after now', () => {
    expect(timeOf(SYSLOG, 'UTC', 'Jun 17 12:00:00', NOW)).toBe('2025-06-17T12:00:00.000Z');
    expect(timeOf(SYSLOG, 'UTC', 'Jun 16 11:59:59', NOW)).toBe('2026-06-16T11:59:59.000Z');
  });

  it('take the year in the configuration zone, not in UTC', () => {
    // 2026-12-31T20:00Z is already 2027 in Shanghai.
    expect(timeOf(SYSLOG, 'Asia/Shanghai', 'Jan  1 03:00:00', at('2026-12-31T20:00:00Z'))).toBe(
      '2026-12-31T19:00:00.000Z',
    );
  });

  it('put 29 February in the latest leap year not in the future', () => {
    expect(timeOf(SYSLOG, 'UTC', 'Feb 29 12:00:00', at('2027-03-01T00:00:00Z'))).toBe('2024-02-29T12:00:00.000Z');
  });
});

describe('time failures', () => {
  const predefined = timeParser(PREDEFINED);

  it.each([
    ['2026-02-30 10:00:00', 'time_invalid'],
    ['2026-02-29 10:00:00', 'time_invalid'],
    ['2026-01-05 25:00:00', 'time_invalid'],
    ['2026-01-05 10:60:00', 'time_invalid'],
    ['2026-13-01 10:00:00', 'time_invalid'],
    ['2026-00-10 10:00:00', 'time_invalid'],
    ['2026/01/05 10:00:00', 'time_format_mismatch'],
    ['2026-01-05 10:00', 'time_format_mismatch'],
    ['2026-01-05 10:00:00 +0800', 'time_format_mismatch'],
    ['yesterday', 'time_format_mismatch'],
  ])('%j is %s', (text, code) => {
    expect(predefined.parse(`${text}|web-01`, { now: NOW })).toMatchObject({ ok: false, code });
  });

  it('says which text did not match which format', () => {
    expect(predefined.parse('2026/01/05 10:00:00|web-01', { now: NOW })).toEqual({
      ok: false,
      code: 'time_format_mismatch',
      reason: 'The time "2026/01/05 10:00:00" does not match the format YYYY-MM-DD hh:mm:ss',
      params: { text: '2026/01/05 10:00:00', format: PREDEFINED },
    });
  });

  it('refuses an impossible year-less date', () => {
    expect(timeParser({ custom: 'MMM DD hh:mm:ss' }).parse('Feb 30 10:00:00|web-01', { now: NOW })).toMatchObject({
      ok: false,
      code: 'time_invalid',
    });
    expect(timeParser({ custom: 'MMM DD hh:mm:ss' }).parse('Foo 30 10:00:00|web-01', { now: NOW })).toMatchObject({
      ok: false,
      code: 'time_format_mismatch',
    });
  });

  it('fails when the time regex matches nothing', () => {
    const parser = timeParser(PREDEFINED, 'UTC', '^(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d)');
    expect(parser.parse('no time here|web-01', { now: NOW })).toMatchObject({ ok: false, code: 'time_missing' });
  });

  it('uses the whole match of a time regex without groups', () => {
    const parser = timeParser(PREDEFINED, 'UTC', '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d');
    const outcome = parser.parse('at 2026-01-05 10:00:00|web-01', { now: NOW });
    expect(outcome.ok && outcome.record._timestamp).toBe(at('2026-01-05T10:00:00Z'));
  });

  it('fails when the json time member is absent', () => {
    const parser = parserOf({
      templateType: 'json',
      time: { mode: 'extract', format: PREDEFINED, field: 'meta.time' },
      fields: [jsonField('host', 'host', { required: true })],
    });
    expect(parser.parse('{"host":"h"}', { now: NOW })).toEqual({
      ok: false,
      code: 'time_missing',
      reason: 'The time was not found (time field: meta.time)',
      params: { source: 'meta.time' },
    });
    const outcome = parser.parse('{"host":"h","meta":{"time":"2026-01-05 10:00:00"}}', { now: NOW });
    expect(outcome.ok && outcome.record._timestamp).toBe(at('2026-01-05T10:00:00Z'));
  });
});
