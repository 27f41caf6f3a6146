// Keeps the engine process alive for the desktop shell. It starts the engine through an injected
// spawn function, waits for its ready message, restarts it with exponential back-off when it dies,
// and stops it on request. Plain Node (no electron import) so it is unit-tested against a real child
// process; the clock and timers are injected so back-off schedules can be tested without waiting.
//
// Invariants:
// - at most one engine process runs at a time: a restart is only scheduled after the exit;
// - after stop() nothing is ever restarted automatically, whatever the process does afterwards;
// - exit code 78 (EX_CONFIG) means the engine refused its settings: restarting cannot help, so the
//   supervisor reports `fatal` with the engine's own message instead of looping.

import { z } from 'zod';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';

/** sysexits.h EX_CONFIG: the engine's way of saying "fix the settings, then start me again". */
export const EXIT_SETTINGS_REFUSED = 78;

/** Messages the engine sends to its parent (the protocol is owned by the engine). */
export type EngineMessage =
  | {
      readonly type: 'ready';
      readonly consoleUrl: string;
      readonly version: string;
      /** The console over HTTPS, and the SHA-256 fingerprint of the appliance's own CA that signs it. */
      readonly secureUrl?: string | undefined;
      readonly caFingerprint256?: string | null | undefined;
    }
  | { readonly type: 'fatal'; readonly message: string };

/** Messages the parent sends to the engine. */
export type EngineCommand = { readonly type: 'shutdown' };

/** The little the supervisor needs from a child process; adapters exist for child_process and utilityProcess. */
export interface EngineProcess {
  readonly pid: number | undefined;
  onMessage(listener: (message: unknown) => void): void;
  /** Called once; `signal` is null when the process exited by itself (utilityProcess never reports one). */
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  /** Must not throw when the process is already gone. */
  send(message: EngineCommand): void;
  /** Forceful: the process gets no chance to clean up. Must not throw when it is already gone. */
  kill(): void;
}

export type SpawnEngine = () => EngineProcess;

export type SupervisorState =
  | { readonly kind: 'starting'; readonly attempt: number }
  | {
      readonly kind: 'ready';
      readonly consoleUrl: string;
      readonly version: string;
      readonly secureUrl?: string | undefined;
      readonly caFingerprint256?: string | null | undefined;
    }
  | { readonly kind: 'restarting'; readonly inMs: number; readonly attempt: number; readonly reason: string }
  | { readonly kind: 'stopping' }
  | { readonly kind: 'stopped' }
  | { readonly kind: 'fatal'; readonly reason: string };

export type StateListener = (state: SupervisorState) => void;

/** Runs `callback` after `ms` and returns a function that cancels it. */
export type Schedule = (callback: () => void, ms: number) => () => void;

export interface SupervisorOptions {
  readonly spawn: SpawnEngine;
  readonly backoff?: BackoffPolicy;
  /** An engine that has not said ready by then is considered hung: it is killed and restarted. */
  readonly readyTimeoutMs?: number;
  /** How long stop() waits for a graceful shutdown before killing the engine. */
  readonly shutdownTimeoutMs?: number;
  /** How long stop() waits for the exit after a kill before giving up on it (so quitting never hangs). */
  readonly killGraceMs?: number;
  readonly schedule?: Schedule;
  readonly now?: () => number;
}

const engineMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ready'),
    consoleUrl: z.string().min(1),
    version: z.string(),
    secureUrl: z.string().min(1).optional(),
    caFingerprint256: z.string().nullable().optional(),
  }),
  z.object({ type: z.literal('fatal'), message: z.string() }),
]);

/** Validates a message from the engine; anything else (including future message types) is ignored. */
export function parseEngineMessage(raw: unknown): EngineMessage | undefined {
  const parsed = engineMessageSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

// Looks the global timer up at call time so vitest's fake timers, installed after import, still apply.
const realSchedule: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  return () => clearTimeout(timer);
};

const noop = (): void => undefined;

interface Run {
  readonly process: EngineProcess;
  readyAt: number | undefined;
  lastError: string | undefined;
  cancelReadyTimeout: () => void;
}

interface PendingStop {
  readonly done: Promise<void>;
  readonly resolve: () => void;
  cancelTimers: () => void;
}

export class Supervisor {
  readonly #spawn: SpawnEngine;
  readonly #backoff: BackoffPolicy;
  readonly #readyTimeoutMs: number;
  readonly #shutdownTimeoutMs: number;
  readonly #killGraceMs: number;
  readonly #schedule: Schedule;
  readonly #now: () => number;
  readonly #listeners = new Set<StateListener>();

  #state: SupervisorState = { kind: 'stopped' };
  #run: Run | undefined;
  #attempt = 0;
  #cancelRestart: (() => void) | undefined;
  #pendingStop: PendingStop | undefined;

  constructor(options: SupervisorOptions) {
    this.#spawn = options.spawn;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
    this.#shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;
    this.#killGraceMs = options.killGraceMs ?? 5_000;
    this.#schedule = options.schedule ?? realSchedule;
    this.#now = options.now ?? Date.now;
  }

  get state(): SupervisorState {
    return this.#state;
  }

