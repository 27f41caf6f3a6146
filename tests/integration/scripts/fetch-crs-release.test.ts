/**
 * The desktop installers carry CRS v4: `npm run fetch:crs` fetches the release from the configured
 * address (here a local HTTPS mirror serving an archive built from RAMPART_CRS_V4_RULES), checks it
 * against the repository's pin and unpacks it; a tampered release is refused and nothing is written.
 * An engine pointed at the unpacked release (RAMPART_CRS_BUNDLED_DIR, as the desktop app does) runs it
 * when the host has no modsecurity-crs.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRS_RELEASE_PINS, releaseContentSha256 } from '#engine/basic-rules';
import { startTestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { CRS4, missing } from '../../support/crs-dirs.ts';
import { skipAllWithout } from '../../support/skip.ts';
import { startCrsMirror, type CrsMirror } from '../engine/crs-mirror.ts';

const VERSION = '4.25.0';

function fetchCrs(out: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      ['node_modules/tsx/dist/cli.mjs', 'scripts/fetch-crs-release.ts', '--version', VERSION, '--out', out],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => done({ code, output }));
  });
}

describe('fetching the CRS release the desktop installers carry', () => {
  skipAllWithout(missing.crs4);
  let mirror: CrsMirror | undefined;
  let work = '';

  beforeAll(async () => {
    if (!CRS4) return;
    mirror = await startCrsMirror(CRS4.dir, VERSION);
    work = await mkdtemp(join(tmpdir(), 'rampart-fetch-crs-'));
  }, 60_000);

  afterAll(async () => {
    await mirror?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('refuses a tampered release and writes nothing', async () => {
    if (mirror) mirror.mode = 'tampered';
    const out = join(work, 'tampered', 'crs');
    const { code, output } = await fetchCrs(out, mirror?.env ?? {});
    expect(code, output).toBe(1);
    expect(output).toMatch(/content hashes to [0-9a-f]{64}, not the [0-9a-f]{64} pinned for CRS 4\.25\.0/);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('unpacks the genuine release, and an engine without modsecurity-crs runs it', async () => {
    if (mirror) mirror.mode = 'release';
    const out = join(work, 'dist', 'crs');
    const { code, output } = await fetchCrs(out, mirror?.env ?? {});
    expect(code, output).toBe(0);
    expect(await releaseContentSha256(out)).toBe(CRS_RELEASE_PINS[VERSION]?.contentSha256);

    const engine = await startTestEngine(
      { RAMPART_EDITION: 'B', RAMPART_CRS_BUNDLED_DIR: out },
      { ruleSetLocations: [] },
    );
    try {
      const admin = new ApiClient(engine.url);
      await admin.setup('root@example.com', 'Kettle#Blue7');
      const status = await admin.request<{ state: string; version: string; ruleCount: number; source: string }>(
        'GET',
        '/rule-set',
      );
      expect(status.body).toMatchObject({ state: 'loaded', source: 'detected' });
      expect(status.body.version).toMatch(/4\.25\.0/);
      expect(status.body.ruleCount).toBeGreaterThan(100);
    } finally {
      await engine.dispose();
    }
  }, 90_000);
});
