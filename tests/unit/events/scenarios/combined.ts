import { ADMIN, BOT_UA, combined, count, hit, NOT_FOUND } from '../fixtures.ts';
import type { Scenario } from './types.ts';

const ip1 = '10.0.0.1';
const ip2 = '10.0.0.2';
const hidden = <T extends { enabled: boolean }>(e: T): T => ({ ...e, enabled: false });

export const combinedScenarios: Scenario[] = [
  {
    name: 'combined: simple members combine per record by the relation; no trigger object, no key',
    events: [
      hidden(NOT_FOUND),
      hidden(BOT_UA),
      combined('bot-404', 'a & b', [
        ['a', 'not-found'],
        ['b', 'bot-ua'],
      ]),
    ],
    records: [
      { t: 0, record: hit(ip1, { status: 404 }) },
      { t: 1, record: hit(ip1, { user_agent: 'curl/8' }) },
      { t: 2, record: hit(ip1, { status: 404, user_agent: 'curl/8' }) },
    ],
    expect: [{ t: 2, event: 'bot-404', key: null }],
  },
  {
    name: 'combined: ! over a member',
    events: [
      hidden(NOT_FOUND),
      hidden(BOT_UA),
      combined('human-404', 'a & !b', [
        ['a', 'not-found'],
        ['b', 'bot-ua'],
      ]),
    ],
    records: [
      { t: 0, record: hit(ip1, { status: 404 }) },
      { t: 1, record: hit(ip1, { status: 404, user_agent: 'curl/8' }) },
    ],
    expect: [{ t: 0, event: 'human-404', key: null }],
  },
  {
    name: 'combined: a windowed member stays true for its key for its window after it fires',
    events: [
      hidden(ADMIN),
      hidden(NOT_FOUND),
      hidden(count('busy-404', 2, 10, { triggerEvent: 'not-found' })),
      combined('busy-admin', 'a & b', [
        ['a', 'busy-404'],
        ['b', 'admin'],
      ]),
    ],
    // busy-404 fires at 1 (latched until 11); admin at 5 finds it latched; at 12 the latch is over.
    records: [
      { t: 0, record: hit(ip1, { status: 404 }) },
      { t: 1, record: hit(ip1, { status: 404 }) },
      { t: 5, record: hit(ip2, { request: 'GET /admin HTTP/1.1' }) },
      { t: 5, record: hit(ip1, { request: 'GET /admin HTTP/1.1' }) },
      { t: 12, record: hit(ip1, { request: 'GET /admin HTTP/1.1' }) },
    ],
    expect: [{ t: 5, event: 'busy-admin', key: ip1 }],
  },
  {
    name: 'combined: fires only on a record where a member became true, not while latched alone',
    events: [hidden(count('busy', 2, 10)), combined('just-busy', 'a', [['a', 'busy']])],
    records: [
      { t: 0, record: hit(ip1) },
      { t: 1, record: hit(ip1) },
      { t: 2, record: hit(ip1) },
    ],
    expect: [{ t: 1, event: 'just-busy', key: ip1 }],
  },
  {
    name: 'combined: two windowed members latched on one key',
    events: [
      hidden(NOT_FOUND),
      hidden(count('busy', 3, 60)),
      hidden(count('404s', 2, 60, { triggerEvent: 'not-found' })),
      combined('busy-and-404s', 'a & b', [
        ['a', 'busy'],
        ['b', '404s'],
      ]),
    ],
    records: [
      { t: 0, record: hit(ip1, { status: 404 }) },
      { t: 1, record: hit(ip1, { status: 404 }) },
      { t: 2, record: hit(ip1) },
    ],
    // 404s fires at 1 (busy not yet); busy fires at 2 and finds 404s latched.
    expect: [{ t: 2, event: 'busy-and-404s', key: ip1 }],
  },
  {
    name: 'combined: members grouped by different objects give no key',
    events: [
      hidden(count('busy-ip', 2, 60)),
      hidden(count('busy-device', 2, 60, { object: 'device' })),
      combined('busy-either', 'a | b', [
        ['a', 'busy-ip'],
        ['b', 'busy-device'],
      ]),
    ],
    records: [
      { t: 0, record: hit(ip1, { fingerprint: 'fp' }) },
      { t: 1, record: hit(ip2, { fingerprint: 'fp' }) },
    ],
    expect: [{ t: 1, event: 'busy-either', key: null }],
  },
  {
    name: 'combined: an enabled member fires on its own too, before the combined event',
    events: [
      NOT_FOUND,
      hidden(BOT_UA),
      combined('bot-or-404', 'a | b', [
        ['a', 'not-found'],
        ['b', 'bot-ua'],
      ]),
    ],
    records: [
      { t: 0, record: hit(ip1, { status: 404 }) },
      { t: 1, record: hit(ip1, { user_agent: 'curl/8' }) },
    ],
    expect: [
      { t: 0, event: 'not-found', key: null },
      { t: 0, event: 'bot-or-404', key: null },
      { t: 1, event: 'bot-or-404', key: null },
    ],
  },
];
