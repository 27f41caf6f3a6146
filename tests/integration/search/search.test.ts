/**
 * Log search over a generated store, checked against plain JavaScript over the same records: every
 * operator, AND / OR / NOT, paging newest first without gaps or repeats while records arrive,
 * histograms whose buckets add up to the count, range edges (from inclusive, to exclusive), `all`,
 * and bad input refused with a reason and bounded work.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClassicLevel } from 'classic-level';
import { LogStore, recordKey, type LogRecord } from '#engine/log-store';
import { SearchService, type QueryInput } from '#engine/search';
import { ManualClock, RampartError, type Filter } from '#engine/shared';

const LOG = 'access:s1';
const T0 = Date.UTC(2026, 10, 20, 0, 0, 0);
const N = 6000;
const STEP = 3_700; // ms between records: 6,000 records over about 6 hours

type Rec = LogRecord & Record<string, unknown>;

function make(i: number): Rec {
  const blocked = i % 11 === 0;
  return {
    _timestamp: T0 + i * STEP + (i % 1000),
    i,
    src_ip: `10.0.${i % 3}.${i % 17}`,
    hostname: i % 2 ? 'shop.example.com' : 'api.example.com',
    site_id: 's1',
    guard_status: blocked ? 'OWASP' : i % 13 === 0 ? 'BLOCKLIST' : 'PASS',
    status: blocked ? 403 : i % 29 === 0 ? 429 : i % 7 === 0 ? 500 : 200,
    request_time: (i % 20) / 10,
    request: i % 9 === 0 ? `GET /wp-${i % 2 ? 'admin' : 'login'}.php HTTP/1.1` : `GET /item/${i} HTTP/1.1`,
    user_agent: i % 5 === 0 ? 'CURL/8.0 sqlmap' : 'Mozilla/5.0',
    client_bot_type: i % 4 === 0 ? 'selenium' : '',
    ...(i % 3 === 0 ? { account: `user${i % 10}` } : {}),
    waf_triggered_rules: blocked ? `942100,${949110 + (i % 2)}` : '',
    _intelligence_result: { intel: { ua_family: i % 6 === 0 ? 'Chrome' : 'Firefox' } },
  };
}

let dir: string;
let store: LogStore;
let search: SearchService;
const clock = new ManualClock(T0 + N * STEP + 60_000);
const all: Rec[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-search-'));
  store = await LogStore.open(dir);
  for (let i = 0; i < N; i++) {
    const r = make(i);
    all.push(r);
    store.append(LOG, r);
    if (i % 700 === 0) await store.flush(); // several flushes: several blocks per second and per minute
  }
  store.append('access:s2', make(1));
  await store.flush();
  search = new SearchService({ store, clock });
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every match, paged newest first with `limit` per page; fails on a repeat. */
async function pageAll(input: QueryInput, limit: number, between?: () => Promise<void>): Promise<number[]> {
  const seen: number[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await search.search({ ...input, cursor, limit });
    expect(page.partial).toBe(false);
    for (const r of page.records) seen.push(r.record.i as number);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
    await between?.();
  }
  expect(new Set(seen).size, 'no record twice').toBe(seen.length);
  return seen;
}

const WHOLE: QueryInput['range'] = { from: T0, to: T0 + N * STEP + 10_000 };
const want = (holds: (r: Rec) => boolean, from = WHOLE.from, to = WHOLE.to): number[] =>
  all
    .filter((r) => r._timestamp >= from && r._timestamp < to && holds(r))
    .map((r) => r.i as number)
    .reverse();

