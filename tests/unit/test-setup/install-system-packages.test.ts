/**
 * `npm run setup:system` on a host without apt: it names what to install and exits 0 (nothing it
 * checks is needed to run the appliance), except under CI=true, where a missing package fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// A PATH with only what the script itself runs: no apt-get, no curl.
const bin = mkdtempSync(join(tmpdir(), 'rampart-no-apt-'));
for (const tool of ['bash', 'grep', 'dpkg-query', 'python3', 'id'])
  for (const dir of ['/usr/bin', '/bin'])
    try {
      symlinkSync(join(dir, tool), join(bin, tool));
      break;
    } catch {
      // not in this folder
    }
afterAll(() => rmSync(bin, { recursive: true, force: true }));

function run(env: Record<string, string>): { status: number | null; out: string } {
  const r = spawnSync(join(bin, 'bash'), ['scripts/install-system-packages.sh'], {
    encoding: 'utf8',
    env: { PATH: bin, CI: '', ...env },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('install-system-packages.sh without apt', () => {
  it('says what is missing and what to install, and exits 0', () => {
    const { status, out } = run({});
    expect(out).toMatch(/^setup:system: missing: .*\bcurl\b/m);
    expect(out).toMatch(/no apt-get \(Debian \/ Ubuntu\)\. Install the equivalents of: .*\bcurl\b/);
    expect(status).toBe(0);
  });

  it('fails under CI=true', () => {
    expect(run({ CI: 'true' }).status).toBe(1);
  });
});
