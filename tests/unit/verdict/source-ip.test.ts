import { describe, expect, it } from 'vitest';
import { resolveSourceIp, cleanIp } from '#engine/verdict';
import { site } from './fixture.ts';

const mode = (
  m: 'default' | 'x_real_ip' | 'xff' | 'custom',
  xffMode: 'leftmost' | 'filter' | 'rightmost' = 'leftmost',
  trustedSources: string[] = [],
  customHeader = '',
) => site({ sourceIp: { mode: m, xffMode, trustedSources, customHeader } });

const peer = '10.0.0.5';

describe('source IP retrieval', () => {
  it('default takes the address the gateway saw', () => {
    expect(resolveSourceIp(mode('default'), { 'x-forwarded-for': '1.1.1.1' }, peer)).toBe(peer);
  });

  it('X-Real-IP takes that header, falling back to the peer when absent or garbage', () => {
    expect(resolveSourceIp(mode('x_real_ip'), { 'x-real-ip': '198.51.100.4' }, peer)).toBe('198.51.100.4');
    expect(resolveSourceIp(mode('x_real_ip'), { 'x-real-ip': 'not-an-ip' }, peer)).toBe(peer);
    expect(resolveSourceIp(mode('x_real_ip'), {}, peer)).toBe(peer);
  });

  it('a custom header is read by its configured name', () => {
    const s = mode('custom', 'leftmost', [], 'X-Client-IP');
    expect(resolveSourceIp(s, { 'x-client-ip': '2001:db8::7' }, peer)).toBe('2001:db8::7');
    expect(resolveSourceIp(s, { 'x-client-ip': '' }, peer)).toBe(peer);
  });

  it('X-Forwarded-For leftmost and rightmost take the ends of the chain, skipping garbage', () => {
    const headers = { 'x-forwarded-for': 'garbage, 198.51.100.1, 192.0.2.2:8080, 203.0.113.3, ???' };
    expect(resolveSourceIp(mode('xff', 'leftmost'), headers, peer)).toBe('198.51.100.1');
    expect(resolveSourceIp(mode('xff', 'rightmost'), headers, peer)).toBe('203.0.113.3');
    expect(resolveSourceIp(mode('xff', 'leftmost'), { 'x-forwarded-for': ',,, ,' }, peer)).toBe(peer);
  });

  it('filter walks past trusted proxies to the first untrusted hop', () => {
    const s = mode('xff', 'filter', ['10.0.0.0/8', '192.0.2.10']);
    expect(resolveSourceIp(s, { 'x-forwarded-for': '198.51.100.1, 192.0.2.10, 10.1.1.1' }, peer)).toBe('198.51.100.1');
  });

  it('filter does not believe a spoofed X-Forwarded-For from an untrusted peer', () => {
    const s = mode('xff', 'filter', ['10.0.0.0/8']);
    expect(resolveSourceIp(s, { 'x-forwarded-for': '1.2.3.4' }, '203.0.113.50')).toBe('203.0.113.50');
  });

  it('filter stops at a client-supplied entry left of the trusted chain', () => {
    const s = mode('xff', 'filter', ['10.0.0.0/8']);
    // the client sent "X-Forwarded-For: 6.6.6.6"; its proxy appended the real client address
    expect(resolveSourceIp(s, { 'x-forwarded-for': '6.6.6.6, 198.51.100.77' }, '10.0.0.1')).toBe('198.51.100.77');
  });

  it('filter with no trusted sources takes the peer', () => {
    expect(resolveSourceIp(mode('xff', 'filter'), { 'x-forwarded-for': '1.2.3.4' }, peer)).toBe(peer);
  });

  it('bounds the work on huge headers', () => {
    const huge = Array.from({ length: 10_000 }, (_, i) => `10.0.${(i >> 8) & 255}.${i & 255}`).join(',');
    const start = performance.now();
    expect(resolveSourceIp(mode('xff', 'rightmost'), { 'x-forwarded-for': huge }, peer)).toMatch(/^10\.0\./);
    expect(performance.now() - start).toBeLessThan(50);
  });

  it('cleans ports, brackets and IPv4-mapped IPv6', () => {
    expect(cleanIp('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(cleanIp('192.0.2.1:80')).toBe('192.0.2.1');
    expect(cleanIp('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(cleanIp('999.1.1.1')).toBe('');
  });
});
