import { ADMIN, APP_LOG, BOT_UA, hit, NOT_FOUND, simple, when } from '../fixtures.ts';
import type { Scenario } from './types.ts';

export const simpleScenarios: Scenario[] = [
  {
    name: 'an exact match fires on every matching record, numbers compared as text',
    events: [NOT_FOUND],
    records: [
      { t: 0, record: hit('1.1.1.1', { status: 404 }) },
      { t: 1, record: hit('1.1.1.1', { status: 200 }) },
      { t: 2, record: hit('1.1.1.2', { status: '404' }) },
      { t: 3, record: hit('1.1.1.2', { status: '4040' }) },
    ],
    expect: [
      { t: 0, event: 'not-found', key: null },
      { t: 2, event: 'not-found', key: null },
    ],
  },
  {
    name: 'a regex match needs to match only part of the value; an exact match the whole value',
    events: [ADMIN, simple('curl-exact', 'a', [when('a', 'user_agent', 'exact', 'curl')])],
    records: [
      { t: 0, record: hit('1.1.1.1', { request: 'GET /admin/users HTTP/1.1' }) },
      { t: 1, record: hit('1.1.1.1', { request: 'GET /shop HTTP/1.1', user_agent: 'curl/8.4.0' }) },
      { t: 2, record: hit('1.1.1.1', { user_agent: 'curl' }) },
    ],
    expect: [
      { t: 0, event: 'admin', key: null },
      { t: 2, event: 'curl-exact', key: null },
    ],
  },
  {
    name: 'numeric judgments with every comparator; text that is not a number never matches',
    events: [
      simple('ge', 'a', [when('a', 'request_time', '>=', 5)]),
      simple('gt', 'a', [when('a', 'request_time', '>', 5)]),
      simple('eq', 'a', [when('a', 'request_time', '=', 5)]),
      simple('lt', 'a', [when('a', 'request_time', '<', 5)]),
      simple('le', 'a', [when('a', 'request_time', '<=', 5)]),
    ],
    records: [
      { t: 0, record: hit('1.1.1.1', { request_time: 4 }) },
      { t: 1, record: hit('1.1.1.1', { request_time: 5 }) },
      { t: 2, record: hit('1.1.1.1', { request_time: 6 }) },
      { t: 3, record: hit('1.1.1.1', { request_time: '5.0' }) },
      { t: 4, record: hit('1.1.1.1', { request_time: 'slow' }) },
      { t: 5, record: hit('1.1.1.1', { request_time: '' }) },
      { t: 6, record: hit('1.1.1.1', { request_time: null }) },
    ],
    expect: [
      { t: 0, event: 'lt', key: null },
      { t: 0, event: 'le', key: null },
      { t: 1, event: 'ge', key: null },
      { t: 1, event: 'eq', key: null },
      { t: 1, event: 'le', key: null },
      { t: 2, event: 'ge', key: null },
      { t: 2, event: 'gt', key: null },
      { t: 3, event: 'ge', key: null },
      { t: 3, event: 'eq', key: null },
      { t: 3, event: 'le', key: null },
    ],
  },
  {
    name: 'a relation combines conditions with !, & and | (! binds tightest, then &)',
    events: [
      simple('rel', 'a | b & !c', [
        when('a', 'status', 'exact', 500),
        when('b', 'request', 'regex', '^POST '),
        when('c', 'user_agent', 'regex', 'Mozilla'),
      ]),
    ],
    records: [
      { t: 0, record: hit('1.1.1.1', { status: 500 }) },
      { t: 1, record: hit('1.1.1.1', { request: 'POST /form HTTP/1.1' }) },
      { t: 2, record: hit('1.1.1.1', { request: 'POST /form HTTP/1.1', user_agent: 'curl/8' }) },
      { t: 3, record: hit('1.1.1.1', { request: 'GET / HTTP/1.1', user_agent: 'curl/8' }) },
    ],
    expect: [
      { t: 0, event: 'rel', key: null },
      { t: 2, event: 'rel', key: null },
    ],
  },
  {
    name: 'conditions on intelligence fields read _intelligence_result.intel when the record has no such field',
    events: [
      simple('from-cn', 'a', [when('a', 'ip_country', 'exact', 'CN')]),
      simple('big-asn', 'a', [when('a', 'ip_asn', '>', 60000)]),
    ],
    records: [
      { t: 0, record: hit('1.1.1.1', { _intelligence_result: { intel: { ip_country: 'CN', ip_asn: 4134 } } }) },
      { t: 1, record: hit('1.1.1.1', { _intelligence_result: { intel: { ip_country: 'US', ip_asn: 64512 } } }) },
      { t: 2, record: hit('1.1.1.1', { ip_country: 'DE', _intelligence_result: { intel: { ip_country: 'CN' } } }) },
      { t: 3, record: hit('1.1.1.1', { _intelligence_result: null }) },
    ],
    expect: [
      { t: 0, event: 'from-cn', key: null },
      { t: 1, event: 'big-asn', key: null },
    ],
  },
  {
    name: 'a missing field makes its condition false, so !a holds',
    events: [
      simple('no-referrer-x', '!a', [when('a', 'referrer', 'exact', 'x')]),
      simple('referrer-x', 'a', [when('a', 'referrer', 'exact', 'x')]),
    ],
    records: [
      { t: 0, record: hit('1.1.1.1') },
      { t: 1, record: hit('1.1.1.1', { referrer: 'x' }) },
    ],
    expect: [
      { t: 0, event: 'no-referrer-x', key: null },
      { t: 1, event: 'referrer-x', key: null },
    ],
  },
  {
    name: 'a disabled event does not fire',
    events: [{ ...NOT_FOUND, enabled: false }, BOT_UA],
    records: [{ t: 0, record: hit('1.1.1.1', { status: 404, user_agent: 'curl/8' }) }],
    expect: [{ t: 0, event: 'bot-ua', key: null }],
  },
  {
    name: 'an event reads only the logs of its sources',
    events: [
      NOT_FOUND,
      simple('app-404', 'a', [when('a', 'status', 'exact', 404)], { sources: ['app'] }),
      simple('both-404', 'a', [when('a', 'status', 'exact', 404)], { sources: ['access', 'app'] }),
    ],
    records: [
      { t: 0, record: hit('1.1.1.1', { status: 404 }) },
      { t: 1, log: APP_LOG, record: { client: '1.1.1.1', status: 404 } },
      { t: 2, log: 'custom:nobody-reads', record: { status: 404 } },
    ],
    expect: [
      { t: 0, event: 'not-found', key: null },
      { t: 0, event: 'both-404', key: null },
      { t: 1, event: 'app-404', key: null },
      { t: 1, event: 'both-404', key: null },
    ],
  },
  {
    name: 'equal conditions in several events are each tested once per record, with the same outcome',
    events: [
      simple('a1', 'a', [when('a', 'status', 'exact', 404)]),
      simple('a2', 'x & y', [when('x', 'status', 'exact', 404), when('y', 'request', 'regex', 'admin')]),
      simple('a3', 'q | r', [when('q', 'status', 'exact', 403), when('r', 'request', 'regex', 'admin')]),
    ],
    records: [
      { t: 0, record: hit('1.1.1.1', { status: 404, request: 'GET /admin HTTP/1.1' }) },
      { t: 1, record: hit('1.1.1.1', { status: 403 }) },
    ],
    expect: [
      { t: 0, event: 'a1', key: null },
      { t: 0, event: 'a2', key: null },
      { t: 0, event: 'a3', key: null },
      { t: 1, event: 'a3', key: null },
    ],
  },
];
