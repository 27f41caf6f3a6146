import { existsSync, readFileSync } from 'node:fs';
import { execFile, execFileSync, fork, type ChildProcess } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import engineNodeFlags from '../scripts/engine-node-flags.json' with { type: 'json' };
import { engineEnvironment } from '../scripts/engine-allocator.mjs';
import type { ApiClient } from '../tests/support/api-client.ts';

const TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used so far, from /proc. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** The pids of a process's children (nginx workers of a master). */
export function childPids(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

export interface StartedEngine {
  child: ChildProcess;
  consoleUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts the built engine (dist/engine/main.js) as its own process and waits for its ready message.
 * `stdout`: a file descriptor for its log (a soak keeps it), else BENCH_ENGINE_STDOUT shows it.
 * `onSpawn` hears of the process before it is ready (so a caller that fails meanwhile can stop it).
 */
export async function startEngineProcess(
  env: Record<string, string>,
  options: { stdout?: number; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<StartedEngine> {
  const execArgv = [
    ...engineNodeFlags.flags,
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
    ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []),
  ];
  const child = fork('dist/engine/main.js', [], {
    // With the allocator the appliance runs with (scripts/engine-allocator.mjs).
    env: engineEnvironment({ ...process.env, ...env }).env,
    execArgv,
    stdio: ['ignore', options.stdout ?? (process.env.BENCH_ENGINE_STDOUT ? 'inherit' : 'ignore'), 'inherit', 'ipc'],
  });
  options.onSpawn?.(child);
  const ready = await new Promise<{ consoleUrl: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { consoleUrl: string }));
    child.once('exit', (code) => reject(new Error(`engine exited with ${code}`)));
  });
  return {
    child,
    consoleUrl: ready.consoleUrl,
    // An engine that already died (a crash under load) is stopped: the bench goes on to stop the
    // reference servers it started instead of failing on the closed channel.
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null || !child.connected) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.send({ type: 'shutdown' });
      }),
  };
}

/** The median of `values` (the mean of the middle two for an even count); NaN when there are none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function line(name: string, value: number, unit: string, digits = 0): void {
  console.log(`${name}: ${value.toFixed(digits)} ${unit}`);
}

/** The options of a fixed-rate hey run. */
export interface HeyRun {
  rate: number;
  seconds: number;
  connections?: number;
}

/**
 * Latency at a fixed rate, measured with hey (Go; fetched from the Go module proxy on first use): an
 * open-loop generator with few keep-alive connections, as nginx's pool to Rampart behaves. Returns
 * the 99th percentile in ms and hey's report.
 */
export function p99AtRate(
  url: string,
  headers: Record<string, string>,
  options: HeyRun,
): { p99ms: number; report: string } {
  const report = execFileSync(heyBinary(), heyArgs(url, headers, options), { encoding: 'utf8' });
  return { p99ms: heyP99(report), report };
}

/**
 * The same without blocking this process (a soak drives other load beside it). hey's percentiles
 * are of the requests that were answered (NaN when none was); the failed ones are in its error
 * distribution.
 */
export function p99AtRateAsync(
  url: string,
  headers: Record<string, string>,
  options: HeyRun,
): Promise<{ p99ms: number; report: string }> {
  const bin = heyBinary();
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      heyArgs(url, headers, options),
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
      (error, report) => {
        if (error) reject(new Error(`hey failed: ${error.message}`));
        else {
          // No answer at all (the engine was down the whole run): no percentile, NaN.
          resolve({ p99ms: /Status code distribution:\s*\n\s*\[/.test(report) ? heyP99(report) : Number.NaN, report });
        }
      },
    );
  });
}

function heyArgs(url: string, headers: Record<string, string>, options: HeyRun): string[] {
  const connections = options.connections ?? 8;
  const args = [
    '-z',
    `${options.seconds}s`,
    '-c',
    String(connections),
    '-q',
    String(Math.max(1, Math.round(options.rate / connections))),
  ];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}:${value}`);
  return [...args, url];
}

function heyP99(report: string): number {
  const match = /99%+ in ([\d.]+) secs/.exec(report);
  if (!match) throw new Error(`hey printed no 99th percentile:\n${report}`);
  return Number(match[1]) * 1000;
}

function heyBinary(): string {
  const bin = join(process.env.GOPATH ?? join(homedir(), 'go'), 'bin', 'hey');
  if (!existsSync(bin)) execFileSync('go', ['install', 'github.com/rakyll/hey@latest'], { stdio: 'ignore' });
  return bin;
}

/** Polls the proxy's status until a CNAME site's port listens (the proxy follows site changes every 250 ms). */
export async function proxyListening(admin: ApiClient, port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const status = await admin.request<{ listeners?: { port: number; listening: boolean; error: string | null }[] }>(
      'GET',
      '/proxy/status',
    );
    const listener = status.body.listeners?.find((l) => l.port === port);
    if (listener?.listening) return;
    if (listener?.error) throw new Error(`the proxy cannot listen on ${port}: ${listener.error}`);
    if (Date.now() > deadline) throw new Error(`the proxy does not listen on ${port}`);
    await sleep(50);
  }
}
