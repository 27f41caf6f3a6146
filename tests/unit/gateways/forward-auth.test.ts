import { describe, expect, it } from 'vitest';
import {
  ENVOY_PREFIX,
  caddyString,
  conventionFacts,
  conventionStatus,
  quotedPlainWord,
  verdictConvention,
} from '#engine/gateways';

describe('verdictConvention', () => {
  it("keeps nginx's bare verdict path, with or without an unrelated query", () => {
    expect(verdictConvention('/_rampart/verdict')).toEqual({ kind: 'nginx' });
    expect(verdictConvention('/_rampart/verdict?x=1')).toEqual({ kind: 'nginx' });
  });

  it('reads ?gw= as the forward-auth convention for the gateways it names, and nothing for others', () => {
    for (const gw of ['caddy', 'traefik', 'haproxy', 'forward-auth']) {
      expect(verdictConvention(`/_rampart/verdict?gw=${gw}`)).toEqual({ kind: 'forward-auth' });
    }
    expect(verdictConvention('/_rampart/verdict?gw=squid')).toBeUndefined();
    expect(verdictConvention('/_rampart/verdicts')).toBeUndefined();
  });

  it("takes Envoy's original path and query after the prefix", () => {
    expect(verdictConvention(`${ENVOY_PREFIX}/cart?item=2`)).toEqual({ kind: 'envoy', uri: '/cart?item=2' });
    expect(verdictConvention(ENVOY_PREFIX)).toEqual({ kind: 'envoy', uri: '/' });
    expect(verdictConvention(`${ENVOY_PREFIX}?q=1`)).toEqual({ kind: 'envoy', uri: '/?q=1' });
    expect(verdictConvention(`${ENVOY_PREFIX}x/cart`)).toBeUndefined();
  });
});

describe('conventionFacts', () => {
  const headers = {
    host: 'internal:9081',
    'x-forwarded-method': 'POST',
    'x-forwarded-uri': '/login?next=/',
    'x-forwarded-host': 'shop.example.com',
    'x-forwarded-proto': 'https',
    'x-forwarded-for': '203.0.113.1, 198.51.100.7',
  };

  it('from a trusted gateway, describes the client from X-Forwarded-* (its last X-Forwarded-For entry)', () => {
    expect(conventionFacts({ kind: 'forward-auth' }, headers, 'GET', '127.0.0.1', true, undefined)).toMatchObject({
      method: 'POST',
      uri: '/login?next=/',
      host: 'shop.example.com',
      scheme: 'https',
      remoteAddr: '198.51.100.7',
    });
  });

  it('from any other peer, the client is the peer, on plain http, at the Host it asked', () => {
    expect(conventionFacts({ kind: 'forward-auth' }, headers, 'GET', '192.0.2.9', false, undefined)).toMatchObject({
      method: 'POST',
      uri: '/login?next=/',
      host: 'internal:9081',
      scheme: 'http',
      remoteAddr: '192.0.2.9',
    });
  });

  it("for Envoy, the method and URI are the check request's own", () => {
    expect(
      conventionFacts({ kind: 'envoy', uri: '/cart' }, headers, 'DELETE', '127.0.0.1', true, undefined),
    ).toMatchObject({ method: 'DELETE', uri: '/cart', remoteAddr: '198.51.100.7' });
  });
});

describe('conventionStatus', () => {
  it('sends a configured 2xx as 403 (forward-auth gateways read 2xx as allow) and any other status as it is', () => {
    expect(conventionStatus(200)).toBe(403);
    expect(conventionStatus(299)).toBe(403);
    expect(conventionStatus(302)).toBe(302);
    expect(conventionStatus(412)).toBe(412);
  });
});

describe('Caddyfile and Lua / HAProxy words', () => {
  it('quote generated values and refuse what those formats would expand or end on', () => {
    expect(caddyString('site_abc-123', 'id')).toBe('"site_abc-123"');
    expect(quotedPlainWord('Ab0_-.~', 'accessKey')).toBe('"Ab0_-.~"');
    for (const bad of ['{env.HOME}', 'a"b', 'a\\b', 'a b', 'a\nb'])
      expect(() => caddyString(bad, 'id')).toThrow(/Caddyfile/);
    for (const bad of ['%[src]', '${HOME}', 'a"b', 'a\\b', 'a b', 'a\nb', "a'b", 'a#b'])
      expect(() => quotedPlainWord(bad, 'id')).toThrow(/Lua or HAProxy/);
  });
});
