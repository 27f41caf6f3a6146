import { describe, expect, it } from 'vitest';
import { bytesOverBudget } from '#engine/log-store';

const GB = 1024 ** 3;

describe('disk budget arithmetic', () => {
  it('asks for nothing while 10 % of the volume is free and no cap is set', () => {
    expect(bytesOverBudget({ usedBytes: 50 * GB, freeBytes: 10 * GB, totalBytes: 100 * GB }, {})).toBe(0);
  });

  it('asks for the shortfall of free space below 10 % by default', () => {
    expect(bytesOverBudget({ usedBytes: 50 * GB, freeBytes: 4 * GB, totalBytes: 100 * GB }, {})).toBe(6 * GB);
  });

  it('never asks the store for more than it holds', () => {
    expect(bytesOverBudget({ usedBytes: 1 * GB, freeBytes: 0, totalBytes: 100 * GB }, {})).toBe(1 * GB);
  });

  it('asks for the excess over an absolute cap, whichever rule needs more', () => {
    const usage = { usedBytes: 30 * GB, freeBytes: 8 * GB, totalBytes: 100 * GB };
    expect(bytesOverBudget(usage, { maxBytes: 25 * GB })).toBe(5 * GB);
    expect(bytesOverBudget(usage, { maxBytes: 29 * GB })).toBe(2 * GB);
    expect(bytesOverBudget(usage, { maxBytes: 25 * GB, minFreeRatio: 0 })).toBe(5 * GB);
  });
});
