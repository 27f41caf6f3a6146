// Bundles the engine (engine/main.ts and what it imports) into dist/engine/main.js, its Kafka
// thread into dist/engine/kafka-worker.js, and the Node gateway middleware (gateways/node) into
// dist/engine/gateway-node.js. Packages stay external: they are installed in node_modules (and
// shipped by electron-builder).
import { build } from 'esbuild';

/** The engine and its threads: Node ESM bundles whose packages stay in node_modules. */
const engineBundle = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
};
await build({ ...engineBundle, entryPoints: ['engine/main.ts'], outfile: 'dist/engine/main.js' });
// A BROKER configuration's Kafka thread (engine/intake/kafka-worker.ts), which main.js starts from
// the file beside it.
await build({
  ...engineBundle,
  entryPoints: ['engine/intake/kafka-worker.ts'],
  outfile: 'dist/engine/kafka-worker.js',
});
// The Node gateway middleware as plain JavaScript, for the site page's download
// (engine/gateways/node-gateway-bundle.ts reads it next to main.js). It has no dependencies.
await build({
  entryPoints: ['gateways/node/index.ts'],
  outfile: 'dist/engine/gateway-node.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
});
// The mini-program SDK (gateways/mini-program): one CommonJS file in ES2015 for the mini-program's
// build (engine/gateways/mini-program-bundle.ts reads it next to main.js).
await build({
  entryPoints: ['gateways/mini-program/index.ts'],
  outfile: 'dist/engine/mini-program-sdk.js',
  bundle: true,
  platform: 'neutral',
  format: 'cjs',
  target: 'es2015',
  logLevel: 'warning',
});
console.log(
  'built dist/engine/main.js, dist/engine/kafka-worker.js, dist/engine/gateway-node.js and dist/engine/mini-program-sdk.js',
);
