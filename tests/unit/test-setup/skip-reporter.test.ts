/**
 * Skipped tests are visible: the skip reporter prints each with its reason, and under CI=true a
 * skipped test fails the run (CI installs everything the tests need).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function runFixture(env: Record<string, string>): { status: number | null; out: string } {
  const r = spawnSync(
    process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run', '--config', 'tests/fixtures/skip-reporter/vitest.config.ts'],
    { encoding: 'utf8', env: { ...process.env, CI: '', RAMPART_TEST_TALLY: 'off', ...env }, timeout: 60_000 },
  );
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('the skip reporter', () => {
  it('prints the count and one line per skipped test with its reason, and passes a local run', () => {
    const { status, out } = runFixture({});
    expect(out).toContain('1 test(s) skipped');
    expect(out).toContain(
      'skipped: tests/fixtures/skip-reporter/one-skip.fixture.ts > needs data that is not there > reads the data: fixture data not found in /nowhere: set FIXTURE_DATA',
    );
    expect(out).toMatch(/^fixture: 1 passed, 0 failed, 1 skipped$/m);
    expect(status).toBe(0);
  }, 60_000);

  it('fails a CI=true run that skipped a test', () => {
    const { status, out } = runFixture({ CI: 'true' });
    expect(out).toContain('1 test(s) skipped (CI=true: a skipped test fails the run)');
    expect(status).toBe(1);
  }, 60_000);
});
