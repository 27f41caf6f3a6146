/**
 * The console's services, created once: views import them from here instead of passing them down.
 */
import { ApiClient } from './api.ts';
import { Flash } from './flash.svelte.ts';
import { Router } from './router.svelte.ts';
import { SessionStore } from './session.svelte.ts';
import { Theme } from './theme.svelte.ts';

export const api = new ApiClient({ onSessionLost: (error) => session.lost(error) });
/** Calls an engine operation by its contract ($lib/contracts.ts): `call(getSite, { params: { id } })`. */
export const { call, upload, download } = api;
export const session = new SessionStore(api);
export const router = new Router();
export const theme = new Theme();
export const flash = new Flash();
