// The contract between the desktop shell and the pages it shows: the IPC channel names used by
// main.ts and preload.ts, and the type of `window.rampartDesktop`. Type-only for the renderer,
// which must not depend on anything else in electron/.

import type { SupervisorState } from './supervisor.ts';

export type EngineState = SupervisorState;

/** What preload.ts exposes as `window.rampartDesktop`; present only inside the desktop app. */
export interface RampartDesktopApi {
  /** Version of the desktop application. */
  readonly version: string;
  /** Calls `listener` with the current engine state, then on every change; returns the unsubscribe function. */
  onEngineState(listener: (state: EngineState) => void): () => void;
}

/** main -> renderer: the engine state changed. */
export const ENGINE_STATE_CHANNEL = 'rampart:engine-state';
/** renderer -> main (invoke): the current engine state. */
export const GET_ENGINE_STATE_CHANNEL = 'rampart:get-engine-state';
/** Passed through webPreferences.additionalArguments because a sandboxed preload cannot read package.json. */
export const VERSION_ARGUMENT = '--rampart-version=';
