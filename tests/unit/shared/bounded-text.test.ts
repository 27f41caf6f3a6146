import { describe, expect, it } from 'vitest';
import { capRecord, capText, MAX_LOG_FIELD, TRUNCATED_MARK } from '#engine/shared';

describe('capText', () => {
  it('keeps a value within the cap as it is', () => {
    expect(capText('Mozilla/5.0')).toBe('Mozilla/5.0');
    expect(capText('x'.repeat(MAX_LOG_FIELD))).toHaveLength(MAX_LOG_FIELD);
  });

  it('cuts a longer value to the cap and marks it', () => {
    const cut = capText('x'.repeat(100_000));
    expect(cut).toHaveLength(MAX_LOG_FIELD);
    expect(cut.endsWith(TRUNCATED_MARK)).toBe(true);
  });

  it('never leaves half of a surrogate pair', () => {
    const cut = capText('\u{1F6E1}'.repeat(10), 6);
    expect(cut).toBe(`\u{1F6E1}\u{1F6E1}${TRUNCATED_MARK}`);
    expect(() => encodeURIComponent(cut)).not.toThrow();
  });
});

describe('capRecord', () => {
  it('cuts each long string field and lists the cut fields', () => {
    const record = capRecord({ a: 'y'.repeat(5000), b: 'short', n: 7 }, { maxBytes: 8192 });
    expect(record.a).toHaveLength(MAX_LOG_FIELD);
    expect(record.b).toBe('short');
    expect(record.n).toBe(7);
    expect(record._truncated).toEqual(['a']);
  });

  it('shrinks the longest fields until the whole record fits its byte budget', () => {
    const fields = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}`, 'é'.repeat(2000)]));
    const record = capRecord({ _timestamp: 1, ...fields }, { maxBytes: 8192 });
    expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThanOrEqual(8192);
    expect(record._timestamp).toBe(1);
    expect(record._truncated?.length).toBeGreaterThan(0);
  });

  it('adds no marker to a record that fits', () => {
    expect(capRecord({ a: 'b' }, { maxBytes: 8192 })).toEqual({ a: 'b' });
  });
});