const cases: [string, (r: Rec) => boolean][] = [
  ['src_ip:10.0.1.5', (r) => r.src_ip === '10.0.1.5'],
  ['status:403', (r) => r.status === 403],
  ['NOT status:200', (r) => r.status !== 200],
  ['-guard_status:PASS', (r) => r.guard_status !== 'PASS'],
  ['status:>=429', (r) => (r.status as number) >= 429],
  ['status:<300', (r) => (r.status as number) < 300],
  ['request_time:[0.5 TO 1]', (r) => (r.request_time as number) >= 0.5 && (r.request_time as number) <= 1],
  ['request_time:{0.5 TO 1}', (r) => (r.request_time as number) > 0.5 && (r.request_time as number) < 1],
  ['request_time:[1.5 TO *]', (r) => (r.request_time as number) >= 1.5],
  ['account:*', (r) => r.account !== undefined],
  ['NOT account:*', (r) => r.account === undefined],
  ['user_agent:*sqlmap*', (r) => String(r.user_agent).toLowerCase().includes('sqlmap')],
  ['user_agent:*curl*', (r) => String(r.user_agent).toLowerCase().includes('curl')],
  ['request:/wp-(admin|login)/', (r) => /wp-(admin|login)/.test(String(r.request))],
  ['request:/\\/item\\/1\\d\\b/', (r) => /\/item\/1\d\b/.test(String(r.request))],
  ['hostname:shop.example.com AND status:500', (r) => r.hostname === 'shop.example.com' && r.status === 500],
  [
    '(status:403 OR status:429) AND hostname:api.example.com',
    (r) => (r.status === 403 || r.status === 429) && r.hostname === 'api.example.com',
  ],
  ['status:(403 OR 429)', (r) => r.status === 403 || r.status === 429],
  ['waf_triggered_rules:942100', (r) => String(r.waf_triggered_rules).split(',').includes('942100')],
  [
    'waf_triggered_rules:949111 src_ip:10.0.0.1',
    (r) => String(r.waf_triggered_rules).split(',').includes('949111') && r.src_ip === '10.0.0.1',
  ],
  [
    '_intelligence_result.intel.ua_family:Chrome',
    (r) => (r._intelligence_result as { intel: { ua_family: string } }).intel.ua_family === 'Chrome',
  ],
  ['sqlmap', (r) => String(r.user_agent).includes('sqlmap')],
  [
    'NOT (guard_status:PASS OR client_bot_type:selenium)',
    (r) => !(r.guard_status === 'PASS' || r.client_bot_type === 'selenium'),
  ],
  ['account:user* AND NOT account:user3', (r) => typeof r.account === 'string' && r.account !== 'user3'],
  ['hostname:nowhere.example.com', () => false],
];

