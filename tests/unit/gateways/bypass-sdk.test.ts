/**
 * Which page origins may post the bypass web SDK's reports: the site's domain and its subdomains,
 * over http or https, on any port; nothing else.
 */
import { describe, expect, it } from 'vitest';
import { allowedSdkOrigin } from '../../../engine/gateways/bypass-sdk.ts';

describe('allowedSdkOrigin', () => {
  it.each([
    ['http://shop.example.com', 'shop.example.com'],
    ['https://shop.example.com:8443', 'shop.example.com'],
    ['https://www.shop.example.com', 'shop.example.com'],
    ['https://a.b.shop.example.com', 'Shop.Example.com'],
    ['https://shop.example.com', '*.shop.example.com'],
    ['https://m.shop.example.com', '*.shop.example.com'],
  ])('allows %s for the domain %s', (origin, domain) => {
    expect(allowedSdkOrigin(origin, domain)).toBe(origin);
  });

  it.each([
    ['http://shop.example.com.evil.net', 'shop.example.com'],
    ['http://evilshop.example.com', 'shop.example.com'],
    ['http://example.com', 'shop.example.com'],
    ['null', 'shop.example.com'],
    ['file://shop.example.com', 'shop.example.com'],
    ['ftp://shop.example.com', 'shop.example.com'],
    ['http://shop.example.com/path', 'shop.example.com'],
    ['http://user@shop.example.com', 'shop.example.com'],
    ['not a url', 'shop.example.com'],
    ['http://shop.example.com', ''],
  ])('refuses %s for the domain %j', (origin, domain) => {
    expect(allowedSdkOrigin(origin, domain)).toBeUndefined();
  });

  it('refuses a request without an Origin header', () => {
    expect(allowedSdkOrigin(undefined, 'shop.example.com')).toBeUndefined();
  });
});
