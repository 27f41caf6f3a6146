/**
 * Log search over a store of 10,000,000 access records (issue 13), with the same reads done as a
 * plain classic-level range scan in the same run, so each ratio can be read:
 *
 *   search_first_page_ms        first page (50) of an indexed filter (src_ip) over a 24 h range
 *   search_histogram_24h_ms     the histogram of a 24 h range (automatic interval, from roll-ups)
 *   search_unindexed_1m_ms      an unindexed filter (user_agent contains) over 1,000,000 records
 *   store_write_records_per_s   appends with index entries and roll-ups (1,000,000 into a fresh store)
 *   raw_*                       the same reads (and writes) with classic-level alone: a range scan
 *                               that parses and tests every record (no index, no roll-ups, no
 *                               whole-block test); raw writes put one JSON object per record
 *
 * The 10 M store is built once in RAMPART_BENCH_SEARCH_DIR (default <tmp>/rampart-bench-search-10m)
 * and reused while its marker matches; RAMPART_BENCH_SEARCH_RECORDS changes the size (for a quick run).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { decodeBlock, LogStore, recordKey } from '#engine/log-store';
import { SearchService } from '#engine/search';
import { ManualClock } from '#engine/shared';

const TOTAL = Number(process.env.RAMPART_BENCH_SEARCH_RECORDS ?? 10_000_000);
const DIR = process.env.RAMPART_BENCH_SEARCH_DIR ?? join(tmpdir(), `rampart-bench-search-${TOTAL}`);
// v2: blocks of the second format (key names once per block).
const GENERATOR = 'v2';
const LOG = 'access:bench-site';
const BASE = Date.UTC(2026, 0, 1);
/** The records span three days. */
const SPAN = 3 * 86_400_000;
const DAY = 86_400_000;
const IPS = 20_000;

/** A realistic access record (spec 2.3 fields), deterministic in i. */
function record(i: number): Record<string, unknown> & { _timestamp: number } {
  const ip = (i * 7919) % IPS;
  const blocked = i % 53 === 0;
  return {
    _timestamp: BASE + Math.floor((i / TOTAL) * SPAN),
    site_id: 'bench-site',
    hostname: i % 3 ? 'shop.example.com' : 'api.example.com',
    scheme: 'https',
    src_ip: `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`,
    request: `${i % 5 ? 'GET' : 'POST'} /products/${i % 997}?page=${i % 13} HTTP/1.1`,
    user_agent:
      i % 1000 === 0
        ? 'sqlmap/1.7.2#stable (https://sqlmap.org)'
        : 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    referrer: i % 4 ? 'https://shop.example.com/' : '',
    x_forwarded_for: '',
    guard_status: blocked ? 'OWASP' : i % 211 === 0 ? 'BLOCKLIST' : 'PASS',
    status: blocked ? 403 : i % 101 === 0 ? 404 : 200,
    body_bytes_sent: 512 + (i % 4096),
    request_time: (i % 500) / 1000,
    fingerprint: `fp${(i * 31) % 50_000}`,
    client_bot_type: i % 17 === 0 ? 'script_tool' : '',
    waf_triggered_rules: blocked ? '942100,949110' : '',
    waf_triggered_categories: blocked ? 'sqli' : '',
    waf_triggered_score: blocked ? 5 : 0,
    keeper_version: '1.0.0',
    tenant_id: 'bench',
    parsed: 1,
  };
}

const yieldToIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function build(): Promise<void> {
  const marker = join(DIR, 'bench-marker.json');
  const want = JSON.stringify({ GENERATOR, TOTAL });
  if (existsSync(marker) && (await readFile(marker, 'utf8')) === want) return;
  await rm(DIR, { recursive: true, force: true });
  const store = await LogStore.open(DIR);
  const started = performance.now();
  for (let i = 0; i < TOTAL; i++) {
    store.append(LOG, record(i));
    if (i % 2_000 === 1_999) await yieldToIo();
    if (i % 200_000 === 199_999) await store.flush();
    if (i % 1_000_000 === 999_999)
      process.stderr.write(
        `building: ${i + 1} records, ${Math.round(((i + 1) / (performance.now() - started)) * 1000)}/s\n`,
      );
  }
  await store.close();
  await writeFile(marker, want);
}

async function time<T>(work: () => Promise<T>, runs = 5): Promise<{ ms: number; value: T }> {
  let best = Number.POSITIVE_INFINITY;
  let value: T | undefined;
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    value = await work();
    best = Math.min(best, performance.now() - start);
  }
  return { ms: best, value: value as T };
}

