// Runs sandboxed, with context isolation, before the console loads: exposes exactly one small
// typed API, `window.rampartDesktop`, and nothing of Electron or Node. Bundled to CommonJS by
// scripts/build-electron.mjs because sandboxed preloads cannot load ES modules.

import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  ENGINE_STATE_CHANNEL,
  GET_ENGINE_STATE_CHANNEL,
  VERSION_ARGUMENT,
  type EngineState,
  type RampartDesktopApi,
} from './desktop-api.ts';

const versionArgument = process.argv.find((argument) => argument.startsWith(VERSION_ARGUMENT));

const api: RampartDesktopApi = {
  version: versionArgument?.slice(VERSION_ARGUMENT.length) ?? 'unknown',
  onEngineState(listener) {
    // The renderer only ever sees the state, never the IPC event (which would leak `sender`).
    const forward = (_event: IpcRendererEvent, state: EngineState): void => listener(state);
    ipcRenderer.on(ENGINE_STATE_CHANNEL, forward);
    let subscribed = true;
    void ipcRenderer.invoke(GET_ENGINE_STATE_CHANNEL).then((state: EngineState) => {
      if (subscribed) listener(state);
    });
    return () => {
      subscribed = false;
      ipcRenderer.removeListener(ENGINE_STATE_CHANNEL, forward);
    };
  },
};

contextBridge.exposeInMainWorld('rampartDesktop', api);
