/**
 * The Security Overview (issue 16): every widget's data for one page load, server side, over a store
 * of 10,000,000 access records spread over 30 days (four sites), next to a full scan of the same
 * range that counts the same things from the records:
 *
 *   overview_all_widgets_ms_30d_first_load   the first page load after the store is opened
 *   overview_all_widgets_ms_30d   summary (with the previous period), distribution, trend and the six
 *                                 rankings for all sites over 30 days, the range's ends mid-minute
 *                                 (the fastest of 5 page loads after the first)
 *   overview_all_widgets_ms_24h   the same over the last 24 hours
 *   overview_full_scan_ms_24h     reading and decoding every record of those 24 hours (the reference:
 *                                 what the widgets would cost without roll-ups)
 *   overview_full_scan_ms_30d     the same over 30 days (measured once)
 *
 * The store is built once in RAMPART_BENCH_OVERVIEW_DIR (default <tmp>/rampart-bench-overview-<n>)
 * and reused while its marker matches; RAMPART_BENCH_OVERVIEW_RECORDS changes the size.
 */
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogStore } from '#engine/log-store';
import { OverviewService } from '#engine/overview';
import { line } from './support.ts';

const TOTAL = Number(process.env.RAMPART_BENCH_OVERVIEW_RECORDS ?? 10_000_000);
const DIR = process.env.RAMPART_BENCH_OVERVIEW_DIR ?? join(tmpdir(), `rampart-bench-overview-${TOTAL}`);
const GENERATOR = 'v2';
const DAY = 86_400_000;
const SPAN = 30 * DAY;
const BASE = Date.UTC(2026, 0, 1);
const SITES = ['s0', 's1', 's2', 's3'];
const IPS = 50_000;

function record(i: number): Record<string, unknown> & { _timestamp: number } {
  const ip = (i * 7919) % IPS;
  const site = SITES[i % 4]!;
  const attack = i % 53 === 0;
  return {
    _timestamp: BASE + Math.floor((i / TOTAL) * SPAN),
    site_id: site,
    hostname: `${site}.example.com`,
    src_ip: `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`,
    request: `${i % 5 ? 'GET' : 'POST'} /products/${i % 997}?page=${i % 13} HTTP/1.1`,
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    referrer: i % 4 ? `https://${site}.example.com/` : '',
    guard_status: attack
      ? 'OWASP'
      : i % 211 === 0
        ? 'BLOCKLIST'
        : i % 97 === 0
          ? 'BOT'
          : i % 31 === 0
            ? 'TOKEN_MISS'
            : 'PASS',
    list_result: i % 211 === 0 ? 'block' : '',
    status: attack ? 403 : 200,
    fingerprint: `fp${(i * 31) % 50_000}`,
    waf_triggered_categories: attack ? 'sqli' : '',
    ua_classification: i % 97 === 0 ? 'script' : 'browser',
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
    const r = record(i);
    store.append(`access:${r.site_id as string}`, r);
    // One probe report and download for every 20 requests.
    if (i % 20 === 0) {
      store.append(`detection:${r.site_id as string}`, {
        _timestamp: r._timestamp,
        site_id: r.site_id,
        src_ip: r.src_ip,
        referrer: `https://${r.site_id as string}.example.com/p/${i % 50}`,
        detection_result: i % 7 === 0 ? 'bot' : 'human',
        client_bot_type: i % 7 === 0 ? 'script_tool' : '',
      });
      store.append(`probe:${r.site_id as string}`, { _timestamp: r._timestamp, site_id: r.site_id, src_ip: r.src_ip });
    }
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

await build();
const store = await LogStore.open(DIR);
const overview = new OverviewService({
  store,
  sites: () => SITES.map((id) => ({ id, name: id, domain: `${id}.example.com`, runMode: 'block' as const })),
  connected: () => true,
  enabledBasicRules: () => 0,
  edition: 'B',
});

async function allWidgets(from: number, to: number): Promise<number> {
  const range = { from, to };
  const results = await Promise.all([
    overview.summary(range),
    overview.summary({ from: from - (to - from), to: from }),
    overview.distribution(range),
    overview.trend(range),
    ...(['path', 'referrer_path', 'src_ip', 'hostname', 'attack_src_ip', 'attack_hostname'] as const).map((f) =>
      overview.ranking(range, f, 10),
    ),
  ]);
  return results.length;
}

/** The fastest of `runs` runs. */
async function best(work: () => Promise<unknown>, runs = 5): Promise<number> {
  let fastest = Number.POSITIVE_INFINITY;
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    await work();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

/** The reference: every record of the range read and decoded, its verdict and address counted. */
async function fullScan(from: number, to: number): Promise<number> {
  let n = 0;
  const verdicts = new Map<string, number>();
  const ips = new Set<string>();
  for (const site of SITES) {
    for await (const block of store.blocks(`access:${site}`, { from, to, oldestFirst: true })) {
      for (let row = 0; row < block.lines.length; row++) {
        const r = block.record(row);
        if (r === undefined) continue;
        n++;
        const g = String(r.guard_status);
        verdicts.set(g, (verdicts.get(g) ?? 0) + 1);
        ips.add(String(r.src_ip));
      }
    }
  }
  return n;
}

const end = BASE + SPAN;
// Ends mid-minute, as "the last 30 days" asked at an arbitrary moment is.
const to = end - 17_345;
// The first page load after opening the store (code not yet optimised, LevelDB's blocks not cached).
const first = performance.now();
await allWidgets(to - SPAN + 60_000, to);
line('overview_all_widgets_ms_30d_first_load', performance.now() - first, 'ms', 1);
line('overview_all_widgets_ms_30d', await best(() => allWidgets(to - SPAN + 60_000, to)), 'ms', 1);
line('overview_all_widgets_ms_24h', await best(() => allWidgets(to - DAY, to)), 'ms', 1);
line('overview_full_scan_ms_24h', await best(() => fullScan(to - DAY, to), 1), 'ms', 1);
line('overview_full_scan_ms_30d', await best(() => fullScan(to - SPAN + 60_000, to), 1), 'ms', 1);
await store.close();
