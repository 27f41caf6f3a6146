// The supervisor against a real child process: tests/fixtures/fake-engine.mjs speaks the engine's
// parent protocol and is told by environment variables to crash, refuse its settings or ignore
// shutdown. Back-off delays are mostly scaled down instead of faked, so real timers and real exits
// are involved; the clock ("stayed up long enough") and the default 1 s, 2 s, 4 s delays are faked
// because waiting for them would be long.

import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_BACKOFF } from '../../../electron/backoff.ts';
import { forkWithChildProcess } from '../../../electron/engine-process.ts';
import {
  parseEngineMessage,
  Supervisor,
  type EngineProcess,
  type SupervisorOptions,
  type SupervisorState,
} from '../../../electron/supervisor.ts';

const FAKE_ENGINE = fileURLToPath(new URL('../../fixtures/fake-engine.mjs', import.meta.url));

/** Short delays so a crash loop runs in well under a second. */
const FAST_BACKOFF = { initialMs: 25, maxMs: 1_000, resetAfterMs: 60_000 };

interface Exit {
  readonly code: number | null;
  readonly signal: string | null;
}

interface Spawned {
  readonly process: EngineProcess;
  readonly exit: Promise<Exit>;
}

const supervisors: Supervisor[] = [];
const spawnedProcesses: EngineProcess[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(supervisors.splice(0).map((supervisor) => supervisor.stop()));
  for (const process of spawnedProcesses.splice(0)) process.kill();
});

function fakeEngine(env: Record<string, string> = {}): { spawn: () => EngineProcess; spawned: Spawned[] } {
  const spawned: Spawned[] = [];
  const spawn = (): EngineProcess => {
    const engine = forkWithChildProcess(FAKE_ENGINE, { ...process.env, ...env }, { stdio: 'inherit' });
    const exit = new Promise<Exit>((resolve) => engine.onExit((code, signal) => resolve({ code, signal })));
    spawned.push({ process: engine, exit });
    spawnedProcesses.push(engine);
    return engine;
  };
  return { spawn, spawned };
}

function supervise(options: SupervisorOptions): { supervisor: Supervisor; states: SupervisorState[] } {
  const supervisor = new Supervisor({ backoff: FAST_BACKOFF, ...options });
  const states: SupervisorState[] = [];
  supervisor.onState((state) => states.push(state));
  supervisors.push(supervisor);
  return { supervisor, states };
}