describe('log search', () => {
  it.each(cases)('%s finds exactly the matching records, newest first, over pages', async (query, holds) => {
    const got = await pageAll({ log: LOG, range: WHOLE, query }, 97);
    expect(got).toEqual(want(holds));
  });

  it('takes filters as JSON (the filter pills), ANDed with the query box', async () => {
    const filter: Filter = {
      op: 'and',
      filters: [
        { op: 'ne', field: 'status', value: 200 },
        { op: 'not', filter: { op: 'eq', field: 'guard_status', value: 'OWASP' } },
        { op: 'range', field: 'request_time', gte: 1 },
      ],
    };
    const got = await pageAll({ log: LOG, range: WHOLE, filter, query: 'hostname:shop.example.com' }, 500);
    expect(got).toEqual(
      want(
        (r) =>
          r.status !== 200 &&
          r.guard_status !== 'OWASP' &&
          (r.request_time as number) >= 1 &&
          r.hostname === 'shop.example.com',
      ),
    );
  });

  it('uses the index for an indexed equality and scans otherwise', async () => {
    expect((await search.search({ log: LOG, range: WHOLE, query: 'src_ip:10.0.1.5 AND status:200' })).plan).toBe(
      'index',
    );
    expect((await search.search({ log: LOG, range: WHOLE, query: 'user_agent:*curl*' })).plan).toBe('scan');
  });

  it('pages without gaps or repeats while new records arrive', async () => {
    let next = N;
    const got = await pageAll({ log: LOG, range: { all: true }, query: 'status:500' }, 50, async () => {
      for (let k = 0; k < 30; k++) {
        const r = make(next);
        r._timestamp = clock.now() + k; // newer than everything paged so far
        r.i = next++;
        store.append(LOG, r);
      }
      await store.flush();
    });
    // Everything that was there when paging started, nothing twice; new records are newer than the first page.
    expect(got.filter((i) => i < N)).toEqual(want((r) => r.status === 500, 0, Number.MAX_SAFE_INTEGER));
  });

  it('keeps to the range: from inclusive, to exclusive, to the millisecond', async () => {
    const a = all[1000]!;
    const b = all[1100]!;
    const got = await pageAll({ log: LOG, range: { from: a._timestamp, to: b._timestamp } }, 500);
    expect(got[0]).toBe(1099);
    expect(got.at(-1)).toBe(1000);
    expect(got).toHaveLength(100);
  });

  it('gives histograms whose buckets add up to the count, from roll-ups, index entries or a scan', async () => {
    const range = { from: T0 + 600_000 + 123, to: T0 + 5 * 3_600_000 + 456 };
    for (const [query, source] of [
      ['', 'rollups'],
      ['guard_status:OWASP', 'rollups'],
      ['NOT client_bot_type:selenium', 'rollups'],
      ['src_ip:10.0.2.7', 'index'],
      ['status:>=500', 'scan'],
    ] as const) {
      const h = await search.histogram({ log: LOG, range, query });
      expect(h.source, query).toBe(source);
      const count = (await pageAll({ log: LOG, range, query }, 500)).length;
      expect(h.total, query).toBe(count);
      expect(h.buckets.reduce((n, b) => n + b.count, 0)).toBe(count);
      expect(h.buckets.length).toBeLessThanOrEqual(120);
      expect(h.buckets[0]!.start).toBeLessThanOrEqual(range.from);
    }
  });

  it('counts an indexed equality to the millisecond where the range cuts through a second', async () => {
    const second = T0 + 42_000;
    for (let ms = 0; ms < 1000; ms += 100)
      store.append('access:edges', { _timestamp: second + ms, src_ip: '192.0.2.9' });
    await store.flush();
    const h = await search.histogram({
      log: 'access:edges',
      range: { from: second + 450, to: second + 850 },
      query: 'src_ip:192.0.2.9',
    });
    expect(h.source).toBe('index');
    expect(h.total).toBe(4); // 500, 600, 700 and 800 ms
  });

  it('searches everything with `all`', async () => {
    const page = await search.search({ log: 'access:s2', range: { all: true } });
    expect(page.records.map((r) => r.record.i)).toEqual([1]);
    const h = await search.histogram({ log: LOG, range: { all: true }, query: 'status:429' });
    // The paging test above added newer records: `all` counts them too.
    const count = (await pageAll({ log: LOG, range: { all: true }, query: 'status:429' }, 500)).length;
    expect(count).toBeGreaterThanOrEqual(all.filter((r) => r.status === 429).length);
    expect(h.total).toBe(count);
  });

  it('returns one record by id with its neighbours in time', async () => {
    const page = await search.search({ log: LOG, range: WHOLE, query: 'src_ip:10.0.1.5', limit: 3 });
    const target = page.records[2]!;
    const view = await search.record(target.id, 3);
    expect(view.record.i).toBe(target.record.i);
    const i = target.record.i as number;
    expect(view.older.map((r) => r.record.i)).toEqual([i - 1, i - 2, i - 3]);
    expect(view.newer.map((r) => r.record.i).slice(0, 3)).toEqual([i + 1, i + 2, i + 3]);
  });

  it('gives each field with its top values in the result', async () => {
    const stats = await search.fields({ log: LOG, range: WHOLE, query: 'status:403', sample: 200 });
    expect(stats.sampled).toBe(200);
    const status = stats.fields.find((f) => f.field === 'status');
    expect(status?.top).toEqual([{ value: '403', count: 200 }]);
    expect(stats.fields.some((f) => f.field === '_intelligence_result.intel.ua_family')).toBe(true);
  });

  it('stops at its budget, says so, and its cursor goes on from where it stopped', async () => {
    const budget = { records: 1000 };
    const first = await search.search({ log: LOG, range: WHOLE, query: 'user_agent:*nomatch*', budget });
    expect(first).toMatchObject({ partial: true, records: [] });
    expect(first.examined).toBe(1000);
    const second = await search.search({
      log: LOG,
      range: WHOLE,
      query: 'user_agent:*nomatch*',
      budget,
      cursor: first.nextCursor!,
    });
    expect(second.partial).toBe(true);
    expect(second.examined).toBe(1000);
  });
});