  /** Subscribes to state changes; returns the unsubscribe function. */
  onState(listener: StateListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts the engine. Ignored unless the supervisor is stopped or fatal (a fatal state can be retried). */
  start(): void {
    if (this.#state.kind !== 'stopped' && this.#state.kind !== 'fatal') return;
    this.#attempt = 0;
    this.#launch();
  }

  /**
   * Asks the engine to shut down, kills it if it has not exited after the shutdown timeout, and
   * resolves once it is gone. Nothing is restarted afterwards. Calling it again returns the same promise.
   */
  stop(): Promise<void> {
    if (this.#pendingStop !== undefined) return this.#pendingStop.done;
    this.#cancelRestart?.();
    this.#cancelRestart = undefined;
    const run = this.#run;
    if (run === undefined) {
      if (this.#state.kind !== 'stopped') this.#setState({ kind: 'stopped' });
      return Promise.resolve();
    }

    let resolve = noop;
    const done = new Promise<void>((r) => (resolve = r));
    const pending: PendingStop = { done, resolve, cancelTimers: noop };
    this.#pendingStop = pending;
    this.#setState({ kind: 'stopping' });
    run.process.send({ type: 'shutdown' });
    pending.cancelTimers = this.#schedule(() => {
      run.process.kill();
      // A process that survives even a kill must not keep the application from quitting.
      pending.cancelTimers = this.#schedule(() => this.#finishStop(), this.#killGraceMs);
    }, this.#shutdownTimeoutMs);
    return done;
  }

  #launch(): void {
    this.#setState({ kind: 'starting', attempt: this.#attempt });
    let process: EngineProcess;
    try {
      process = this.#spawn();
    } catch (error) {
      this.#scheduleRestart(undefined, `The engine could not be started: ${describeError(error)}`);
      return;
    }
    const run: Run = { process, readyAt: undefined, lastError: undefined, cancelReadyTimeout: noop };
    this.#run = run;
    process.onMessage((message) => this.#onMessage(run, message));
    process.onExit((code, signal) => this.#onExit(run, code, signal));
    run.cancelReadyTimeout = this.#schedule(() => {
      if (this.#run !== run || run.readyAt !== undefined || this.#pendingStop !== undefined) return;
      run.lastError = `The engine did not report ready within ${formatSeconds(this.#readyTimeoutMs)}.`;
      process.kill();
    }, this.#readyTimeoutMs);
  }

  #onMessage(run: Run, raw: unknown): void {
    if (this.#run !== run) return;
    const message = parseEngineMessage(raw);
    if (message === undefined) return;
    if (message.type === 'fatal') {
      run.lastError = message.message;
      return;
    }
    run.readyAt = this.#now();
    run.cancelReadyTimeout();
    if (this.#pendingStop === undefined) {
      this.#setState({
        kind: 'ready',
        consoleUrl: message.consoleUrl,
        version: message.version,
        ...(message.secureUrl === undefined ? {} : { secureUrl: message.secureUrl }),
        ...(message.caFingerprint256 === undefined ? {} : { caFingerprint256: message.caFingerprint256 }),
      });
    }
  }

  #onExit(run: Run, code: number | null, signal: string | null): void {
    if (this.#run !== run) return;
    this.#run = undefined;
    run.cancelReadyTimeout();
    if (this.#pendingStop !== undefined) {
      this.#finishStop();
      return;
    }
    if (code === EXIT_SETTINGS_REFUSED) {
      this.#setState({
        kind: 'fatal',
        reason:
          run.lastError ?? 'The engine refused its settings (exit code 78). Correct the settings, then start it again.',
      });
      return;
    }
    this.#scheduleRestart(run, run.lastError ?? describeExit(code, signal));
  }

  #scheduleRestart(run: Run | undefined, reason: string): void {
    // An engine that ran long enough was healthy; its crash starts a new series of short delays.
    const upFor = run?.readyAt === undefined ? 0 : this.#now() - run.readyAt;
    if (upFor >= this.#backoff.resetAfterMs) this.#attempt = 0;
    this.#attempt += 1;
    const inMs = backoffDelay(this.#attempt, this.#backoff);
    this.#setState({ kind: 'restarting', inMs, attempt: this.#attempt, reason });
    this.#cancelRestart = this.#schedule(() => {
      this.#cancelRestart = undefined;
      this.#launch();
    }, inMs);
  }

  #finishStop(): void {
    const pending = this.#pendingStop;
    if (pending === undefined) return;
    pending.cancelTimers();
    this.#pendingStop = undefined;
    this.#run = undefined;
    this.#setState({ kind: 'stopped' });
    pending.resolve();
  }

  #setState(state: SupervisorState): void {
    this.#state = state;
    for (const listener of this.#listeners) {
      try {
        listener(state);
      } catch (error) {
        // A broken listener (say, a destroyed tray) must not leave the supervisor half-way through a transition.
        console.error('Rampart supervisor: a state listener failed:', error);
      }
    }
  }
}

function describeExit(code: number | null, signal: string | null): string {
  if (signal !== null) return `The engine was stopped by signal ${signal}.`;
  if (code === null) return 'The engine exited unexpectedly.';
  return `The engine exited unexpectedly with code ${code}.`;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
