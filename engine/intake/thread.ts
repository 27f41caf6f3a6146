import { Worker } from 'node:worker_threads';

/**
 * Starts one of the engine's worker threads (here, not in shared/: the console bundles shared/ for
 * the browser): `name` is the module's file name without its
 * extension, beside the caller (`from`, the caller's `import.meta.url`). Built, the engine's
 * threads are bundles beside `main.js` (scripts/build-engine.mjs); from source (tests,
 * benchmarks) the TypeScript module is loaded through tsx.
 */
export function startThread(from: string, name: string, workerData: unknown): Worker {
  // The engine's flags give the process 64 MB semi-spaces (scripts/engine-node-flags.json), for
  // the verdict's latency; a thread does not need them (the Kafka thread: the same rate with 16 MB,
  // and 45 MB less resident at the peak).
  const options = { workerData, resourceLimits: { maxYoungGenerationSizeMb: 16 } };
  if (!from.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, from), options);
  const source = new URL(`./${name}.ts`, from).href;
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
