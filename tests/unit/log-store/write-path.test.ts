import { describe, expect, it } from 'vitest';
import { RollupDimsKeys, rollupDimsKey } from '../../../engine/log-store/fields.ts';
import { blockPosition, recordKey, rollupKey, rollupTime } from '../../../engine/log-store/keys.ts';

// The write path's shortcuts give exactly what the plain functions give.

describe('roll-up dimension keys looked up by their values', () => {
  const records: Record<string, unknown>[] = [
    { site_id: 's1', guard_status: 'PASS', status: 200 },
    { site_id: 's1', guard_status: 'OWASP', status: 403, waf_triggered_categories: 'sqli' },
    { site_id: 's1', guard_status: 'OWASP', status: '403', waf_triggered_categories: ' xss , sqli' },
    { site_id: 's1', guard_status: 'OWASP', status: 403, waf_triggered_categories: ['rce', 'lfi'] },
    { guard_status: 'PASS', status: 999, client_bot_type: 'script_tool' },
    { site_id: 7, guard_status: null, status: null, log_setting_id: 'cfg\u0001x' },
    { site_id: '', guard_status: 'PASS', status: 502, waf_triggered_categories: '' },
    {},
  ];

  it('are the keys rollupDimsKey makes, the first time and every time after', () => {
    const keys = new RollupDimsKeys();
    for (let pass = 0; pass < 3; pass++) {
      for (const log of ['access:s1', 'access:s2', 'detection']) {
        for (const record of records) expect(keys.of(log, record)).toBe(rollupDimsKey(log, record));
      }
    }
  });

  it('stay right past their limit (the table starts over)', () => {
    const keys = new RollupDimsKeys(3);
    for (let i = 0; i < 50; i++) {
      const record = { site_id: `s${i % 7}`, status: 200 + (i % 3) * 100 };
      expect(keys.of('access:x', record)).toBe(rollupDimsKey('access:x', record));
    }
  });
});

describe('store keys', () => {
  it('hold times past 2^32 and up to 2^53 exactly, in an order that sorts by time', () => {
    const times = [0, 1_000, 2 ** 32 - 1, 2 ** 32, 1_767_225_600_000, Number.MAX_SAFE_INTEGER];
    const keys = times.map((t) => recordKey('access:a', t, 5));
    times.forEach((t, i) => expect(blockPosition(keys[i]!)).toEqual({ second: t, seq: 5 }));
    const sorted = [...keys].sort((a, b) => Buffer.compare(a, b));
    expect(sorted).toEqual(keys);
    expect(rollupTime(rollupKey('access:a', 'm', 1_767_225_600_000, 3, 9))).toBe(1_767_225_600_000);
  });
});
