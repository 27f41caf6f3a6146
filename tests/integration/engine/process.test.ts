import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineEnvironment } from '../../../scripts/engine-allocator.mjs';
import { freePort } from '../../support/engine.ts';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'rampart-process-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

function run(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'engine/main.ts', ...args], {
      env: {
        ...process.env,
        RAMPART_DATA: dataDir,
        RAMPART_LOG_LEVEL: 'silent',
        RAMPART_GATEWAY_HOST: '127.0.0.1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('the engine process', () => {
  it('stops at start-up with exit code 78 and a message naming a bad setting', async () => {
    const { code, stderr } = await run({ RAMPART_CONSOLE_PORT: 'ninety' });
    expect(code).toBe(78);
    expect(stderr).toContain('RAMPART_CONSOLE_PORT');
  });

  it('refuses a bad CLI flag the same way', async () => {
    const { code, stderr } = await run({}, ['--edition', 'Z']);
    expect(code).toBe(78);
    expect(stderr).toContain('RAMPART_EDITION');
  });

  it('refuses a non-loopback console address with TLS turned off', async () => {
    const { code, stderr } = await run({ RAMPART_CONSOLE_HOST: '0.0.0.0', RAMPART_CONSOLE_TLS: 'off' });
    expect(code).toBe(78);
    expect(stderr).toMatch(/requires TLS/);
  });

  /** Forks the engine with IPC, as the desktop supervisor does, and waits for its ready message. */
  async function forkReady(extra: NodeJS.ProcessEnv = process.env): Promise<{
    child: ChildProcess;
    ready: { type: string; consoleUrl: string };
    port: number;
  }> {
    const port = await freePort();
    const child = fork('engine/main.ts', [], {
      execArgv: ['--import', 'tsx'],
      env: {
        ...extra,
        RAMPART_DATA: dataDir,
        RAMPART_CONSOLE_PORT: String(port),
        RAMPART_GATEWAY_HOST: '127.0.0.1',
        RAMPART_GATEWAY_PORT: String(await freePort()),
        RAMPART_LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const ready = await new Promise<{ type: string; consoleUrl: string }>((resolve) =>
      child.once('message', (m) => resolve(m as { type: string; consoleUrl: string })),
    );
    return { child, ready, port };
  }

  it('tells its parent it is ready, serves, and shuts down on request', async () => {
    const { child, ready, port } = await forkReady();
    expect(ready).toMatchObject({ type: 'ready', consoleUrl: `http://127.0.0.1:${port}` });
    const health = await fetch(`${ready.consoleUrl}/api/v1/health`);
    expect(health.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.send({ type: 'shutdown' });
    expect(await exited).toBe(0);
  });

  it('runs on jemalloc when started as the launchers start it, and says so in its metrics', async (ctx) => {
    const launched = engineEnvironment({ ...process.env, RAMPART_METRICS_TOKEN: 'allocator-check-token-0123456789' });
    if (launched.allocator !== 'jemalloc')
      ctx.skip('jemalloc is not installed (Debian package libjemalloc2; npm run setup:system installs it)');
    const { child, ready } = await forkReady(launched.env);
    try {
      const metrics = await fetch(`${ready.consoleUrl}/metrics`, {
        headers: { authorization: 'Bearer allocator-check-token-0123456789' },
      });
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/^rampart_allocator_info\{allocator="jemalloc"\} 1$/m);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.send({ type: 'shutdown' });
      expect(await exited).toBe(0);
    }
  });

  it('shuts down gracefully on SIGTERM', async () => {
    const { child } = await forkReady();
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
