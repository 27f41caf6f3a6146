import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SitesService, siteInputSchema, type SiteInput } from '#engine/sites';
import { ConfigStore, CONFIG_FILE_NAME } from '#engine/config-store';
import { ManualClock, cryptoRandom, RampartError, type Edition } from '#engine/shared';

let dir: string;
const clock = new ManualClock();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-sites-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function service(edition: Edition = 'B'): Promise<SitesService> {
  return new SitesService({ store: await ConfigStore.open(dir, clock), clock, random: cryptoRandom, edition });
}
const input = (over: Partial<SiteInput> = {}) =>
  siteInputSchema.parse({ name: 'Shop', domain: 'shop.example.com', ...over });

async function failure(p: Promise<unknown>): Promise<RampartError> {
  try {
    await p;
  } catch (e) {
    return e as RampartError;
  }
  throw new Error('accepted');
}

describe('sites', () => {
  it('creates a site with the documented defaults and its access log configuration', async () => {
    const sites = await service();
    const site = await sites.create(input());
    expect(site).toMatchObject({
      runMode: 'monitor',
      blockStatus: 400,
      reloadStatus: 412,
      tokenExpirySeconds: 60,
      browserFeatureDetection: true,
    });
    const reopened = await ConfigStore.open(dir, clock);
    expect(reopened.data.logConfigs).toEqual([
      expect.objectContaining({ kind: 'access', siteId: site.id, name: 'Shop access log' }),
    ]);
  });

  it('refuses a second site with the same name, whatever the case', async () => {
    const sites = await service();
    await sites.create(input());
    const e = await failure(sites.create(input({ name: ' shop ' })));
    expect(e).toMatchObject({ code: 'NAME_TAKEN', field: 'name' });
  });

  it('refuses invalid list lines with the field and line number', async () => {
    const sites = await service();
    const badRegex = await failure(
      sites.create(
        input({ passList: { pathEnabled: true, paths: ['^/ok', '', '(unclosed'], ipEnabled: false, ips: [] } }),
      ),
    );
    expect(badRegex).toMatchObject({ code: 'VALIDATION_FAILED', field: 'passList.paths', params: { line: 3 } });
    expect(badRegex.message).toMatch(/^passList\.paths: line 3: /);
    const badIp = await failure(
      sites.create(
        input({ blockList: { pathEnabled: false, paths: [], ipEnabled: true, ips: ['10.0.0.1', '300.1.1.1'] } }),
      ),
    );
    expect(badIp).toMatchObject({ field: 'blockList.ips', params: { line: 2 } });
    const badCidr = await failure(
      sites.create(input({ blockList: { pathEnabled: false, paths: [], ipEnabled: true, ips: ['10.0.0.0/33'] } })),
    );
    expect(badCidr.message).toContain('prefix length');
    const badPath = await failure(
      (await service('A')).create(
        input({ checkList: { pathEnabled: true, paths: ['login'], ipEnabled: false, ips: [] } }),
      ),
    );
    expect(badPath).toMatchObject({ field: 'checkList.paths', params: { line: 1 } });
    const badTrusted = await failure(
      sites.create(
        input({ sourceIp: { mode: 'xff', xffMode: 'filter', trustedSources: ['proxy.local'], customHeader: '' } }),
      ),
    );
    expect(badTrusted.field).toBe('sourceIp.trustedSources');
  });

  it('edition B needs a domain; edition A offers only plugin and plugin-less access', async () => {
    expect(await failure((await service('B')).create(input({ domain: '' })))).toMatchObject({ field: 'domain' });
    expect(await failure((await service('A')).create(input({ accessMethod: 'cname' })))).toMatchObject({
      field: 'accessMethod',
    });
    await expect(
      (await service('A')).create(input({ domain: '', name: 'A site', accessMethod: 'pluginless' })),
    ).resolves.toBeDefined();
  });

  it('copies under a free name and deletes with the access log configuration', async () => {
    const sites = await service();
    const site = await sites.create(input());
    const copy = await sites.copy(site.id);
    const again = await sites.copy(site.id);
    expect([copy.name, again.name]).toEqual(['Shop (copy)', 'Shop (copy 2)']);
    await sites.remove(site.id);
    expect(
      sites
        .list()
        .map((s) => s.name)
        .toSorted(),
    ).toEqual(['Shop (copy 2)', 'Shop (copy)'].toSorted());
    expect((await ConfigStore.open(dir, clock)).data.logConfigs.map((l) => l.siteId)).not.toContain(site.id);
  });

  it('searches by name', async () => {
    const sites = await service();
    await sites.create(input({ name: 'Shop' }));
    await sites.create(input({ name: 'Blog', domain: 'blog.example.com' }));
    expect(sites.list('sho').map((s) => s.name)).toEqual(['Shop']);
  });

  it('recompiles a site after it changes', async () => {
    const sites = await service();
    const site = await sites.create(input());
    expect(sites.compiled(site.id)?.runMode).toBe('monitor');
    await sites.update(site.id, input({ runMode: 'block' }));
    expect(sites.compiled(site.id)?.runMode).toBe('block');
    expect(sites.compiled('site_missing')).toBeUndefined();
  });

  it('B global settings drive the cookies, expiry and IP lock of every site; A keeps them per site', async () => {
    const b = await service('B');
    const site = await b.create(input({ tokenCookieName: 'ignored_in_b' }));
    await b.updateGlobal({ tokenCookieName: 'tk', identityCookieName: 'dv', tokenExpirySeconds: 120, ipLock: true });
    expect(b.compiled(site.id)).toMatchObject({ tokenCookieName: 'tk', tokenTtlSeconds: 120, ipLock: true });
    const a = await service('A');
    const aSite = await a.create(input({ name: 'A', tokenCookieName: 'mine', tokenExpirySeconds: 90 }));
    expect(a.compiled(aSite.id)).toMatchObject({ tokenCookieName: 'mine', tokenTtlSeconds: 90, ipLock: false });
  });

  it('rotates the Access Key', async () => {
    const sites = await service();
    const before = sites.global().accessKey;
    expect((await sites.rotateAccessKey()).accessKey).not.toBe(before);
  });

  it('shows connected while heartbeats arrive within 10 seconds', async () => {
    const sites = await service();
    const site = await sites.create(input({ runMode: 'block' }));
    expect(sites.status(site.id)).toMatchObject({ connected: false, protection: true });
    sites.recordHeartbeat(site.id, { version: '1.0.0', address: '127.0.0.1' });
    clock.advance(9_000);
    expect(sites.status(site.id)).toMatchObject({ connected: true, keeperVersion: '1.0.0' });
    clock.advance(1_000);
    expect(sites.status(site.id).connected).toBe(false);
  });
});

