/**
 * The raw log as a view (spec 1.2): the lines of every TCP and BROKER configuration, the parsed
 * ones read from their configuration's log and the failed ones from the stored raw log, searched as
 * one log: each line once, newest first across the logs with cursors that hold while lines arrive,
 * the raw log's fields only, its filters, histograms that add up, a tail, and record ids that open
 * the stored record.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogStore, type LogRecord } from '#engine/log-store';
import { SearchService, type QueryInput } from '#engine/search';
import { customLogName, failedRawRecord, RAW_FIELDS, RAW_LOG, rawLogView } from '#engine/log-configs';
import { ManualClock } from '#engine/shared';

const T0 = Date.UTC(2026, 10, 20, 0, 0, 0);
const CONFIGS = ['cfgA', 'cfgB'];
const N = 3000;

let dir: string;
let store: LogStore;
let search: SearchService;
const clock = new ManualClock(T0 + 3_600_000);
/** What the raw log should hold: log_id -> whether it parsed. */
const expected = new Map<string, number>();
let sequence = 0;

/** Appends line i of a configuration as ingestion does: parsed into its log, or failed into the raw log. */
function line(config: string, at: number): void {
  const i = sequence++;
  const logId = `boot-${i}`;
  const raw = `host-${i % 5} sshd: Failed password from 10.0.${i % 7}.${i % 11}`;
  if (i % 10 === 3) {
    store.append(RAW_LOG, failedRawRecord(config, raw, logId, at, 'Required field must not be empty: src_ip'));
    expected.set(logId, 0);
    return;
  }
  const record: LogRecord = {
    _timestamp: at,
    host: `host-${i % 5}`,
    src_ip: `10.0.${i % 7}.${i % 11}`,
    parsed: 1,
    log_id: logId,
    log_setting_id: config,
    raw_data: raw,
  };
  store.append(customLogName(config), record);
  expected.set(logId, 1);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-raw-view-'));
  store = await LogStore.open(dir, undefined, { extraIndexedFields: () => ['src_ip'] });
  for (let i = 0; i < N; i++) {
    line(CONFIGS[i % 3 === 0 ? 1 : 0]!, T0 + i * 1_100 + (i % 3) * 7);
    if (i % 400 === 0) await store.flush(); // several blocks a second in each log
  }
  // Another kind of log is not in the raw log.
  store.append('access:s1', { _timestamp: T0 + 5_000, src_ip: '10.0.0.1', site_id: 's1', raw_data: 'not a raw line' });
  await store.flush();
  search = new SearchService({ store, clock, views: new Map([[RAW_LOG, rawLogView]]) });
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const all = { all: true } as const;

/** Every match newest first, a page at a time; `between` runs after each page. */
async function pageAll(
  input: Omit<QueryInput, 'log'>,
  limit: number,
  between?: () => Promise<void>,
): Promise<Record<string, unknown>[]> {
  const seen: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 5_000; pages++) {
    const page = await search.search({ log: RAW_LOG, ...input, cursor, limit });
    expect(page.partial).toBe(false);
    seen.push(...page.records.map((r) => r.record));
    if (!page.nextCursor) return seen;
    cursor = page.nextCursor;
    await between?.();
  }
  throw new Error('too many pages');
}

