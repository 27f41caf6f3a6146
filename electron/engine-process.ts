// EngineProcess adapter over node:child_process, for plain Node (tests, a headless supervisor).
// The Electron shell uses its own utilityProcess adapter in main.ts; both keep the same promises:
// onExit fires exactly once, send and kill never throw once the process is gone.

import { fork } from 'node:child_process';
import type { EngineCommand, EngineProcess } from './supervisor.ts';
import engineNodeFlags from '../scripts/engine-node-flags.json' with { type: 'json' };

export interface ForkOptions {
  /** Where the engine's stdout/stderr go; tests silence it. */
  readonly stdio?: 'inherit' | 'ignore';
}

export function forkWithChildProcess(entry: string, env: NodeJS.ProcessEnv, options: ForkOptions = {}): EngineProcess {
  const output = options.stdio ?? 'inherit';
  const child = fork(entry, [], {
    env,
    execArgv: engineNodeFlags.flags,
    stdio: ['ignore', output, output, 'ipc'],
    serialization: 'json',
  });

  const exitListeners: ((code: number | null, signal: string | null) => void)[] = [];
  let exited = false;
  const emitExit = (code: number | null, signal: string | null): void => {
    if (exited) return;
    exited = true;
    for (const listener of exitListeners) listener(code, signal);
  };
  child.on('exit', (code, signal) => emitExit(code, signal));
  child.on('error', () => {
    // Node may emit 'error' without 'exit' when the process could not be spawned at all; errors
    // from send or kill on a dying process are followed by 'exit' and need nothing here.
    if (child.pid === undefined) emitExit(null, null);
  });

  return {
    get pid() {
      return child.pid;
    },
    onMessage(listener) {
      child.on('message', (message: unknown) => listener(message));
    },
    onExit(listener) {
      exitListeners.push(listener);
    },
    send(message: EngineCommand) {
      if (!child.connected) return;
      // The callback swallows "channel closed" when the engine dies while the message is in flight.
      child.send(message, (error) => void error);
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