describe('schema migrations 1 -> 2 -> 3 -> 4 -> 5 -> 6 -> 7 -> 8 -> 9', () => {
  it('adds sites, the global configuration, the signing secret and the basic rules to a version-1 document', async () => {
    const v1 = {
      schemaVersion: 1,
      installation: { id: 'ent_x', createdAt: 1 },
      accounts: [],
      links: [],
      licence: null,
      audit: [],
    };
    await writeFile(join(dir, CONFIG_FILE_NAME), JSON.stringify(v1));
    const store = await ConfigStore.open(dir, clock);
    expect(store.data.schemaVersion).toBe(10);
    expect(store.data.storage.retentionDays.audit).toBe(365);
    expect(store.data.logConfigs).toEqual([]);
    expect(store.data.rules).toEqual([]);
    expect(store.data.storage.retentionDays.probe).toBe(30);
    expect(store.data.intake).toBeNull();
    expect(store.data.gateway).toEqual({ advertisedAddress: '' });
    expect(store.data.storage.retentionDays.access).toBe(30);
    expect(store.data.sites).toEqual([]);
    expect(store.data.ruleSet).toEqual({ source: 'auto', dir: null });
    expect(store.data.basicRules).toEqual({});
    expect(store.data.siteGlobal.accessKey).toMatch(/^[\w-]{43}$/);
    expect(store.data.secrets.tokenKey).toMatch(/^[\w-]{43}$/);
    expect(store.data.installation.id).toBe('ent_x');
  });
});
