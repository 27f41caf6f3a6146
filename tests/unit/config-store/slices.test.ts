import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '#engine/config-store';
import { SitesService, siteInputSchema } from '#engine/sites';
import { ManualClock, cryptoRandom } from '#engine/shared';

let dir: string;
const clock = new ManualClock();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-slices-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('configuration slices', () => {
  it("a slice's generation moves when one of its keys changes, and only then", async () => {
    const store = await ConfigStore.open(dir, clock);
    const sites = store.slice(['sites', 'siteGlobal']);
    const before = sites.generation;
    await store.update((doc) => {
      doc.links.push({
        tokenHash: 'x',
        accountId: 'a',
        purpose: 'activate',
        expiresAt: 1,
        createdAt: 0,
      });
    });
    expect(sites.generation).toBe(before);
    await store.update((doc) => {
      doc.siteGlobal.ipLock = !doc.siteGlobal.ipLock;
    });
    expect(sites.generation).toBeGreaterThan(before);
  });

  it('a write that changes nothing in the slice leaves its generation alone', async () => {
    const store = await ConfigStore.open(dir, clock);
    const sites = store.slice(['sites']);
    const before = sites.generation;
    await store.update((doc) => {
      doc.sites = [...doc.sites];
    });
    expect(sites.generation).toBe(before);
  });

  it('compiled sites survive an unrelated configuration write and are rebuilt after a site change', async () => {
    const store = await ConfigStore.open(dir, clock);
    const service = new SitesService({
      store: store.slice(['sites', 'siteGlobal', 'gateway', 'logConfigs']),
      clock,
      random: cryptoRandom,
      edition: 'B',
    });
    const site = await service.create(siteInputSchema.parse({ name: 'Shop', domain: 'shop.example.com' }));
    const compiled = service.compiled(site.id);
    await store.update((doc) => {
      doc.ruleSet = { source: 'dir', dir: '/opt/crs' };
    });
    expect(service.compiled(site.id)).toBe(compiled);
    await service.update(site.id, {
      ...siteInputSchema.parse({ name: 'Shop', domain: 'shop.example.com' }),
      runMode: 'block',
    });
    expect(service.compiled(site.id)).not.toBe(compiled);
    expect(service.compiled(site.id)?.runMode).toBe('block');
  });
});
