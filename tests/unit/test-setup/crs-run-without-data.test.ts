/**
 * The CRS regression run (`npm run test:crs`) on a clone without the CRS data beside it: each suite
 * is skipped with a line naming what is missing and the variable that provides it, and the run
 * passes; under CI=true missing data fails the run.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function runCrs(env: Record<string, string>): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'tests/crs/run.ts', '--check', '--no-write', '--no-http'], {
    encoding: 'utf8',
    env: {
      ...process.env,
      CI: '',
      RAMPART_CRS_REGRESSION: '/nonexistent/crs-regression',
      RAMPART_CRS_V4_RULES: '/nonexistent/crs-rules',
      ...env,
    },
    timeout: 60_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('the CRS regression run without its data', () => {
  it('skips each suite with one line saying what is missing and how to provide it, and passes', () => {
    const { status, out } = runCrs({});
    expect(out).toMatch(
      /^skipped: crs_regression_pass_rate \(CRS 3\.3\.4\): .*\/nonexistent\/crs-regression\/v3\.3\.4\/tests.*RAMPART_CRS_REGRESSION/m,
    );
    expect(out).toMatch(
      /^skipped: crs_v4_regression_pass_rate \(CRS 4\.25\.0\): .*\/nonexistent\/crs-rules.*RAMPART_CRS_V4_RULES/m,
    );
    expect(out).not.toContain('ENOENT');
    expect(status).toBe(0);
  }, 60_000);

  it('fails under CI=true', () => {
    const { status, out } = runCrs({ CI: 'true' });
    expect(out).toMatch(/^ERROR: crs_v4_regression_pass_rate not measured/m);
    expect(status).toBe(1);
  }, 60_000);
});
