import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bytesOverBudget, enforceBudget, type TrimmedRange } from '#engine/log-store';

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

describe('a budget check', () => {
  const MB = 1024 ** 2;
  const volume = () => Promise.resolve({ freeBytes: 50 * GB, totalBytes: 100 * GB });

  it('trims what the estimate asks once, though the folder does not shrink at once (LevelDB frees files later)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rampart-budget-'));
    try {
      // 10 MB of files that no trim frees at once, as a write-ahead log and uncompacted tables are.
      await writeFile(join(dir, '000001.log'), Buffer.alloc(10 * MB));
      const asked: number[] = [];
      const trimmer = {
        trim: (bytes: number): Promise<TrimmedRange> => {
          asked.push(bytes);
          return Promise.resolve({ before: 0, logs: ['access'], bytes });
        },
      };
      const check = await enforceBudget(trimmer, dir, { maxBytes: 8 * MB }, volume);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toBe(2 * MB + Math.ceil(10 * MB * 0.05));
      expect(check.withinBudget).toBe(true);
      expect(check.after.usedBytes).toBe(10 * MB);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('trims again in the same check when a trimmed range held less than asked, and says when nothing is left', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rampart-budget-'));
    try {
      await writeFile(join(dir, '000001.ldb'), Buffer.alloc(10 * MB));
      const ranges = [1 * MB, 1 * MB];
      const trimmer = {
        trim: (): Promise<TrimmedRange | null> => {
          const bytes = ranges.shift();
          return Promise.resolve(bytes === undefined ? null : { before: 0, logs: ['access'], bytes });
        },
      };
      const check = await enforceBudget(trimmer, dir, { maxBytes: 5 * MB }, volume);
      expect(check.removed.map((r) => r.bytes)).toEqual([1 * MB, 1 * MB]);
      expect(check.withinBudget).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
