// `npm run bench [-- NAME]`: runs bench/NAME.bench.ts, or every benchmark in bench/.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const wanted = process.argv[2];
const benches = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !wanted || f === `${wanted}.bench.ts`);
if (benches.length === 0) {
  console.error(`no benchmark named ${wanted}`);
  process.exit(2);
}
for (const file of benches) {
  console.log(`# ${file}`);
  // In-process benchmarks stand in for the engine process: they run with its Node flags.
  const { flags } = JSON.parse(readFileSync('scripts/engine-node-flags.json', 'utf8'));
  const result = spawnSync(process.execPath, [...flags, '--import', 'tsx', `bench/${file}`], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
