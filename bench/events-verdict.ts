/**
 * The verdict's p99 with 100,000 active bans next to the same figure with none (issue 15), for
 * bench/events.bench.ts: the engine runs as its own process (the built bundle); its bans are
 * written to `<data>/bans.json` between two runs, so the second start loads them (and the threat
 * store entries they made) exactly as after a restart. Latency at a fixed rate with hey, as
 * bench/verdict.bench.ts measures it; the client IP is never one of the banned ones, so both runs
 * answer PASS after a full lookup.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { freePort } from '../tests/support/engine.ts';
import { ApiClient } from '../tests/support/api-client.ts';
import { p99AtRate, startEngineProcess } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const RATE = Number(process.env.BENCH_EVENTS_VERDICT_RATE ?? 2000);

/** The 99th percentile at RATE (hey), checking that the verdicts passed. */
function p99(url: string, headers: Record<string, string>): number {
  const { p99ms, report } = p99AtRate(url, headers, { rate: RATE, seconds: SECONDS });
  if (!/\[204\]/.test(report)) throw new Error(`the verdicts did not pass:\n${report}`);
  return p99ms;
}

export async function verdictP99WithBans(bans = 100_000): Promise<{ none: number; withBans: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'rampart-bench-events-verdict-'));
  if (!process.env.BENCH_NO_BUILD) execFileSync(process.execPath, ['scripts/build-engine.mjs'], { stdio: 'ignore' });
  const env = {
    RAMPART_DATA: join(dir, 'data'),
    RAMPART_CONSOLE_PORT: String(await freePort()),
    RAMPART_GATEWAY_HOST: '127.0.0.1',
    RAMPART_GATEWAY_PORT: String(await freePort()),
    RAMPART_GATEWAY_LOG_PORT: '0',
    RAMPART_INTAKE_PORT: '0',
    RAMPART_LOG_LEVEL: 'warn',
  };
  let engine = await startEngineProcess(env);
  try {
    const admin = new ApiClient(engine.consoleUrl);
    await admin.setup('bench@example.com', 'Kettle#Blue7');
    const global = await admin.request<{ accessKey: string }>('PUT', '/site-global', {
      tokenCookieName: 'rampart_token',
      identityCookieName: 'rampart_id',
      tokenExpirySeconds: 86_400,
      ipLock: false,
    });
    const site = await admin.request<{ id: string }>('POST', '/sites', {
      name: 'bench',
      domain: 'shop.example.com',
      runMode: 'block',
    });
    const siteId = site.body.id;
    for (const group of ['001', '002', '003', '004', '005', '006', '007', '008', '009', '010', '011', '012'])
      await admin.request('PUT', `/sites/${siteId}/basic-rules/groups/${group}`, { enabled: false, level: 'loose' });
    const config = JSON.parse(await readFile(join(dir, 'data', 'config.json'), 'utf8')) as {
      secrets: { tokenKey: string };
    };
    const tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);
    const token = tokens.issue({ siteId, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 86_400 });
    const headers = {
      'x-rampart-site': siteId,
      'x-rampart-key': global.body.accessKey,
      'x-original-uri': '/products/42?ref=home',
      'x-original-method': 'GET',
      'x-rampart-remote-addr': '198.51.100.20',
      host: 'shop.example.com',
      'user-agent':
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
      cookie: `rampart_token=${token}`,
    };
    const url = `http://${env.RAMPART_GATEWAY_HOST}:${env.RAMPART_GATEWAY_PORT}/_rampart/verdict`;
    p99(url, headers); // warm-up
    const none = p99(url, headers);
    await engine.stop();

    const now = Date.now();
    const until = now + 86_400_000;
    const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const snapshot = {
      version: 1,
      bans: Array.from({ length: bans }, (_, i) => ({
        id: `ban_bench_${i.toString(36)}`,
        siteId,
        object: i % 2 === 0 ? 'ip' : 'device',
        value: i % 2 === 0 ? ip(i) : `device-${i.toString(36)}`,
        createdAt: now,
        until,
        origin: { kind: 'manual', accountId: null, reason: 'bench' },
      })),
      threats: Array.from({ length: bans }, (_, i) => ({
        object: i % 2 === 0 ? 'ip' : 'device',
        value: i % 2 === 0 ? ip(i) : `device-${i.toString(36)}`,
        until,
        banId: `ban_bench_${i.toString(36)}`,
      })),
    };
    await writeFile(join(dir, 'data', 'bans.json'), JSON.stringify(snapshot));
    engine = await startEngineProcess(env);
    const loaded = new ApiClient(engine.consoleUrl);
    await loaded.signIn('bench@example.com', 'Kettle#Blue7');
    const count = await loaded.request<{ total: number }>('GET', '/bans?limit=1');
    if (count.body.total !== bans) throw new Error(`the engine loaded ${count.body.total} bans, not ${bans}`);
    p99(url, headers); // warm-up
    const withBans = p99(url, headers);
    return { none, withBans };
  } finally {
    await engine.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}
