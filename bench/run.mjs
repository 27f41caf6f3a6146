// `npm run bench [-- NAME]`: runs bench/NAME.bench.ts, or every benchmark in bench/.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { engineEnvironment } from '../scripts/engine-allocator.mjs';

const wanted = process.argv[2];
const benches = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !wanted || f === `${wanted}.bench.ts`);
if (benches.length === 0) {
  console.error(`no benchmark named ${wanted}`);
  process.exit(2);
}
// In-process benchmarks stand in for the engine process: they run with its Node flags and its
// allocator (jemalloc where the system has it; RAMPART_ALLOCATOR=system for glibc's).
const { flags } = JSON.parse(readFileSync('scripts/engine-node-flags.json', 'utf8'));
const { env, allocator } = engineEnvironment(process.env);
env.RAMPART_BENCH_OUTER_ALLOCATOR_ENV = JSON.stringify({
  LD_PRELOAD: process.env.LD_PRELOAD,
  MALLOC_CONF: process.env.MALLOC_CONF,
});
for (const file of benches) {
  console.log(`# ${file}`);
  console.log(`# allocator: ${allocator}`);
  const result = spawnSync(
    process.execPath,
    [...flags, '--import', './bench/allocator-env.mjs', '--import', 'tsx', `bench/${file}`],
    { stdio: 'inherit', env },
  );
  if (result.status !== 0) process.exit(result.status ?? 1);
}