async function writeRates(): Promise<{ ours: number; raw: number }> {
  const n = Math.min(TOTAL, 1_000_000);
  const dir = await mkdtemp(join(tmpdir(), 'rampart-bench-write-'));
  const store = await LogStore.open(dir);
  // A stream of 100,000 requests a second: each record stamped with its arrival time.
  const records = Array.from({ length: n }, (_, i) => ({ ...record(i), _timestamp: BASE + Math.floor(i / 100) }));
  let start = performance.now();
  for (let i = 0; i < n; i++) {
    store.append(LOG, records[i]!);
    // As a server does between requests: the event loop turns, so writes go on while appends arrive.
    if (i % 2_000 === 1_999) await yieldToIo();
  }
  await store.flush();
  const ours = n / ((performance.now() - start) / 1000);
  await store.close();
  await rm(dir, { recursive: true, force: true });

  const rawDir = await mkdtemp(join(tmpdir(), 'rampart-bench-write-raw-'));
  const db = new ClassicLevel<Buffer, string>(rawDir, { keyEncoding: 'buffer', valueEncoding: 'utf8' });
  await db.open();
  start = performance.now();
  for (let i = 0; i < n; i += 1000) {
    const batch = [];
    for (let j = i; j < i + 1000; j++) {
      const r = records[j]!;
      batch.push({ type: 'put' as const, key: recordKey(LOG, r._timestamp, j), value: JSON.stringify(r) });
    }
    await db.batch(batch);
  }
  const raw = n / ((performance.now() - start) / 1000);
  await db.close();
  await rm(rawDir, { recursive: true, force: true });
  return { ours, raw };
}

await build();
const store = await LogStore.open(DIR);
const search = new SearchService({ store, clock: new ManualClock(BASE + SPAN) });
const day = { from: BASE + 2 * DAY, to: BASE + 3 * DAY };
// A range holding 1,000,000 records (or the whole store when it is smaller).
const million = { from: BASE + SPAN - Math.floor((Math.min(TOTAL, 1_000_000) / TOTAL) * SPAN), to: BASE + SPAN };
const ip = record(Math.floor(TOTAL * 0.9)).src_ip as string;

const firstPage = await time(() => search.search({ log: LOG, range: day, query: `src_ip:${ip}`, limit: 50 }));
const histogram = await time(() => search.histogram({ log: LOG, range: day }));
const unindexed = await time(
  () => search.search({ log: LOG, range: million, query: 'user_agent:*nomatch-in-any-record*', limit: 50 }),
  2,
);

await store.close();

// The same reads as a plain classic-level range scan over the same data: every record parsed and
// tested, newest first (no index, no roll-ups).
const db = new ClassicLevel<Buffer, string>(join(DIR, 'logs'), { keyEncoding: 'buffer', valueEncoding: 'utf8' });
await db.open();
async function rawScan(
  range: { from: number; to: number },
  test: (r: Record<string, unknown>) => boolean,
  stopAfter = Number.POSITIVE_INFINITY,
  each?: (r: Record<string, unknown>) => void,
): Promise<number> {
  let found = 0;
  const iterator = db.iterator({ gte: recordKey(LOG, range.from, 0), lt: recordKey(LOG, range.to, 0), reverse: true });
  try {
    for (;;) {
      const entries = await iterator.nextv(256);
      if (entries.length === 0) return found;
      for (const [, value] of entries) {
        const rows = decodeBlock(value);
        for (let row = rows.lines.length - 1; row >= 0; row--) {
          const r = rows.record(row)!;
          if (!test(r)) continue;
          each?.(r);
          if (++found >= stopAfter) return found;
        }
      }
    }
  } finally {
    await iterator.close();
  }
}
const rawFirst = await time(() => rawScan(day, (r) => r.src_ip === ip, 50), 2);
const rawHistogram = await time(() => {
  const buckets = new Map<number, number>();
  return rawScan(
    day,
    () => true,
    Number.POSITIVE_INFINITY,
    (r) => {
      const b = Math.floor((r._timestamp as number) / 600_000);
      buckets.set(b, (buckets.get(b) ?? 0) + 1);
    },
  );
}, 1);
const rawUnindexed = await time(
  () => rawScan(million, (r) => String(r.user_agent).toLowerCase().includes('nomatch-in-any-record')),
  1,
);
await db.close();
const writes = await writeRates();

const ms = (n: number): string => n.toFixed(1);
console.log(`search_records_in_store: ${TOTAL} records`);
console.log(`search_first_page_ms: ${ms(firstPage.ms)} ms`);
console.log(`search_first_page_records: ${firstPage.value.records.length} records`);
console.log(`raw_first_page_ms: ${ms(rawFirst.ms)} ms`);
console.log(`search_first_page_speedup: ${(rawFirst.ms / firstPage.ms).toFixed(1)} x`);
console.log(`search_histogram_24h_ms: ${ms(histogram.ms)} ms`);
console.log(`search_histogram_24h_total: ${histogram.value.total} records`);
console.log(`raw_histogram_24h_ms: ${ms(rawHistogram.ms)} ms`);
console.log(`search_histogram_speedup: ${(rawHistogram.ms / histogram.ms).toFixed(1)} x`);
console.log(`search_unindexed_1m_ms: ${ms(unindexed.ms)} ms`);
console.log(`search_unindexed_1m_examined: ${unindexed.value.examined} records`);
console.log(`raw_unindexed_1m_ms: ${ms(rawUnindexed.ms)} ms`);
console.log(`search_unindexed_speedup: ${(rawUnindexed.ms / unindexed.ms).toFixed(1)} x`);
console.log(`store_write_records_per_s: ${Math.round(writes.ours)} records/s`);
console.log(`raw_write_records_per_s: ${Math.round(writes.raw)} records/s`);
console.log(`store_write_vs_raw_ratio: ${(writes.ours / writes.raw).toFixed(2)}`);
