import { beforeAll, describe, expect, it } from 'vitest';
import { createIntel, IP_CLASSIFICATIONS, type Intel } from '#engine/intel';
import { skipAllWithout } from '../../support/skip.ts';
import { CITY_DB, HAS_CITY_DB, LOAD_TIMEOUT } from './fixture.ts';

let intel: Intel;
beforeAll(async () => {
  intel = await createIntel();
}, LOAD_TIMEOUT);

const ip = (address: string) => intel.lookup(address, 'curl/8.4.0').intel;

describe('public addresses in the bundled databases', () => {
  it('places Google Public DNS in the US, AS15169, a data centre', () => {
    expect(ip('8.8.8.8')).toMatchObject({
      ip_country: 'US',
      ip_asn: 15169,
      ip_classification: 'data_center',
      ip_data_center_name: 'Google',
    });
  });

  it("finds Cloudflare's resolver in AS13335", () => {
    expect(ip('1.1.1.1')).toMatchObject({ ip_asn: 13335, ip_data_center_name: 'Cloudflare' });
  });

  it('finds an Amazon EC2 address in AWS', () => {
    expect(ip('52.94.236.248')).toMatchObject({ ip_asn: 16509, ip_data_center_name: 'Amazon Web Services' });
  });

  it('finds an IPv6 address: Google Public DNS over IPv6', () => {
    expect(ip('2001:4860:4860::8888')).toMatchObject({
      ip_country: 'US',
      ip_asn: 15169,
      ip_classification: 'data_center',
    });
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 one', () => {
    const mapped = ip('::ffff:8.8.8.8');
    expect(mapped).toMatchObject({ ip_country: 'US', ip_asn: 15169 });
  });

  it('calls a consumer ISP address residential_or_business with its organisation', () => {
    const r = ip('81.2.69.160'); // Andrews & Arnold, a UK ISP
    expect(r.ip_country).toBe('GB');
    expect(r.ip_classification).toBe('residential_or_business');
    expect(r.ip_data_center_name).toBe('');
    expect(r.ip_asn).toBeGreaterThan(0);
    expect(r.ip_org).not.toBe('');
  });

  it('leaves ip_city empty when no city database is configured', () => {
    expect(ip('8.8.8.8').ip_city).toBe('');
  });
});

describe('addresses classified without a database', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['0.0.0.0', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::', 'reserved'],
    ['ff02::1', 'reserved'],
    ['::ffff:192.168.0.1', 'private'],
    ['[::1]', 'loopback'],
  ])('%s is %s', (address, cls) => {
    const r = ip(address);
    expect(r.ip_classification).toBe(cls);
    expect(r).toMatchObject({ ip_city: '', ip_country: '', ip_asn: 0, ip_org: '', ip_data_center_name: '' });
  });

  it('does not take 172.32.0.1 for a private address', () => {
    expect(ip('172.32.0.1').ip_classification).not.toBe('private');
  });
});

describe('garbage addresses', () => {
  it.each([
    '',
    'garbage',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.4:8080',
    ' 1.2.3.4',
    '1::2::3',
    '12345::1',
    ':::',
    'g::1',
    '1:2:3:4:5:6:7:8:9',
    '::ffff:1.2.3.256',
    '1'.repeat(10_000),
    '\u0000',
  ])('%j is invalid with empty fields', (address) => {
    expect(ip(address)).toMatchObject({
      ip_classification: 'invalid',
      ip_city: '',
      ip_country: '',
      ip_asn: 0,
      ip_org: '',
      ip_data_center_name: '',
    });
  });

  it('accepts every IPv6 text form of RFC 4291', () => {
    for (const text of [
      '2001:4860:4860:0:0:0:0:8888',
      '2001:4860:4860::8888',
      '2001:4860:4860:0000::0:8888',
      '2001:4860:4860::0.0.136.136',
    ]) {
      expect(ip(text).ip_asn).toBe(15169);
    }
  });

  it('gives a value of the closed set for every input', () => {
    for (const address of ['8.8.8.8', 'x', '::1', '10.0.0.1', '2001:db8::']) {
      expect(IP_CLASSIFICATIONS).toContain(ip(address).ip_classification);
    }
  });

  it('does not throw for values that are not strings', () => {
    const r = intel.lookup(undefined as unknown as string, null as unknown as string).intel;
    expect(r.ip_classification).toBe('invalid');
    expect(r.ua_classification).toBe('empty');
  });
});

describe('with the DB-IP city database configured', () => {
  skipAllWithout(
    HAS_CITY_DB
      ? undefined
      : `DB-IP city databases not found (${CITY_DB.join(', ')}): run node scripts/intel-fetch-city-db.mjs`,
  );
  let withCity: Intel;
  beforeAll(async () => {
    if (!HAS_CITY_DB) return;
    withCity = await createIntel({ cityDb: CITY_DB });
  }, LOAD_TIMEOUT);

  it('names a city for an IPv4 address and keeps country and ASN', () => {
    const r = withCity.lookup('81.2.69.160', '').intel;
    expect(r.ip_city).toBe('London');
    expect(r.ip_country).toBe('GB');
  });

  it('names a city for an IPv6 address', () => {
    const r = withCity.lookup('2001:4860:4860::8888', '').intel;
    expect(r.ip_city).not.toBe('');
    expect(r.ip_asn).toBe(15169);
  });
});
