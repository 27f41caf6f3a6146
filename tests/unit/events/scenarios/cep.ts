import { cep, hit, LOGIN_POST, NOT_FOUND } from '../fixtures.ts';
import type { Scenario } from './types.ts';

const ip1 = '10.0.0.1';
const ip2 = '10.0.0.2';
const miss = (t: number, ip = ip1) => ({ t, record: hit(ip, { status: 404 }) });
const post = (t: number, ip = ip1) => ({ t, record: hit(ip, { request: 'POST /login HTTP/1.1' }) });
const page = (t: number, ip = ip1) => ({ t, record: hit(ip) });
/** The simple events as parts only: the scenarios look at the CEP event's firings. */
const parts = [
  { ...NOT_FOUND, enabled: false },
  { ...LOGIN_POST, enabled: false },
];

export const cepScenarios: Scenario[] = [
  {
    name: 'cep loose: the steps in order fire even with other records of the key between',
    events: [
      ...parts,
      cep(
        'probe-login',
        'loose',
        [
          ['not-found', 1, 1],
          ['login-post', 1, 1],
        ],
        60,
      ),
    ],
    records: [miss(0), page(1), page(1.5, ip2), post(2)],
    expect: [{ t: 2, event: 'probe-login', key: ip1 }],
  },
  {
    name: 'cep strict: a record of the key matching no step between the steps breaks the run',
    events: [
      ...parts,
      cep(
        'probe-login',
        'strict',
        [
          ['not-found', 1, 1],
          ['login-post', 1, 1],
        ],
        60,
      ),
    ],
    records: [miss(0), page(1), post(2), miss(3), page(3.5, ip2), post(4)],
    expect: [{ t: 4, event: 'probe-login', key: ip1 }],
  },
  {
    name: 'cep: the steps must come in order',
    events: [
      ...parts,
      cep(
        'probe-login',
        'loose',
        [
          ['not-found', 1, 1],
          ['login-post', 1, 1],
        ],
        60,
      ),
    ],
    records: [post(0), miss(1)],
    expect: [],
  },
  {
    name: 'cep: each key has its own runs',
    events: [
      ...parts,
      cep(
        'probe-login',
        'loose',
        [
          ['not-found', 1, 1],
          ['login-post', 1, 1],
        ],
        60,
      ),
    ],
    records: [miss(0, ip1), post(1, ip2), post(2, ip1)],
    expect: [{ t: 2, event: 'probe-login', key: ip1 }],
  },
  {
    name: 'cep: a fixed repeat count (3 to 3) needs exactly that many before the next step',
    events: [
      ...parts,
      cep(
        'three-then-post',
        'strict',
        [
          ['not-found', 3, 3],
          ['login-post', 1, 1],
        ],
        60,
      ),
    ],
    records: [miss(0), miss(1), post(2), miss(3), miss(4), miss(5), miss(6), post(7)],
    // The run that started at 4 has three 404s when the POST comes (the one from 3 has four: too many).
    expect: [{ t: 7, event: 'three-then-post', key: ip1 }],
  },
  {
    name: 'cep: a repeat range (2 to 4) takes any count within it',
    events: [
      ...parts,
      cep(
        'some-then-post',
        'loose',
        [
          ['not-found', 2, 4],
          ['login-post', 1, 1],
        ],
        60,
      ),
    ],
    records: [miss(0, ip1), post(1, ip1), miss(2, ip2), miss(3, ip2), post(4, ip2), miss(5, ip1), post(6, ip1)],
    expect: [
      { t: 4, event: 'some-then-post', key: ip2 },
      { t: 6, event: 'some-then-post', key: ip1 },
    ],
  },
  {
    name: 'cep strict: more repeats than the maximum break a run, a later start still matches',
    events: [
      ...parts,
      cep(
        'two-then-post',
        'strict',
        [
          ['not-found', 1, 2],
          ['login-post', 1, 1],
        ],
        60,
      ),
    ],
    records: [miss(0), miss(1), miss(2), post(3)],
    expect: [{ t: 3, event: 'two-then-post', key: ip1 }],
  },
  {
    name: 'cep: the last step fires as soon as it reaches its minimum',
    events: [
      ...parts,
      cep(
        'miss-then-posts',
        'loose',
        [
          ['not-found', 1, 1],
          ['login-post', 2, 5],
        ],
        60,
      ),
    ],
    records: [miss(0), post(1), post(2), post(3)],
    expect: [{ t: 2, event: 'miss-then-posts', key: ip1 }],
  },
  {
    name: 'cep: a single step with a repeat count',
    events: [...parts, cep('three-misses', 'loose', [['not-found', 3, 3]], 60)],
    records: [miss(0), page(1), miss(2), miss(3), miss(4), miss(5), miss(6)],
    expect: [
      { t: 3, event: 'three-misses', key: ip1 },
      { t: 6, event: 'three-misses', key: ip1 },
    ],
  },
  {
    name: 'cep: the window is measured from the first matched record of a run',
    events: [
      ...parts,
      cep(
        'probe-login',
        'loose',
        [
          ['not-found', 1, 1],
          ['login-post', 1, 1],
        ],
        10,
      ),
    ],
    records: [miss(0), post(10), miss(20), post(29.9)],
    expect: [{ t: 29.9, event: 'probe-login', key: ip1 }],
  },
  {
    name: 'cep: a later first step starts a run that still fits the window',
    events: [
      ...parts,
      cep(
        'probe-login',
        'loose',
        [
          ['not-found', 1, 1],
          ['login-post', 1, 1],
        ],
        10,
      ),
    ],
    records: [miss(0), miss(8), post(12)],
    expect: [{ t: 12, event: 'probe-login', key: ip1 }],
  },
  {
    name: 'cep: after firing, the key starts from nothing',
    events: [
      ...parts,
      cep(
        'probe-login',
        'loose',
        [
          ['not-found', 1, 1],
          ['login-post', 1, 1],
        ],
        60,
      ),
    ],
    records: [miss(0), post(1), post(2), miss(3), post(4)],
    expect: [
      { t: 1, event: 'probe-login', key: ip1 },
      { t: 4, event: 'probe-login', key: ip1 },
    ],
  },
  {
    name: 'cep: a record matching two steps can serve as either',
    events: [
      ...parts,
      cep(
        'posts',
        'strict',
        [
          ['login-post', 2, 3],
          ['login-post', 1, 1],
        ],
        60,
      ),
    ],
    records: [post(0), post(1), post(2)],
    expect: [{ t: 2, event: 'posts', key: ip1 }],
  },
];