function waitForState<K extends SupervisorState['kind']>(
  supervisor: Supervisor,
  kind: K,
  count = 1,
): Promise<Extract<SupervisorState, { kind: K }>> {
  return new Promise((resolve) => {
    let seen = 0;
    const unsubscribe = supervisor.onState((state) => {
      if (state.kind !== kind || ++seen < count) return;
      unsubscribe();
      resolve(state as Extract<SupervisorState, { kind: K }>);
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('Supervisor', () => {
  it('reports ready with the console URL and version the engine sent', async () => {
    const engine = fakeEngine();
    const { supervisor, states } = supervise({ spawn: engine.spawn });

    const ready = waitForState(supervisor, 'ready');
    supervisor.start();

    expect(await ready).toEqual({ kind: 'ready', consoleUrl: 'http://127.0.0.1:9080/', version: '0.0.0-fake' });
    expect(states[0]).toEqual({ kind: 'starting', attempt: 0 });
  });

  it('restarts a crashed engine after growing delays', async () => {
    const engine = fakeEngine({ FAKE_ENGINE_CRASH_AFTER_MS: '20' });
    const { supervisor, states } = supervise({ spawn: engine.spawn });

    const thirdRestart = waitForState(supervisor, 'restarting', 3);
    supervisor.start();
    await thirdRestart;

    const restarts = states.filter((state) => state.kind === 'restarting');
    expect(restarts.map(({ inMs, attempt }) => ({ inMs, attempt }))).toEqual([
      { inMs: 25, attempt: 1 },
      { inMs: 50, attempt: 2 },
      { inMs: 100, attempt: 3 },
    ]);
    expect(restarts[0]?.reason).toBe('The engine exited unexpectedly with code 1.');
    expect(new Set(engine.spawned.map(({ process }) => process.pid)).size).toBe(3);
  });

  it('waits 1 s, 2 s, then 4 s between restarts with the default policy', async () => {
    // Fake timers stand in for the seconds of waiting; the engine and its crashes stay real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const engine = fakeEngine({ FAKE_ENGINE_CRASH_AFTER_MS: '10' });
    const { supervisor } = supervise({ spawn: engine.spawn, backoff: DEFAULT_BACKOFF });

    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const restarting = waitForState(supervisor, 'restarting');
      if (attempt === 1) supervisor.start();
      const { inMs } = await restarting;
      delays.push(inMs);
      vi.advanceTimersByTime(inMs);
    }

    expect(delays).toEqual([1_000, 2_000, 4_000]);
    expect(engine.spawned).toHaveLength(4);
  });

  it('starts the back-off over once the engine stayed up long enough', async () => {
    const engine = fakeEngine({ FAKE_ENGINE_CRASH_AFTER_MS: '20' });
    let clock = 0;
    const { supervisor, states } = supervise({
      spawn: engine.spawn,
      now: () => clock,
      backoff: { ...FAST_BACKOFF, resetAfterMs: 10_000 },
    });
    let readyCount = 0;
    // The third run "stays up" for the reset period before it crashes.
    supervisor.onState((state) => {
      if (state.kind === 'ready' && ++readyCount === 3) clock += 10_000;
    });

    const thirdRestart = waitForState(supervisor, 'restarting', 3);
    supervisor.start();
    await thirdRestart;

    const restarts = states.filter((state) => state.kind === 'restarting');
    expect(restarts.map(({ inMs, attempt }) => ({ inMs, attempt }))).toEqual([
      { inMs: 25, attempt: 1 },
      { inMs: 50, attempt: 2 },
      { inMs: 25, attempt: 1 },
    ]);
  });

  it('stops the engine with a shutdown message, which it obeys by exiting 0', async () => {
    const engine = fakeEngine();
    const { supervisor, states } = supervise({ spawn: engine.spawn });
    const ready = waitForState(supervisor, 'ready');
    supervisor.start();
    await ready;

    await supervisor.stop();

    const [run] = engine.spawned;
    expect(await run?.exit).toEqual({ code: 0, signal: null });
    expect(isAlive(run?.process.pid)).toBe(false);
    expect(supervisor.state).toEqual({ kind: 'stopped' });
    expect(states.slice(-2)).toEqual([{ kind: 'stopping' }, { kind: 'stopped' }]);
  });

  it('kills an engine that ignores the shutdown message once the shutdown timeout passed', async () => {
    const engine = fakeEngine({ FAKE_ENGINE_IGNORE_SHUTDOWN: '1' });
    const { supervisor } = supervise({ spawn: engine.spawn, shutdownTimeoutMs: 150 });
    const ready = waitForState(supervisor, 'ready');
    supervisor.start();
    await ready;

    await supervisor.stop();

    const [run] = engine.spawned;
    expect(await run?.exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(isAlive(run?.process.pid)).toBe(false);
    expect(supervisor.state).toEqual({ kind: 'stopped' });
  });

  it('does not restart an engine that crashes after stop was asked', async () => {
    // The engine ignores the shutdown message and crashes on its own while the supervisor waits.
    const engine = fakeEngine({ FAKE_ENGINE_IGNORE_SHUTDOWN: '1', FAKE_ENGINE_CRASH_AFTER_MS: '100' });
    const { supervisor, states } = supervise({ spawn: engine.spawn, shutdownTimeoutMs: 5_000 });
    const ready = waitForState(supervisor, 'ready');
    supervisor.start();
    await ready;

    await supervisor.stop();
    expect(await engine.spawned[0]?.exit).toEqual({ code: 1, signal: null });
    await sleep(FAST_BACKOFF.initialMs * 8);

    expect(engine.spawned).toHaveLength(1);
    expect(supervisor.state).toEqual({ kind: 'stopped' });
    expect(states.some((state) => state.kind === 'restarting')).toBe(false);
  });

  it('cancels a restart that was waiting for its delay when stopped', async () => {
    const engine = fakeEngine({ FAKE_ENGINE_CRASH_AFTER_MS: '10' });
    const { supervisor } = supervise({ spawn: engine.spawn, backoff: { ...FAST_BACKOFF, initialMs: 200 } });
    const restarting = waitForState(supervisor, 'restarting');
    supervisor.start();
    await restarting;

    await supervisor.stop();
    await sleep(400);

    expect(engine.spawned).toHaveLength(1);
    expect(supervisor.state).toEqual({ kind: 'stopped' });
  });

  it('reports fatal with the engine message on exit code 78 and does not restart', async () => {
    const message = 'Port 9080 is not a valid console port: choose one between 1024 and 65535.';
    const engine = fakeEngine({ FAKE_ENGINE_MODE: 'refuse', FAKE_ENGINE_MESSAGE: message });
    const { supervisor, states } = supervise({ spawn: engine.spawn });

    const fatal = waitForState(supervisor, 'fatal');
    supervisor.start();

    expect(await fatal).toEqual({ kind: 'fatal', reason: message });
    expect(await engine.spawned[0]?.exit).toEqual({ code: 78, signal: null });
    await sleep(FAST_BACKOFF.initialMs * 8);
    expect(engine.spawned).toHaveLength(1);
    expect(states.map((state) => state.kind)).toEqual(['starting', 'fatal']);
  });

  it('kills and restarts an engine that never says ready', async () => {
    const engine = fakeEngine({ FAKE_ENGINE_MODE: 'silent' });
    const { supervisor } = supervise({
      spawn: engine.spawn,
      readyTimeoutMs: 150,
      // Long enough that the restart itself does not happen during the test.
      backoff: { ...FAST_BACKOFF, initialMs: 10_000, maxMs: 10_000 },
    });

    const restarting = waitForState(supervisor, 'restarting');
    supervisor.start();

    expect(await restarting).toEqual({
      kind: 'restarting',
      inMs: 10_000,
      attempt: 1,
      reason: 'The engine did not report ready within 0.2 s.',
    });
    expect(await engine.spawned[0]?.exit).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('restarts an engine that could not be spawned at all', async () => {
    let calls = 0;
    const { supervisor } = supervise({
      spawn: () => {
        calls += 1;
        throw new Error('entry not found');
      },
    });

    const secondRestart = waitForState(supervisor, 'restarting', 2);
    supervisor.start();

    expect(await secondRestart).toEqual({
      kind: 'restarting',
      inMs: 50,
      attempt: 2,
      reason: 'The engine could not be started: entry not found',
    });
    expect(calls).toBe(2);
  });
});

describe('parseEngineMessage', () => {
  it('accepts the ready and fatal messages of the engine protocol', () => {
    expect(parseEngineMessage({ type: 'ready', consoleUrl: 'http://127.0.0.1:9080/', version: '1.2.3' })).toEqual({
      type: 'ready',
      consoleUrl: 'http://127.0.0.1:9080/',
      version: '1.2.3',
    });
    expect(parseEngineMessage({ type: 'fatal', message: 'bad settings' })).toEqual({
      type: 'fatal',
      message: 'bad settings',
    });
  });

  it('ignores anything else', () => {
    expect(parseEngineMessage('ready')).toBeUndefined();
    expect(parseEngineMessage({ type: 'ready' })).toBeUndefined();
    expect(parseEngineMessage({ type: 'progress', percent: 50 })).toBeUndefined();
  });
});
