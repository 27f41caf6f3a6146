/**
 * The verdict's p99 with 100,000 active bans next to the same figure with none (issue 15), for
 * bench/events.bench.ts. Two engine processes (the built bundle) run side by side on copies of one
 * data directory; the second copy also holds `<data>/bans.json` with the bans (and the threat-store
 * entries they made), which it loads at start exactly as after a restart. Latency at a fixed rate
 * with hey, as bench/verdict.bench.ts measures it, taken in turns (none, bans, none, bans, ...) so
 * that whatever else the machine does falls on both states alike; the caller takes the median of
 * each state's rounds. The client IP is never one of the banned ones, so both answer PASS after a
 * full lookup.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../tests/support/engine.ts';
import { ApiClient } from '../tests/support/api-client.ts';
import { p99AtRate, startEngineProcess, type StartedEngine } from './support.ts';
import { createVerdictSite, verdictHeaders } from './verdict-site.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const RATE = Number(process.env.BENCH_EVENTS_VERDICT_RATE ?? 2000);
/** Measurements of each state, taken in turns. */
const ROUNDS = Number(process.env.BENCH_EVENTS_VERDICT_ROUNDS ?? 3);

/** The 99th percentile at RATE (hey), checking that the verdicts passed. */
function p99(url: string, headers: Record<string, string>): number {
  const { p99ms, report } = p99AtRate(url, headers, { rate: RATE, seconds: SECONDS });
  if (!/\[204\]/.test(report)) throw new Error(`the verdicts did not pass:\n${report}`);
  return p99ms;
}

export async function verdictP99WithBans(
  bans = 100_000,
  rounds = ROUNDS,
): Promise<{ none: number[]; withBans: number[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'rampart-bench-events-verdict-'));
  if (!process.env.BENCH_NO_BUILD) execFileSync(process.execPath, ['scripts/build-engine.mjs'], { stdio: 'ignore' });
  const envOf = async (data: string) => ({
    RAMPART_DATA: join(dir, data),
    RAMPART_CONSOLE_PORT: String(await freePort()),
    RAMPART_GATEWAY_HOST: '127.0.0.1',
    RAMPART_GATEWAY_PORT: String(await freePort()),
    RAMPART_GATEWAY_LOG_PORT: '0',
    RAMPART_INTAKE_PORT: '0',
    RAMPART_LOG_LEVEL: 'warn',
  });
  const env = await envOf('none');
  const engines: StartedEngine[] = [];
  try {
    const setup = await startEngineProcess(env);
    engines.push(setup);
    const admin = new ApiClient(setup.consoleUrl);
    await admin.setup('bench@example.com', 'Kettle#Blue7');
    const site = await createVerdictSite(admin);
    const siteId = site.siteId;
    await setup.stop();
    engines.pop();
    const headers = await verdictHeaders(env.RAMPART_DATA, site);

    const banned = await envOf('bans');
    await cp(env.RAMPART_DATA, banned.RAMPART_DATA, { recursive: true });
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
    await writeFile(join(banned.RAMPART_DATA, 'bans.json'), JSON.stringify(snapshot));

    const none = await startEngineProcess(env);
    engines.push(none);
    const withBans = await startEngineProcess(banned);
    engines.push(withBans);
    const loaded = new ApiClient(withBans.consoleUrl);
    await loaded.signIn('bench@example.com', 'Kettle#Blue7');
    const count = await loaded.request<{ total: number }>('GET', '/bans?limit=1');
    if (count.body.total !== bans) throw new Error(`the engine loaded ${count.body.total} bans, not ${bans}`);

    const urlOf = (e: typeof env) => `http://${e.RAMPART_GATEWAY_HOST}:${e.RAMPART_GATEWAY_PORT}/_rampart/verdict`;
    p99(urlOf(env), headers); // warm-up
    p99(urlOf(banned), headers);
    const result = { none: [] as number[], withBans: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      // Alternate which state goes first, so neither always follows the other.
      const order = round % 2 === 0 ? (['none', 'withBans'] as const) : (['withBans', 'none'] as const);
      for (const state of order) result[state].push(p99(urlOf(state === 'none' ? env : banned), headers));
    }
    return result;
  } finally {
    for (const engine of engines) await engine.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}
