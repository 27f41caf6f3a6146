import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '#engine/config-store';
import { RuleSetManager } from '#engine/basic-rules';
import { ManualClock, isRampartError, silentLogger } from '#engine/shared';
import { DEBIAN_LOCATION } from '#engine/waf/ruleset';

const clock = new ManualClock(Date.UTC(2026, 10, 22));
let dir: string;
let store: ConfigStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-rule-sets-'));
  store = await ConfigStore.open(dir, clock);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const manager = (detect: () => null | { dir: string; options: object }) =>
  new RuleSetManager({ store, dataDir: dir, clock, logger: silentLogger, waf: {}, detect });

describe('rule-set manager without an installed rule set', () => {
  it('starts with a clear "missing" status that says what to do', async () => {
    const m = manager(() => null);
    await m.start();
    const status = m.status();
    expect(status).toMatchObject({ state: 'missing', source: null, ruleCount: 0, version: null });
    expect(status.lastError?.message).toMatch(/modsecurity-crs/);
    expect(status.lastError).toMatchObject({
      code: 'no_rule_set_found',
      params: { dir: '/usr/share/modsecurity-crs' },
    });
    expect(m.current).toBeNull();
  });

  it('refuses auto-detection and a folder without rules with a field error, and stays missing', async () => {
    const m = manager(() => null);
    await m.start();
    const refusals = [];
    for (const attempt of [() => m.useDir(null), () => m.useDir(join(dir, 'nowhere'))]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(isRampartError(error) && error.code === 'VALIDATION_FAILED' && error.field === 'dir').toBe(true);
      if (isRampartError(error)) refusals.push(error.params);
    }
    // Each says what went wrong as a code with parameters; nothing runs, so nothing is kept.
    expect(refusals).toEqual([
      { reason: 'rule_set', problem: 'no_rule_set_found', kept: false, dir: '/usr/share/modsecurity-crs' },
      { reason: 'rule_set', problem: 'no_rules_folder', kept: false, source: 'dir', dir: join(dir, 'nowhere') },
    ]);
    expect(m.status().state).toBe('missing');
    expect(store.data.ruleSet).toEqual({ source: 'auto', dir: null });
  });

  it('loads a configured directory and remembers it', async ({ skip }) => {
    if (!existsSync(join(DEBIAN_LOCATION.dir, 'rules')))
      skip(`Debian's CRS 3.3.4 is not installed (${DEBIAN_LOCATION.dir}): run npm run setup:system`);
    const m = manager(() => null);
    await m.start();
    const status = await m.useDir(DEBIAN_LOCATION.dir);
    expect(status).toMatchObject({
      state: 'loaded',
      source: 'configured',
      configuredDir: DEBIAN_LOCATION.dir,
      lastError: null,
    });
    expect(status.ruleCount).toBeGreaterThanOrEqual(196);
    expect(store.data.ruleSet).toEqual({ source: 'dir', dir: DEBIAN_LOCATION.dir });
  });
});
