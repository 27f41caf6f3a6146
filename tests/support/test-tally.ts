/**
 * The test stages' counts, added up into one closing line for `npm test`.
 *
 * Each stage (the Vitest projects through tests/support/skip-reporter.ts, the security run) records
 * how many tests passed, failed and skipped; `npm test` clears the tally first and ends with
 * `tsx tests/support/test-tally.ts report`, which prints `tests: N passed, N failed, N skipped`: one
 * line a person or a CI reader can take as the result of the whole run.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TALLY_DIR = join(root, 'node_modules', '.cache', 'rampart-test-tally');

/** Records one stage's counts; `RAMPART_TEST_TALLY=off` (a run of a test fixture) records nothing. */
export async function recordTally(stage: string, tally: Tally): Promise<void> {
  if (process.env.RAMPART_TEST_TALLY === 'off') return;
  await mkdir(TALLY_DIR, { recursive: true });
  await writeFile(join(TALLY_DIR, `${stage}.json`), JSON.stringify(tally));
}

export async function readTallies(): Promise<Map<string, Tally>> {
  const stages = new Map<string, Tally>();
  const names = await readdir(TALLY_DIR).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.endsWith('.json')).sort())
    stages.set(name.slice(0, -'.json'.length), JSON.parse(await readFile(join(TALLY_DIR, name), 'utf8')) as Tally);
  return stages;
}

async function main(command: string | undefined): Promise<number> {
  if (command === 'reset') {
    await rm(TALLY_DIR, { recursive: true, force: true });
    return 0;
  }
  if (command !== 'report') {
    process.stderr.write('usage: tsx tests/support/test-tally.ts reset|report\n');
    return 2;
  }
  const stages = await readTallies();
  const total: Tally = { passed: 0, failed: 0, skipped: 0 };
  for (const [stage, t] of stages) {
    process.stdout.write(`  ${stage}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped\n`);
    total.passed += t.passed;
    total.failed += t.failed;
    total.skipped += t.skipped;
  }
  process.stdout.write(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
  return stages.size > 0 && total.failed === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  void main(process.argv[2]).then((code) => process.exit(code));
