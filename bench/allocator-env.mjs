// Loaded first (`--import`) into every in-process benchmark by bench/run.mjs, which starts them
// with the engine's allocator preloaded (scripts/engine-allocator.mjs). The preload has taken
// effect by now; what the benchmark starts itself (nginx, the Kafka broker, senders, engine
// processes, which choose their own) must get the environment bench/run.mjs was given instead.
const saved = process.env.RAMPART_BENCH_OUTER_ALLOCATOR_ENV;
if (saved !== undefined) {
  const outer = JSON.parse(saved);
  for (const name of ['LD_PRELOAD', 'MALLOC_CONF']) {
    if (typeof outer[name] === 'string') process.env[name] = outer[name];
    else delete process.env[name];
  }
  delete process.env.RAMPART_BENCH_OUTER_ALLOCATOR_ENV;
}
