// Bundles the desktop shell for Electron: main process and preload, each one CommonJS file
// (sandboxed preloads cannot load ES modules, and a single file keeps app.asar lookups trivial).
// `electron` stays external: Electron provides it at run time. The engine is built separately
// (scripts/build-engine.mjs) and found at run time next to this output, in dist/engine/main.js.

import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** @type {import('esbuild').BuildOptions} */
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['electron'],
  sourcemap: 'linked',
  logLevel: 'info',
};

await Promise.all([
  build({ ...common, entryPoints: ['electron/main.ts'], outfile: 'dist/electron/main.cjs' }),
  build({ ...common, entryPoints: ['electron/preload.ts'], outfile: 'dist/electron/preload.cjs' }),
]);
