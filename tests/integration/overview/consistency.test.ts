/**
 * Issue 16's consistency test: after a generated mix of traffic through the real verdict path,
 * every overview counter and ranking equals what the log search returns for the same site and range,
 * with ranges that start and end mid-minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenService } from '#engine/probe';
import { ManualClock } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { rawRequest } from '../../support/http.ts';
import { readConfigDocument } from '#engine/config-store';

const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);
const clock = new ManualClock(T0);
let engine: TestEngine;
let admin: ApiClient;
let key: string;
let tokens: TokenService;
const sites: string[] = [];
let sent = 0;

function next(seed: { x: number }): number {
  seed.x = (seed.x * 1_103_515_245 + 12_345) >>> 0;
  return seed.x / 2 ** 32;
}

async function verdict(site: string, uri: string, ip: string, kind: 'valid' | 'none' | 'bot'): Promise<void> {
  const cookie =
    kind === 'valid'
      ? `rampart_token=${tokens.issue({ siteId: site, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 3600, ip, bot: false })}`
      : '';
  await rawRequest(`${engine.gatewayUrl}/_rampart/verdict`, {
    headers: {
      'x-rampart-site': site,
      'x-rampart-key': key,
      'x-original-uri': uri,
      'x-original-method': 'GET',
      host: site === sites[0] ? 'shop.example.com' : 'blog.example.com',
      'x-rampart-remote-addr': ip,
      'x-request-id': `req-${sent}`,
      'user-agent': kind === 'bot' ? 'sqlmap/1.7' : 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36',
      ...(cookie ? { cookie } : {}),
    },
  });
  sent++;
}

interface Found {
  record: Record<string, unknown>;
}

/** Every record the log search returns for a log, range and query (all pages). */
async function search(log: string, from: number, to: number, query = ''): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let cursor: string | null | undefined;
  do {
    const res = await admin.request<{ records: Found[]; nextCursor: string | null }>('POST', '/logs/search', {
      log,
      range: { from, to },
      query,
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.records.map((r) => r.record));
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

const pathOf = (request: unknown) => String(request).split(' ')[1]!.split('?')[0]!;
const top = (values: string[]) => {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1))
    .slice(0, 10);
};

beforeAll(async () => {
  engine = await startTestEngine(
    { RAMPART_EDITION: 'B', RAMPART_GATEWAY_LOG_PORT: '0' },
    { clock, ruleSetLocations: [] },
  );
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  for (const [name, domain] of [
    ['shop', 'shop.example.com'],
    ['blog', 'blog.example.com'],
  ]) {
    const created = await admin.request<{ id: string }>('POST', '/sites', {
      name,
      domain,
      runMode: 'block',
      blockList: { pathEnabled: true, paths: ['^/admin'] },
      passList: { pathEnabled: true, paths: ['^/health'] },
    });
    expect(created.status, created.text).toBe(201);
    sites.push(created.body.id);
    await admin.request('PUT', `/sites/${created.body.id}/anti-bot`, {
      enabled: true,
      scanner: true,
      scriptTool: true,
      otherCrawler: true,
    });
  }
  key = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
  const config = (await readConfigDocument(engine.dataDir)) as unknown as {
    secrets: { tokenKey: string };
  };
  tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), clock);

  // Eight minutes of traffic at uneven seconds, both sites.
  const seed = { x: 42 };
  for (let t = T0; t < T0 + 8 * 60_000; t += 700 + Math.floor(next(seed) * 3000)) {
    clock.set(t);
    const site = sites[next(seed) < 0.6 ? 0 : 1]!;
    const ip = `203.0.113.${Math.floor(next(seed) * 12)}`;
    const roll = next(seed);
    const path = ['/', '/cart', '/products/1', '/admin/users', '/health'][Math.floor(next(seed) * 5)]!;
    await verdict(site, `${path}?q=${t}`, ip, roll < 0.15 ? 'bot' : roll < 0.3 ? 'none' : 'valid');
    if (next(seed) < 0.1)
      await fetch(`${engine.gatewayUrl}/_rampart/probe.js?mode=reload`, {
        headers: { 'x-rampart-site': site, referer: 'https://shop.example.com/cart' },
      });
  }
  await engine.logStore.flush();
}, 120_000);
afterAll(() => engine?.dispose());

