import { describe, expect, it } from 'vitest';
import { EventEngine, HLL_PRECISION } from '#engine/events';
import { ACCESS_LOG, at, distinct, hit, source } from './fixtures.ts';

/** The HyperLogLog's standard error: 1.04 / sqrt(2^precision) (about 1.6 % at 2^12 registers). */
const STANDARD_ERROR = 1.04 / Math.sqrt(2 ** HLL_PRECISION);

/** Feeds distinct values until the event fires; returns how many values it took and the estimate it gave. */
function firesAfter(
  threshold: number,
  options: { exactDistinct?: number } = {},
): { values: number; estimate: number; approximate: unknown } {
  const engine = new EventEngine(options);
  engine.configure([distinct('d', 'request', threshold, 3600)], source);
  for (let i = 1; i <= threshold * 2; i++) {
    const [firing] = engine.observe(
      ACCESS_LOG,
      hit('scanner', { request: `GET /item/${i * 7919} HTTP/1.1` }),
      at(i / 100),
    );
    if (firing) return { values: i, estimate: Number(firing.meta.distinct), approximate: firing.meta.approximate };
  }
  return { values: Infinity, estimate: NaN, approximate: null };
}

describe('distinct counts past the exact limit', () => {
  it('count exactly up to exactDistinct values', () => {
    expect(firesAfter(1024)).toEqual({ values: 1024, estimate: 1024, approximate: 0 });
  });

  it('estimate 50,000 distinct values within three standard errors', () => {
    const { values, estimate, approximate } = firesAfter(50_000);
    expect(approximate).toBe(1);
    expect(Math.abs(values - 50_000)).toBeLessThanOrEqual(3 * STANDARD_ERROR * 50_000);
    expect(estimate).toBeGreaterThanOrEqual(50_000);
  });

  it('estimate small counts past a low exact limit too (linear counting range)', () => {
    const { values } = firesAfter(3000, { exactDistinct: 64 });
    expect(Math.abs(values - 3000)).toBeLessThanOrEqual(3 * STANDARD_ERROR * 3000);
  });

  it('forget values that left the window, to the bucket', () => {
    const engine = new EventEngine({ exactDistinct: 16 });
    engine.configure([distinct('d', 'request', 5000, 10)], source);
    // 3,000 values in the first second, then 3,000 more 20 s later: the first ones have left.
    for (let i = 0; i < 3000; i++) engine.observe(ACCESS_LOG, hit('s', { request: `/a/${i}` }), at(0));
    let fired = false;
    for (let i = 0; i < 3000; i++)
      fired ||= engine.observe(ACCESS_LOG, hit('s', { request: `/b/${i}` }), at(20)).length > 0;
    expect(fired).toBe(false);
    // Within the window they add up.
    for (let i = 0; i < 3000 && !fired; i++)
      fired = engine.observe(ACCESS_LOG, hit('s', { request: `/c/${i}` }), at(25)).length > 0;
    expect(fired).toBe(true);
  });
});
