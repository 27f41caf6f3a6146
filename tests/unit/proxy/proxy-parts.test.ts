/** The reverse proxy's pure parts: the probe injection, header rules and the listener plan. */
import { describe, expect, it } from 'vitest';
import {
  clientResponseHeaders,
  hostName,
  originRequestHeaders,
  planListeners,
  ProbeInjector,
  siteForHost,
} from '#engine/proxy';
import type { SiteRecord } from '#engine/config-store';

const TAG = '<script src="/_rampart/probe.js?mode=page" async></script>';

function inject(chunks: string[]): string {
  const injector = new ProbeInjector('/_rampart/probe.js?mode=page');
  let out = '';
  for (const c of chunks) out += injector.push(Buffer.from(c)).toString();
  return out + injector.end().toString();
}

describe('ProbeInjector', () => {
  it('adds the probe before the first </body>, in any case, once', () => {
    expect(inject(['<html><body>hi</BODY></html><p></body>'])).toBe(`<html><body>hi${TAG}</BODY></html><p></body>`);
  });

  it('finds a </body> split across chunks, at every split point', () => {
    const page = '<html><body>' + 'x'.repeat(50) + '</body></html>';
    for (let cut = 1; cut < page.length; cut++) {
      expect(inject([page.slice(0, cut), page.slice(cut)])).toBe(page.replace('</body>', `${TAG}</body>`));
    }
    expect(inject([...page])).toBe(page.replace('</body>', `${TAG}</body>`));
  });

  it('sends a page without </body> unchanged', () => {
    expect(inject(['<p>no', ' end</bod', 'y'])).toBe('<p>no end</body');
  });
});

describe('headers', () => {
  it('drops hop-by-hop headers, those Connection names and X-Rampart-*, and sets the forwarding headers', () => {
    const out = originRequestHeaders(
      {
        host: 'shop.test',
        connection: 'keep-alive, x-secret',
        'x-secret': '1',
        'keep-alive': 'timeout=5',
        te: 'trailers',
        'transfer-encoding': 'chunked',
        upgrade: 'h2c',
        expect: '100-continue',
        'x-rampart-site': 'spoof',
        'x-forwarded-for': '203.0.113.9',
        'x-real-ip': '10.0.0.1',
        accept: 'text/html',
      },
      { peer: '198.51.100.2', srcIp: '203.0.113.9', scheme: 'https', host: 'shop.test' },
    );
    expect(out).toEqual({
      host: 'shop.test',
      accept: 'text/html',
      'x-forwarded-for': '203.0.113.9, 198.51.100.2',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'shop.test',
      'x-real-ip': '203.0.113.9',
    });
  });

  it('hides server information from answers only when the site says so', () => {
    const answer = { server: 'nginx', 'x-powered-by': 'PHP', 'content-type': 'text/html', connection: 'close' };
    expect(clientResponseHeaders(answer, true)).toEqual({ 'content-type': 'text/html' });
    expect(clientResponseHeaders(answer, false)).toEqual({
      server: 'nginx',
      'x-powered-by': 'PHP',
      'content-type': 'text/html',
    });
  });

  it('reads host names from Host headers and SNI names', () => {
    expect(hostName('Shop.Test:8443')).toBe('shop.test');
    expect(hostName('shop.test.')).toBe('shop.test');
    expect(hostName('[2001:db8::1]:443')).toBe('[2001:db8::1]');
    expect(hostName(undefined)).toBe('');
  });
});

const site = (
  id: string,
  domain: string,
  cname: Partial<NonNullable<SiteRecord['cname']>>,
  createdAt = 0,
): SiteRecord =>
  ({
    id,
    domain,
    accessMethod: 'cname',
    createdAt,
    cname: {
      http: true,
      https: false,
      httpPort: 80,
      httpsPort: 443,
      originProtocol: 'http',
      originAddress: '10.0.0.5:8080',
      originVerifyTls: true,
      ...cname,
    },
  }) as SiteRecord;

describe('planListeners', () => {
  it('puts sites on their ports, several on one port, and reports a port asked for two protocols', () => {
    const plan = planListeners([
      site('a', 'a.test', { https: true }, 1),
      site('b', 'b.test', { https: true }, 2),
      site('c', 'c.test', { http: false, https: true, httpsPort: 80 }, 3),
      site('d', 'a.test', {}, 4),
      { ...site('e', 'e.test', {}, 5), accessMethod: 'plugin' },
    ]);
    expect([...plan.listeners.values()].map((l) => [l.port, l.tls, l.sites.map((s) => s.id)])).toEqual([
      [80, false, ['a', 'b']],
      [443, true, ['a', 'b']],
    ]);
    expect(plan.problems).toEqual([
      { siteId: 'a', message: 'HTTPS is on but no certificate is uploaded: handshakes for the site are refused' },
      { siteId: 'b', message: 'HTTPS is on but no certificate is uploaded: handshakes for the site are refused' },
      { siteId: 'c', message: 'HTTPS is on but no certificate is uploaded: handshakes for the site are refused' },
      { siteId: 'c', message: 'port 80 already serves HTTP for another site' },
      { siteId: 'd', message: 'another site serves a.test on port 80' },
    ]);
  });

  it('finds a site by its exact domain first, then by a *. domain one label up', () => {
    const plan = planListeners([site('w', '*.shop.test', {}, 1), site('x', 'www.shop.test', {}, 2)]);
    const listener = plan.listeners.get(80);
    if (!listener) throw new Error('no listener');
    expect(siteForHost(listener, 'www.shop.test')?.id).toBe('x');
    expect(siteForHost(listener, 'api.shop.test')?.id).toBe('w');
    expect(siteForHost(listener, 'a.b.shop.test')).toBeUndefined();
  });
});