describe('the raw log as a view', () => {
  it('holds every line of every configuration once, newest first, while lines arrive', async () => {
    const before = new Map(expected);
    let late = 0;
    const seen = await pageAll({ range: { from: T0, to: T0 + N * 1_100 } }, 97, async () => {
      // Lines written between pages come after the first page's time: they are not in it.
      if (late++ < 5) {
        for (let j = 0; j < 20; j++) line(CONFIGS[j % 2]!, T0 + N * 1_100 + 60_000 + j);
        await store.flush();
      }
    });
    const ids = seen.map((r) => r.log_id as string);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Map(seen.map((r) => [r.log_id as string, r.parsed as number]))).toEqual(before);
    // Newest first by second (a second's blocks come in the order they were written).
    const seconds = seen.map((r) => Math.floor((r._timestamp as number) / 1000));
    for (let i = 1; i < seconds.length; i++) expect(seconds[i]).toBeLessThanOrEqual(seconds[i - 1]!);
    expect(seen.some((r) => r.raw_data === 'not a raw line')).toBe(false);
  });

  it("shows the raw log's fields only", async () => {
    const page = await search.search({ log: RAW_LOG, range: all, limit: 500 });
    for (const { record } of page.records) {
      for (const field of Object.keys(record)) expect(RAW_FIELDS.has(field)).toBe(true);
      expect(record).toMatchObject({ log_id: expect.any(String) as unknown, raw_data: expect.any(String) as unknown });
      if (record.parsed === 0) expect(record.reason).toBe('Required field must not be empty: src_ip');
      else expect(record.parsed).toBe(1);
    }
    expect(new Set(page.records.map((r) => r.record.parsed))).toEqual(new Set([0, 1]));
  });

  it("filters on the raw log's fields: the configuration through its index, parsed, the line's text", async () => {
    const wanted = async (config: string, parsed?: number): Promise<number> => {
      const query = `log_setting_id:${config}${parsed === undefined ? '' : ` AND parsed:${parsed}`}`;
      return (await pageAll({ range: all, query }, 500)).length;
    };
    const byConfig = await search.search({ log: RAW_LOG, range: all, query: `log_setting_id:${CONFIGS[1]}`, limit: 1 });
    expect(byConfig.plan).toBe('index');
    const a = await wanted(CONFIGS[0]!);
    const b = await wanted(CONFIGS[1]!);
    expect(a + b).toBe(expected.size);
    expect((await wanted(CONFIGS[0]!, 0)) + (await wanted(CONFIGS[1]!, 0))).toBe(
      [...expected.values()].filter((p) => p === 0).length,
    );
    // A parsed field is not a raw log field, though its configuration's log indexes it.
    const parsedField = await search.search({ log: RAW_LOG, range: all, query: 'src_ip:10.0.1.1' });
    expect(parsedField.records).toEqual([]);
    const text = await pageAll({ range: all, query: 'raw_data:*host-4*' }, 500);
    expect(text.length).toBeGreaterThan(0);
    expect(text.every((r) => (r.raw_data as string).startsWith('host-4 '))).toBe(true);
  });

  it('gives histograms that add up to the count, from roll-ups, index entries or a scan', async () => {
    const count = async (query?: string): Promise<number> => (await pageAll({ range: all, query }, 500)).length;
    for (const query of [undefined, `log_setting_id:${CONFIGS[0]}`, 'parsed:0', 'site_id:cfgA']) {
      const histogram = await search.histogram({ log: RAW_LOG, range: all, query, interval: 60_000 });
      expect(histogram.total, query ?? 'no query').toBe(await count(query));
    }
    expect((await search.histogram({ log: RAW_LOG, range: all, query: 'site_id:cfgA', interval: 60_000 })).total).toBe(
      0,
    );
  });

  it("spans its logs' records, and gives ids that open the stored record in its configuration's log", async () => {
    const newest = await search.search({ log: RAW_LOG, range: all, query: 'parsed:1', limit: 1 });
    const id = newest.records[0]!.id;
    const view = await search.record(id, 2);
    expect(view.log.startsWith('custom:')).toBe(true);
    // The stored record, with the fields its configuration parsed.
    expect(view.record).toMatchObject({
      log_id: newest.records[0]!.record.log_id,
      src_ip: expect.any(String) as unknown,
    });
    const oldest = await search.search({ log: RAW_LOG, range: all, limit: 500 });
    expect(oldest.range.from).toBeLessThanOrEqual(T0);
  });

  it('tails the lines of every configuration as they are written, and nothing else', async () => {
    const heard: Record<string, unknown>[] = [];
    const stop = await search.tail({ log: RAW_LOG }, (_id, record) => heard.push(record));
    line('cfgNew', clock.now());
    line('cfgNew', clock.now());
    line('cfgNew', clock.now());
    line('cfgNew', clock.now());
    store.append('access:s1', { _timestamp: clock.now(), site_id: 's1', raw_data: 'not a raw line' });
    await store.flush();
    stop();
    expect(heard.map((r) => r.log_setting_id)).toEqual(['cfgNew', 'cfgNew', 'cfgNew', 'cfgNew']);
    for (const record of heard) for (const field of Object.keys(record)) expect(RAW_FIELDS.has(field)).toBe(true);
  });
});
