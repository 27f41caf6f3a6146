// Bundles the engine (engine/main.ts and what it imports) into dist/engine/main.js. Packages stay
// external: they are installed in node_modules (and shipped by electron-builder).
import { build } from 'esbuild';

await build({
  entryPoints: ['engine/main.ts'],
  outfile: 'dist/engine/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
console.log('built dist/engine/main.js');
