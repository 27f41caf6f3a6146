import { APP_LOG, count, hit, NOT_FOUND, simple, when } from '../fixtures.ts';
import type { Scenario } from './types.ts';

const ip1 = '10.0.0.1';
const ip2 = '10.0.0.2';
/** One record of ip1 per listed second. */
const each = (ip: string, seconds: number[], fields: Record<string, unknown> = {}) =>
  seconds.map((t) => ({ t, record: hit(ip, fields) }));

export const countScenarios: Scenario[] = [
  {
    name: 'count: fires on the record that brings a key to the threshold within the window',
    events: [count('three', 3, 10)],
    records: each(ip1, [0, 1, 2]),
    expect: [{ t: 2, event: 'three', key: ip1 }],
  },
  {
    name: 'count: each trigger-object value counts on its own',
    events: [count('three', 3, 10)],
    records: [...each(ip1, [0]), ...each(ip2, [1]), ...each(ip1, [2]), ...each(ip2, [2.5, 3]), ...each(ip1, [4])],
    expect: [
      { t: 3, event: 'three', key: ip2 },
      { t: 4, event: 'three', key: ip1 },
    ],
  },
  {
    name: 'count: window edge: a record just inside the window counts',
    events: [count('two', 2, 10)],
    records: each(ip1, [0, 9.999]),
    expect: [{ t: 9.999, event: 'two', key: ip1 }],
  },
  {
    name: 'count: window edge: a record just outside the window does not count',
    events: [count('two', 2, 10)],
    records: each(ip1, [0, 10]),
    expect: [],
  },
  {
    name: 'count: fires once per window per key, then counts the records that came during the mute',
    events: [count('two', 2, 10)],
    // Fires at 1 (mute until 11); 2, 3 and 4 are counted but muted; at 11 the window (2..11) holds 4.
    records: each(ip1, [0, 1, 2, 3, 4, 11, 12]),
    expect: [
      { t: 1, event: 'two', key: ip1 },
      { t: 11, event: 'two', key: ip1 },
    ],
  },
  {
    name: 'count: a muted key does not mute other keys',
    events: [count('two', 2, 10)],
    records: [...each(ip1, [0, 1, 2]), ...each(ip2, [3, 4])],
    expect: [
      { t: 1, event: 'two', key: ip1 },
      { t: 4, event: 'two', key: ip2 },
    ],
  },
  {
    name: 'count: the trigger event selects the records counted',
    events: [NOT_FOUND, count('404s', 2, 60, { triggerEvent: 'not-found' })],
    records: [
      { t: 0, record: hit(ip1, { status: 404 }) },
      { t: 1, record: hit(ip1, { status: 200 }) },
      { t: 2, record: hit(ip1, { status: 404 }) },
    ],
    expect: [
      { t: 0, event: 'not-found', key: null },
      { t: 2, event: 'not-found', key: null },
      { t: 2, event: '404s', key: ip1 },
    ],
  },
  {
    name: 'count: a disabled trigger event still selects records but does not fire',
    events: [{ ...NOT_FOUND, enabled: false }, count('404s', 2, 60, { triggerEvent: 'not-found' })],
    records: [
      { t: 0, record: hit(ip1, { status: 404 }) },
      { t: 1, record: hit(ip1, { status: 200 }) },
      { t: 2, record: hit(ip1, { status: 404 }) },
    ],
    expect: [{ t: 2, event: '404s', key: ip1 }],
  },
  {
    name: 'count: comparators are checked after each record (< fires on a key’s first record)',
    events: [
      count('eq2', 2, 60, { comparator: '=' }),
      count('gt2', 2, 60, { comparator: '>' }),
      count('lt2', 2, 60, { comparator: '<' }),
      count('le1', 1, 60, { comparator: '<=' }),
    ],
    records: each(ip1, [0, 1, 2]),
    expect: [
      { t: 0, event: 'lt2', key: ip1 },
      { t: 0, event: 'le1', key: ip1 },
      { t: 1, event: 'eq2', key: ip1 },
      { t: 2, event: 'gt2', key: ip1 },
    ],
  },
  {
    name: 'count: records without a value for the trigger object are skipped',
    events: [count('two', 2, 60)],
    records: [
      { t: 0, record: hit(ip1) },
      { t: 1, record: hit('', {}) },
      { t: 2, record: { status: 200 } },
      { t: 3, record: hit(ip1, { src_ip: { nested: true } }) },
      { t: 4, record: hit(ip1) },
    ],
    expect: [{ t: 4, event: 'two', key: ip1 }],
  },
  {
    name: 'count: the device object groups by the fingerprint field of an access log',
    events: [count('device', 2, 60, { object: 'device' })],
    records: [
      { t: 0, record: hit(ip1, { fingerprint: 'fp-1' }) },
      { t: 1, record: hit(ip2, { fingerprint: 'fp-1' }) },
    ],
    expect: [{ t: 1, event: 'device', key: 'fp-1' }],
  },
  {
    name: 'count: numeric trigger-object values are keys as text',
    events: [count('user', 2, 60, { object: 'user', sources: ['app'] })],
    records: [
      { t: 0, log: APP_LOG, record: { client: ip1, user: 42 } },
      { t: 1, log: APP_LOG, record: { client: ip2, user: '42' } },
    ],
    expect: [{ t: 1, event: 'user', key: '42' }],
  },
  {
    name: 'count: an event with two sources counts both logs, each by its own key field',
    events: [count('both', 2, 60, { sources: ['access', 'app'] })],
    records: [
      { t: 0, record: hit(ip1) },
      { t: 1, log: APP_LOG, record: { client: ip1, action: 'login' } },
    ],
    expect: [{ t: 1, event: 'both', key: ip1 }],
  },
  {
    name: 'count: a long window (1 hour, 57 s buckets) keeps records about an hour old and drops older ones',
    events: [count('hourly', 2, 3600)],
    records: [...each(ip1, [0]), ...each(ip2, [0]), ...each(ip1, [3600 - 120]), ...each(ip2, [3600 + 60])],
    expect: [{ t: 3480, event: 'hourly', key: ip1 }],
  },
  {
    name: 'count: a key with records in many buckets slides its window bucket by bucket',
    events: [count('six-in-5s', 6, 5)],
    // One a second never holds more than 5 in 5 s; a second record in second 9 makes 6.
    records: [...each(ip1, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), ...each(ip1, [9.5])],
    expect: [{ t: 9.5, event: 'six-in-5s', key: ip1 }],
  },
  {
    name: 'count: a busy key fires again one window after it fired',
    events: [count('twenty', 20, 60)],
    // One a second from 0 to 90: the 20th record (t 19) fires; at 79 the window (20..79) holds 60.
    records: each(
      ip1,
      Array.from({ length: 91 }, (_, i) => i),
    ),
    expect: [
      { t: 19, event: 'twenty', key: ip1 },
      { t: 79, event: 'twenty', key: ip1 },
    ],
  },
  {
    name: 'count: a key whose window emptied starts again from zero',
    events: [count('three', 3, 10)],
    records: each(ip1, [0, 1, 20, 21, 22]),
    expect: [{ t: 22, event: 'three', key: ip1 }],
  },
  {
    name: 'count: a trigger event on other sources selects only the records of its sources',
    events: [
      simple('app-fail', 'a', [when('a', 'action', 'exact', 'fail')], { sources: ['app'] }),
      count('fails', 2, 60, { triggerEvent: 'app-fail', sources: ['access', 'app'] }),
    ],
    records: [
      { t: 0, record: hit(ip1, { action: 'fail' }) },
      { t: 1, log: APP_LOG, record: { client: ip1, action: 'fail' } },
      { t: 2, log: APP_LOG, record: { client: ip1, action: 'fail' } },
    ],
    expect: [
      { t: 1, event: 'app-fail', key: null },
      { t: 2, event: 'app-fail', key: null },
      { t: 2, event: 'fails', key: ip1 },
    ],
  },
];