const RANGES: [number, number][] = [
  [T0, T0 + 8 * 60_000],
  [T0 + 17_250, T0 + 5 * 60_000 + 41_500],
  [T0 + 2 * 60_000 + 3_000, T0 + 2 * 60_000 + 48_000],
];

describe('the overview against the log search', () => {
  it('counters equal the searched records, per site and for all sites', async () => {
    for (const [from, to] of RANGES) {
      for (const siteId of [undefined, sites[0]!]) {
        const res = await admin.request<{ current: Record<string, number | boolean> }>(
          'GET',
          `/overview/summary?from=${from}&to=${to}${siteId ? `&siteId=${siteId}` : ''}`,
        );
        expect(res.status, res.text).toBe(200);
        const chosen = siteId ? [siteId] : sites;
        const access = (await Promise.all(chosen.map((s) => search(`access:${s}`, from, to)))).flat();
        const downloads = (await Promise.all(chosen.map((s) => search(`probe:${s}`, from, to)))).flat();
        expect(res.body.current).toMatchObject({
          requests: access.length,
          ips: new Set(access.map((r) => r.src_ip)).size,
          botAttacks: access.filter((r) => r.guard_status === 'BOT').length,
          abnormal: access.filter((r) => r.guard_status !== 'PASS' && r.guard_status !== 'IGNORE').length,
          probeDownloads: downloads.length,
          approximate: false,
        });
        expect(access.length).toBeGreaterThan(0);
      }
    }
  });

  it('rankings and distributions equal the searched records', async () => {
    for (const [from, to] of RANGES) {
      const access = (await Promise.all(sites.map((s) => search(`access:${s}`, from, to)))).flat();
      const ranking = async (field: string) =>
        (await admin.request<{ items: unknown[] }>('GET', `/overview/ranking?from=${from}&to=${to}&field=${field}`))
          .body.items;
      expect(await ranking('src_ip')).toEqual(top(access.map((r) => String(r.src_ip))));
      expect(await ranking('path')).toEqual(top(access.map((r) => pathOf(r.request))));
      expect(await ranking('hostname')).toEqual(top(access.map((r) => String(r.hostname))));
      const distribution = await admin.request<{
        verdicts: { value: string; count: number }[];
        lists: { pass: number; block: number };
        sites: { value: string; count: number }[];
      }>('GET', `/overview/distribution?from=${from}&to=${to}`);
      expect(distribution.body.verdicts).toEqual(
        top(access.map((r) => String(r.guard_status))).concat(), // at most 10 verdict kinds
      );
      expect(distribution.body.lists).toEqual({
        pass: access.filter((r) => r.list_result === 'pass').length,
        block: access.filter((r) => r.list_result === 'block').length,
      });
      expect(distribution.body.sites.reduce((n, s) => n + s.count, 0)).toBe(access.length);
    }
  });

  it('the trend buckets add up to the searched records', async () => {
    const [from, to] = RANGES[1]!;
    const trend = await admin.request<{ bucketMs: number; buckets: { at: number; total: number; abnormal: number }[] }>(
      'GET',
      `/overview/trend?from=${from}&to=${to}`,
    );
    expect(trend.body.bucketMs).toBe(60_000);
    const access = (await Promise.all(sites.map((s) => search(`access:${s}`, from, to)))).flat();
    for (const bucket of trend.body.buckets) {
      const inside = access.filter(
        (r) => (r._timestamp as number) >= bucket.at && (r._timestamp as number) < bucket.at + trend.body.bucketMs,
      );
      expect(bucket.total).toBe(inside.length);
    }
    expect(trend.body.buckets.reduce((n, b) => n + b.total, 0)).toBe(access.length);
  });

  it('refuses a range that ends before it starts, naming the field', async () => {
    const res = await admin.request<{ error: { field: string } }>('GET', `/overview/summary?from=${T0}&to=${T0 - 1}`);
    expect(res.status).toBe(400);
    expect(res.body.error.field).toContain('to');
  });
});
