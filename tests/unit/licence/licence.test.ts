import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import {
  LicenceService,
  generateVendorKeyPair,
  signLicence,
  verifyLicence,
  type LicencePayload,
} from '#engine/licence';
import { ConfigStore } from '#engine/config-store';
import { ManualClock, DAY, RampartError } from '#engine/shared';

let vendor: { privateKeyPem: string; publicKeyPem: string };
let other: { privateKeyPem: string; publicKeyPem: string };
beforeAll(() => {
  vendor = generateVendorKeyPair();
  other = generateVendorKeyPair();
});

const payload: LicencePayload = {
  enterpriseId: 'ENT-0042',
  customerName: 'Example Trading Co.',
  issuedAt: '2026-01-01T00:00:00Z',
  modules: [{ module: 'basic', expiresAt: '2027-01-01T00:00:00Z' }],
  purchases: [
    {
      orderTime: '2025-12-20T08:00:00Z',
      orderNumber: 'SO-1001',
      product: 'Basic application security, 1 year',
      expiresAt: '2027-01-01T00:00:00Z',
      status: 'paid',
      remark: '',
    },
  ],
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as RampartError).code;
  }
}

describe('licence files', () => {
  it('verify with the vendor key', () => {
    expect(verifyLicence(signLicence(payload, vendor.privateKeyPem), vendor.publicKeyPem)).toEqual(payload);
  });

  it('refuse another key, a tampered payload and garbage', () => {
    const file = signLicence(payload, vendor.privateKeyPem);
    expect(codeOf(() => verifyLicence(file, other.publicKeyPem))).toBe('LICENCE_SIGNATURE_INVALID');
    const envelope = JSON.parse(file) as { payload: string };
    const forged = { ...payload, modules: [{ module: 'advanced', expiresAt: '2099-01-01T00:00:00Z' }] };
    envelope.payload = Buffer.from(JSON.stringify(forged)).toString('base64');
    expect(codeOf(() => verifyLicence(JSON.stringify(envelope), vendor.publicKeyPem))).toBe(
      'LICENCE_SIGNATURE_INVALID',
    );
    expect(codeOf(() => verifyLicence('not json', vendor.publicKeyPem))).toBe('LICENCE_MALFORMED');
    expect(codeOf(() => verifyLicence('{"format":"x"}', vendor.publicKeyPem))).toBe('LICENCE_MALFORMED');
    expect(codeOf(() => verifyLicence('x'.repeat(70_000), vendor.publicKeyPem))).toBe('LICENCE_MALFORMED');
  });
});

describe('licence state', () => {
  let dir: string;
  let clock: ManualClock;
  let store: ConfigStore;
  let service: LicenceService;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rampart-licence-'));
    clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    store = await ConfigStore.open(dir, clock);
    service = new LicenceService({ store, clock, edition: 'B', vendorPublicKeyPem: vendor.publicKeyPem });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('a new install is a 30-day trial with every module activated', () => {
    const view = service.view();
    expect(view.versionType).toBe('trial');
    expect(view.modules.map((m) => m.state)).toEqual(['activated', 'activated']);
    expect(view.trialEndsAt).toBe(clock.now() + 30 * DAY);
    clock.advance(30 * DAY);
    expect(service.view().modules.map((m) => m.state)).toEqual(['expired', 'expired']);
    expect(service.isActive('basic')).toBe(false);
  });

  it('importing a licence makes it formal, with modules, expiries and purchase records', async () => {
    const view = await service.import(signLicence(payload, vendor.privateKeyPem));
    expect(view).toMatchObject({
      versionType: 'formal',
      enterpriseId: 'ENT-0042',
      customerName: 'Example Trading Co.',
    });
    expect(view.modules).toEqual([
      { module: 'basic', state: 'activated', expiresAt: Date.parse('2027-01-01T00:00:00Z') },
      { module: 'advanced', state: 'not_purchased', expiresAt: null },
    ]);
    expect(service.purchases()).toEqual([
      expect.objectContaining({
        orderNumber: 'SO-1001',
        status: 'paid',
        orderTime: Date.parse('2025-12-20T08:00:00Z'),
      }),
    ]);
    clock.set(Date.parse('2027-01-01T00:00:00Z'));
    expect(service.isActive('basic')).toBe(false);
    expect(service.view().modules[0]?.state).toBe('expired');
  });

  it('a refused licence changes nothing', async () => {
    await expect(service.import(signLicence(payload, other.privateKeyPem))).rejects.toMatchObject({
      code: 'LICENCE_SIGNATURE_INVALID',
    });
    expect(service.view().versionType).toBe('trial');
  });

  it('refuses imports when no vendor key is configured', async () => {
    const keyless = new LicenceService({ store, clock, edition: 'A', vendorPublicKeyPem: undefined });
    expect(keyless.view().vendorKeyConfigured).toBe(false);
    await expect(keyless.import(signLicence(payload, vendor.privateKeyPem))).rejects.toMatchObject({
      code: 'LICENCE_NO_VENDOR_KEY',
    });
  });

  it('renew says to contact channel sales and changes nothing', async () => {
    await service.import(signLicence(payload, vendor.privateKeyPem));
    const before = JSON.stringify(store.data);
    expect(() => service.renew('SO-1001')).toThrow(RampartError);
    expect(codeOf(() => service.renew('SO-1001'))).toBe('RENEW_CONTACT_SALES');
    expect(JSON.stringify(store.data)).toBe(before);
  });
});
