/** A CNAME site's certificate in the sites service: checked on upload, kept through edits, tied to the domain. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SitesService, siteInputSchema, type SiteInput } from '#engine/sites';
import { ConfigStore } from '#engine/config-store';
import { ManualClock, cryptoRandom, problemsOf, type RampartError } from '#engine/shared';
import { testAuthority, testCertificate } from '../../support/certificates.ts';

let dir: string;
const clock = new ManualClock(Date.now());
const ca = testAuthority();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-site-cert-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function service(): Promise<SitesService> {
  return new SitesService({ store: await ConfigStore.open(dir, clock), clock, random: cryptoRandom, edition: 'B' });
}
const input = (over: Partial<SiteInput> = {}) =>
  siteInputSchema.parse({
    name: 'Shop',
    domain: 'shop.example.com',
    accessMethod: 'cname',
    cname: { http: true, https: true, originAddress: '10.0.0.5:8080' },
    ...over,
  });

async function refusal(p: Promise<unknown>): Promise<string[]> {
  try {
    await p;
  } catch (e) {
    return problemsOf(e as RampartError).map((x) => x.message);
  }
  throw new Error('accepted');
}

describe('site certificates', () => {
  it('keeps the certificate through an edit of the settings, and refuses a new domain it does not name', async () => {
    const sites = await service();
    const site = await sites.create(input());
    const cert = testCertificate(ca, ['shop.example.com', 'www.shop.example.com']);
    await sites.setCertificate(site.id, { certificate: cert.chain, key: cert.key });
    const { id: _i, createdAt: _c, updatedAt: _u, certificate: _t, ...settings } = sites.get(site.id);
    const edited = await sites.update(site.id, { ...input(), name: 'Shop 2' });
    expect(edited.certificate?.certificatePem).toContain('BEGIN CERTIFICATE');
    expect(edited.name).toBe('Shop 2');
    expect(settings.domain).toBe('shop.example.com');

    expect(await refusal(sites.update(site.id, input({ domain: 'other.example.com' })))).toEqual([
      'domain: the uploaded certificate does not name other.example.com (it names shop.example.com, www.shop.example.com): remove it or upload one for the new domain first',
    ]);
    // A name the certificate has is fine; without the certificate any domain is.
    await sites.update(site.id, input({ domain: 'www.shop.example.com' }));
    await sites.removeCertificate(site.id);
    expect((await sites.update(site.id, input({ domain: 'other.example.com' }))).domain).toBe('other.example.com');
  });

  it('refuses a certificate for a site that is not CNAME access', async () => {
    const sites = await service();
    const site = await sites.create(input({ accessMethod: 'plugin' }));
    const cert = testCertificate(ca, ['shop.example.com']);
    expect(await refusal(sites.setCertificate(site.id, { certificate: cert.chain, key: cert.key }))).toEqual([
      'accessMethod: a certificate is for CNAME-access sites',
    ]);
  });
});
