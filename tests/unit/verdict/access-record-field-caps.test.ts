import { describe, expect, it } from 'vitest';
import { accessRecord, decide } from '#engine/verdict';
import { MAX_LOG_FIELD, TRUNCATED_MARK } from '#engine/shared';
import { site, request, ports } from './fixture.ts';

describe('access records keep what the client sent within 2 KB per field', () => {
  const huge = 'A'.repeat(64 * 1024);

  it('caps the User-Agent, Referer, URL, Host, X-Forwarded-For and request id, marking each cut', () => {
    const s = site();
    const facts = request({
      uri: `/search?q=${huge}`,
      host: huge,
      requestId: huge,
      headers: { 'user-agent': huge, referer: huge, 'x-forwarded-for': huge },
    });
    const record = accessRecord(s, facts, decide(s, facts, ports()), 1_000, null, null);
    for (const field of ['user_agent', 'referrer', 'request', 'hostname', 'x_forwarded_for', 'log_id']) {
      const value = record[field] as string;
      expect(value.length, field).toBeLessThanOrEqual(MAX_LOG_FIELD);
      expect(value.endsWith(TRUNCATED_MARK), field).toBe(true);
    }
    expect(JSON.stringify(accessRecord(s, facts, decide(s, facts, ports()), 1_000, null, null)).length).toBeLessThan(
      16 * 1024,
    );
  });

  it('leaves ordinary values untouched', () => {
    const s = site();
    const facts = request({ uri: '/products?id=1' });
    const record = accessRecord(s, facts, decide(s, facts, ports()), 1_000, null, null);
    expect(record.request).toBe('GET /products?id=1 HTTP/1.1');
    expect(record.user_agent).toBe('Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36');
  });
});
