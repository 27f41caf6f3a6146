import { describe, expect, it } from 'vitest';
import { accessRecord, accessRecordJson, decide, type IntelligenceResult } from '#engine/verdict';
import { site, request, ports } from './fixture.ts';

describe('accessRecordJson', () => {
  it('is the JSON of the whole record, with the intelligence result in its place', () => {
    const s = site();
    const facts = request({
      headers: { 'user-agent': 'Mozilla/5.0 "quoted" \u2028 攻击', referer: 'https://example.com/?q=</script>' },
    });
    const verdict = decide(s, facts, ports());
    const intel: IntelligenceResult = {
      intel: { ip_city: 'Zürich', ip_asn: 64500, ua_family: 'Chrome', bot_name: '' },
    };
    const json = accessRecordJson(s, facts, verdict, 1_700_000_000_123, intel, null);
    expect(json).toBe(JSON.stringify(accessRecord(s, facts, verdict, 1_700_000_000_123, intel, null)));
    // the cached serialisation of the same result object is used again
    expect(accessRecordJson(s, facts, verdict, 1_700_000_000_124, intel, null)).toBe(
      JSON.stringify(accessRecord(s, facts, verdict, 1_700_000_000_124, intel, null)),
    );
    const plain = JSON.parse(accessRecordJson(s, facts, verdict, 1, null, null)) as Record<string, unknown>;
    expect(plain._intelligence_result).toBeNull();
  });
});
