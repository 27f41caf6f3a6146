/**
 * The console's services, created once: views import them from here instead of passing them down.
 */
import { ApiClient } from './api.ts';
import type { CallInput, Contract, ResponseOf } from './contracts.ts';
import { Flash } from './flash.svelte.ts';
import { Router } from './router.svelte.ts';
import { SessionStore } from './session.svelte.ts';
import { Layout } from './layout.svelte.ts';
import { Theme } from './theme.svelte.ts';
import { uploadWithProgress } from './upload.ts';

export const api = new ApiClient({ onSessionLost: (error) => session.lost(error) });
/** Calls an engine operation by its contract ($lib/contracts.ts): `call(getSite, { params: { id } })`. */
export const { call, download } = api;
/** Calls an operation with a large body (an archive), reporting how much of it has left. */
export const upload: <C extends Contract>(
  contract: C,
  input: CallInput<C>,
  onprogress?: (sent: number, total: number) => void,
) => Promise<ResponseOf<C>> = (contract, input, onprogress) => uploadWithProgress(api, contract, input, onprogress);
export const session = new SessionStore(api);
export const router = new Router();
export const theme = new Theme();
export const layout = new Layout();
export const flash = new Flash();
