import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF } from '../../../electron/backoff.ts';

describe('backoffDelay', () => {
  it('doubles from one second and stays at thirty seconds', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 20].map((attempt) => backoffDelay(attempt, DEFAULT_BACKOFF));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('never overflows for a very long crash loop', () => {
    expect(backoffDelay(10_000, DEFAULT_BACKOFF)).toBe(30_000);
  });

  it('follows a custom policy', () => {
    const policy = { initialMs: 10, maxMs: 50, resetAfterMs: 1_000 };
    expect([1, 2, 3, 4].map((attempt) => backoffDelay(attempt, policy))).toEqual([10, 20, 40, 50]);
  });
});
