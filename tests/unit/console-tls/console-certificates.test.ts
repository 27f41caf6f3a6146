import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConfigDocument, ConfigSlice } from '#engine/config-store';
import { ConsoleCertificates, plainHttpRedirect } from '#engine/console-tls';
import { DAY, ManualClock } from '#engine/shared';

function memorySlice(): ConfigSlice<'consoleTls'> {
  let data: Pick<ConfigDocument, 'consoleTls'> = { consoleTls: null };
  let generation = 0;
  return {
    get data() {
      return data;
    },
    get generation() {
      return generation;
    },
    update: (change) => {
      const draft = structuredClone(data);
      const out = change(draft);
      data = draft;
      generation += 1;
      return Promise.resolve(out);
    },
  };
}

describe('the console certificate', () => {
  it('is made once, and made again when a new address appears or expiry nears, with the same CA', async () => {
    const store = memorySlice();
    const clock = new ManualClock(Date.UTC(2026, 10, 27));
    let names = ['localhost', '127.0.0.1'];
    const certificates = new ConsoleCertificates({ store, clock, hostNames: () => names });
    await certificates.ensure();
    const first = store.data.consoleTls!;
    await certificates.ensure();
    expect(store.data.consoleTls).toBe(first);

    names = [...names, '192.0.2.10'];
    await certificates.ensure();
    const second = store.data.consoleTls!;
    expect(second.ca).toEqual(first.ca);
    expect(second.certPem).not.toBe(first.certPem);
    expect(new X509Certificate(second.certPem).checkIP('192.0.2.10')).toBe('192.0.2.10');

    clock.advance(380 * DAY);
    await certificates.ensure();
    const third = store.data.consoleTls!;
    expect(third.ca).toEqual(first.ca);
    expect(Date.parse(new X509Certificate(third.certPem).validTo)).toBeGreaterThan(clock.now() + 300 * DAY);
    expect(certificates.status().certificate?.state).toBe('valid');
  });

  it('keeps an uploaded certificate at start, and tells the listeners of a change', async () => {
    const store = memorySlice();
    const clock = new ManualClock(Date.now());
    const certificates = new ConsoleCertificates({ store, clock, hostNames: () => ['localhost'] });
    await certificates.ensure();
    const seen: string[] = [];
    certificates.onChange((tls) => seen.push(tls.cert));
    await certificates.useGenerated();
    expect(seen).toHaveLength(1);
    expect(certificates.status().source).toBe('generated');
  });
});

describe('plain HTTP on the console port', () => {
  const request = (remoteAddress: string, host = 'rampart.lan:9080', url = '/sites?x=1') => ({
    encrypted: false,
    remoteAddress,
    host,
    url,
  });

  it('is served to this host and redirected for others', () => {
    expect(plainHttpRedirect(request('127.0.0.1'), 'loopback')).toBeUndefined();
    expect(plainHttpRedirect(request('::1'), 'loopback')).toBeUndefined();
    expect(plainHttpRedirect(request('::ffff:127.0.0.5'), 'loopback')).toBeUndefined();
    expect(plainHttpRedirect(request('192.0.2.7'), 'loopback')).toEqual({
      location: 'https://rampart.lan:9080/sites?x=1',
    });
    expect(plainHttpRedirect(request('::ffff:192.0.2.7'), 'loopback')).toEqual({
      location: 'https://rampart.lan:9080/sites?x=1',
    });
    expect(plainHttpRedirect(request('127.0.0.1', '[::1]:9080'), 'redirect')).toEqual({
      location: 'https://[::1]:9080/sites?x=1',
    });
    expect(plainHttpRedirect({ ...request('192.0.2.7'), encrypted: true }, 'redirect')).toBeUndefined();
  });

  it('gets no redirect to a Host that is not a host name', () => {
    expect(plainHttpRedirect(request('192.0.2.7', 'evil.example/path'), 'loopback')).toBe('bad_host');
    expect(plainHttpRedirect(request('192.0.2.7', 'a@b'), 'loopback')).toBe('bad_host');
    expect(plainHttpRedirect({ ...request('192.0.2.7'), host: undefined }, 'loopback')).toBe('bad_host');
  });
});