describe('bad queries', () => {
  const refusal = async (input: Parameters<SearchService['search']>[0]): Promise<RampartError> => {
    const error = await search.search(input).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RampartError);
    return error as RampartError;
  };

  it.each([
    ['status:(403 OR', 'query_syntax'],
    ['(status:403', 'query_syntax'],
    ['status:', 'query_syntax'],
    ['user_agent:"unterminated', 'query_syntax'],
    ['request_time:[1 TO x]', 'query_syntax'],
    ['request:/(a)\\1/', 'not_linear'],
    ['request:/(/', 'regex_invalid'],
  ])('refuses %s with a reason', async (query, reason) => {
    const error = await refusal({ log: LOG, range: WHOLE, query });
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.field).toBe('query');
    expect(error.params.reason).toBe(reason);
  });

  it('says where a syntax error is', async () => {
    const error = await refusal({ log: LOG, range: WHOLE, query: 'status:403 AND )' });
    expect(error.params).toMatchObject({ reason: 'query_syntax', position: 15 });
  });

  it('refuses a cursor from another query, and one it did not give out', async () => {
    const page = await search.search({ log: LOG, range: WHOLE, query: 'status:403', limit: 5 });
    const other = await refusal({ log: LOG, range: WHOLE, query: 'status:500', cursor: page.nextCursor! });
    expect(other.params.reason).toBe('cursor_other_query');
    const forged = await refusal({ log: LOG, range: WHOLE, cursor: 'bm90LWEtY3Vyc29y' });
    expect(forged.params.reason).toBe('cursor_malformed');
  });

  it('runs a catastrophic-looking regex in linear time', async () => {
    store.append('access:evil', { _timestamp: T0, request: `${'a'.repeat(50_000)}!` });
    await store.flush();
    const started = performance.now();
    const page = await search.search({ log: 'access:evil', range: WHOLE, query: 'request:/(a+)+$/' });
    expect(page.records).toHaveLength(0);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('a damaged block', () => {
  it('loses only its unreadable rows: search, the record view and read() go on with the rest', async () => {
    const work = await mkdtemp(join(tmpdir(), 'rampart-search-damaged-'));
    const log = 'custom:damaged';
    let damaged = await LogStore.open(work);
    for (let i = 0; i < 20; i++) damaged.append(log, { _timestamp: T0 + i * 1000, n: i, src_ip: '10.9.9.9' });
    await damaged.close();
    // Damage the block of second 5 (its row is not JSON) and the header of second 6's block.
    const db = new ClassicLevel<Buffer, string>(join(work, 'logs'), { keyEncoding: 'buffer', valueEncoding: 'utf8' });
    await db.open();
    for await (const [key, value] of db.iterator({
      gte: recordKey(log, T0 + 5000, 0),
      lt: recordKey(log, T0 + 7000, 0),
    })) {
      const second = key.readUInt32BE(key.length - 12) * 2 ** 32 + key.readUInt32BE(key.length - 8);
      await db.put(
        key,
        second === T0 + 5000
          ? `[0,${value.slice(3, 20)}\n${value.split('\n').at(-1)}`
          : `${value.split('\n')[0]}\n{"shapes":`,
      );
    }
    await db.close();
    damaged = await LogStore.open(work);
    const service = new SearchService({ store: damaged, clock });
    const page = await service.search({ log, range: { from: T0, to: T0 + 20_000 }, query: '', limit: 100 });
    expect(page.records.map((r) => r.record.n).sort((a, b) => Number(a) - Number(b))).toEqual(
      [...Array(20).keys()].filter((n) => n !== 5 && n !== 6),
    );
    const viaIndex = await service.search({
      log,
      range: { from: T0, to: T0 + 20_000 },
      query: 'src_ip:10.9.9.9',
      limit: 100,
    });
    expect(viaIndex.records).toHaveLength(18);
    const view = await service.record(page.records[0]!.id, 5);
    expect(view.older.length).toBe(5);
    expect((await damaged.read(log, { from: T0, to: T0 + 20_000 })).length).toBe(18);
    await damaged.close();
    await rm(work, { recursive: true, force: true });
  });
});
