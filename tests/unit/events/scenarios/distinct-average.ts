import { average, distinct, hit } from '../fixtures.ts';
import type { Scenario } from './types.ts';

const ip1 = '10.0.0.1';
const ip2 = '10.0.0.2';
const get = (ip: string, t: number, path: string) => ({ t, record: hit(ip, { request: `GET ${path} HTTP/1.1` }) });
const timed = (ip: string, t: number, requestTime: unknown) => ({ t, record: hit(ip, { request_time: requestTime }) });

export const distinctAverageScenarios: Scenario[] = [
  {
    name: 'distinct: fires when a key has seen the threshold of distinct values in the window',
    events: [distinct('paths', 'request', 3, 60)],
    records: [
      get(ip1, 0, '/a'),
      get(ip1, 1, '/a'),
      get(ip1, 2, '/b'),
      get(ip1, 3, '/a'),
      get(ip2, 4, '/c'),
      get(ip1, 5, '/c'),
    ],
    expect: [{ t: 5, event: 'paths', key: ip1 }],
  },
  {
    name: 'distinct: a value whose last sighting left the window no longer counts',
    events: [distinct('paths', 'request', 3, 10)],
    // At 11 the window holds /b and /c; /a (last seen at 0) counts again when seen at 12.
    records: [get(ip1, 0, '/a'), get(ip1, 5, '/b'), get(ip1, 11, '/c'), get(ip1, 12, '/a')],
    expect: [{ t: 12, event: 'paths', key: ip1 }],
  },
  {
    name: 'distinct: a value seen again stays in the window from its newest sighting',
    events: [distinct('paths', 'request', 3, 10)],
    records: [get(ip1, 0, '/a'), get(ip1, 1, '/b'), get(ip1, 9, '/a'), get(ip1, 10.5, '/c')],
    expect: [{ t: 10.5, event: 'paths', key: ip1 }],
  },
  {
    name: 'distinct: counts past the values a key keeps inline, with values repeating and leaving',
    events: [distinct('paths', 'request', 10, 30)],
    records: [
      ...['/1', '/2', '/3', '/4', '/5', '/1', '/2', '/6', '/7', '/8', '/9'].map((p, i) => get(ip1, i, p)),
      get(ip1, 12, '/9'),
      get(ip1, 13, '/10'),
    ],
    expect: [{ t: 13, event: 'paths', key: ip1 }],
  },
  {
    name: 'distinct: a number and its text are one value; records without the field are skipped',
    events: [distinct('statuses', 'status', 2, 60)],
    records: [
      { t: 0, record: hit(ip1, { status: 404 }) },
      { t: 1, record: hit(ip1, { status: '404' }) },
      { t: 2, record: hit(ip1, { status: undefined }) },
      { t: 3, record: hit(ip1, { status: { code: 500 } }) },
      { t: 4, record: hit(ip1, { status: 500 }) },
    ],
    expect: [{ t: 4, event: 'statuses', key: ip1 }],
  },
  {
    name: 'distinct: a key that fired is muted for a window and then counts what came since',
    events: [distinct('paths', 'request', 2, 10)],
    records: [get(ip1, 0, '/a'), get(ip1, 1, '/b'), get(ip1, 2, '/c'), get(ip1, 3, '/d'), get(ip1, 11, '/e')],
    expect: [
      { t: 1, event: 'paths', key: ip1 },
      { t: 11, event: 'paths', key: ip1 },
    ],
  },
  {
    name: 'average: fires when the mean of the field over the window satisfies the comparison',
    events: [average('slow', 'request_time', '>', 3, 60)],
    records: [timed(ip1, 0, 1), timed(ip1, 1, 2), timed(ip2, 2, 9), timed(ip1, 3, 8)],
    expect: [
      { t: 2, event: 'slow', key: ip2 },
      { t: 3, event: 'slow', key: ip1 },
    ],
  },
  {
    name: 'average: values that are not numbers are skipped',
    events: [average('slow', 'request_time', '>', 3, 60)],
    records: [timed(ip1, 0, ''), timed(ip1, 1, 'fast'), timed(ip1, 2, null), timed(ip1, 3, NaN), timed(ip1, 4, '5')],
    expect: [{ t: 4, event: 'slow', key: ip1 }],
  },
  {
    name: 'average: values that left the window no longer weigh in',
    events: [average('quick', 'request_time', '<', 2, 10)],
    records: [timed(ip1, 0, 5), timed(ip1, 11, 1)],
    expect: [{ t: 11, event: 'quick', key: ip1 }],
  },
  {
    name: 'average: a key with values in many buckets',
    events: [average('slow', 'request_time', '>', 2, 60)],
    // Eight seconds of 1, then 12: (8 + 12) / 9 = 2.22.
    records: [...[0, 1, 2, 3, 4, 5, 6, 7].map((t) => timed(ip1, t, 1)), timed(ip1, 8, 12)],
    expect: [{ t: 8, event: 'slow', key: ip1 }],
  },
  {
    name: 'average: a key with values in more buckets than its first list holds',
    events: [average('slow', 'request_time', '>', 2, 60)],
    // Thirty seconds of 1, then 40: (30 + 40) / 31 = 2.26.
    records: [...Array.from({ length: 30 }, (_, t) => timed(ip1, t, 1)), timed(ip1, 30, 40)],
    expect: [{ t: 30, event: 'slow', key: ip1 }],
  },
  {
    name: 'average: a busy key slides its mean over the window',
    events: [average('quick', 'request_time', '<=', 1.5, 5)],
    // Six seconds of 3, then 0 a second: over five seconds the mean goes 2.4, 1.8, then 1.2 at 8.
    records: [...[0, 1, 2, 3, 4, 5].map((t) => timed(ip1, t, 3)), ...[6, 7, 8, 9].map((t) => timed(ip1, t, 0))],
    expect: [{ t: 8, event: 'quick', key: ip1 }],
  },
];
