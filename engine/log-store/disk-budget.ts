import { readdir, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClassicLevel } from 'classic-level';
import { recordKey } from './keys.ts';

/**
 * How much disk the log store may take, until retention by age arrives: keep a share of the volume
 * free and, optionally, stay under an absolute size. When either is broken the oldest records go
 * first, across all logs.
 */
export interface DiskBudget {
  /** Share of the volume (0 to 1) that must stay free; default 0.10. */
  minFreeRatio?: number;
  /** Largest size of the store on disk, bytes; no absolute cap when absent. */
  maxBytes?: number;
  /** How often the budget is checked, ms; default 30 s. */
  checkEveryMs?: number;
  /** A check also follows this many bytes written since the last one; default 64 MB (at most a quarter of maxBytes). */
  checkAfterBytes?: number;
}

export const DEFAULT_MIN_FREE_RATIO = 0.1;
export const DEFAULT_BUDGET_CHECK_MS = 30_000;
const DEFAULT_CHECK_AFTER_BYTES = 64 * 1024 * 1024;
/** Trimming goes this share of the store's size below the budget, so the next burst does not trim again at once. */
const HEADROOM = 0.05;
/** Trims per check: a trim whose range held less than asked is followed by another, on the estimate. */
const MAX_ROUNDS = 4;
const SECOND = 1000;
/** `<log>\x00` + 8-byte time + 4-byte sequence: the bytes after the name. */
const KEY_TAIL = 13;

export interface VolumeSpace {
  freeBytes: number;
  totalBytes: number;
}

/** The free and total space of the volume holding `dir` (fs.statfs); replaceable in tests. */
export type VolumeProbe = (dir: string) => Promise<VolumeSpace>;

export const statVolume: VolumeProbe = async (dir) => {
  const s = await statfs(dir);
  return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
};

export interface DiskUsage extends VolumeSpace {
  /** Bytes of the store's own files. */
  usedBytes: number;
}

/** Bytes the store must shed to be within budget (0 when it is). The store cannot free more than it holds. */
export function bytesOverBudget(usage: DiskUsage, budget: DiskBudget): number {
  const overCap = budget.maxBytes === undefined ? 0 : usage.usedBytes - budget.maxBytes;
  const wantFree = Math.ceil(usage.totalBytes * (budget.minFreeRatio ?? DEFAULT_MIN_FREE_RATIO));
  const overFree = Math.min(usage.usedBytes, wantFree - usage.freeBytes);
  return Math.max(0, overCap, overFree);
}

export function checkAfterBytes(budget: DiskBudget): number {
  if (budget.checkAfterBytes !== undefined) return budget.checkAfterBytes;
  return budget.maxBytes === undefined
    ? DEFAULT_CHECK_AFTER_BYTES
    : Math.max(1, Math.min(DEFAULT_CHECK_AFTER_BYTES, Math.floor(budget.maxBytes / 4)));
}

/** Total size of the files in a LevelDB folder (flat: no subfolders). */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    // A file can vanish between the listing and the stat (LevelDB deletes compacted tables).
    total += await stat(join(dir, entry.name)).then(
      (s) => s.size,
      () => 0,
    );
  }
  return total;
}

interface LogSpan {
  log: string;
  name: Buffer;
  /** Time of the log's first and last block, ms. */
  oldest: number;
  newest: number;
}

/** What one trim removed: every record older than `before` in `logs`, about `bytes` on disk. */
export interface TrimmedRange {
  before: number;
  logs: string[];
  bytes: number;
}

const timeOf = (key: Buffer): number => Number(key.readBigUInt64BE(key.length - KEY_TAIL + 1));

/**
 * Deletes records oldest first, across logs, and compacts what it deleted so the space is given
 * back. Works on whole seconds (a record block holds one second of one log) and never deletes the
 * newest second held by the store.
 */
export class OldestFirstTrimmer {
  constructor(
    private readonly db: ClassicLevel<Buffer, string>,
    /** The first key that is not a record (index, roll-up and meta keys sort after every log name). */
    private readonly metaStart: Buffer,
    /** Deletes one log's records before a time, with their index entries and roll-ups. */
    private readonly removeBefore: (log: string, before: number) => Promise<void>,
  ) {}

  /** Every log with records, with its oldest and newest block time. */
  async spans(): Promise<LogSpan[]> {
    const spans: LogSpan[] = [];
    let from: Buffer | undefined;
    for (;;) {
      const range = from === undefined ? { lt: this.metaStart, limit: 1 } : { gte: from, lt: this.metaStart, limit: 1 };
      const [first] = await this.db.keys(range).all();
      if (first === undefined || first.length < KEY_TAIL) return spans;
      const name = Buffer.from(first.subarray(0, first.length - KEY_TAIL));
      // name + 0x01 sorts after every key of this log (`name 0x00 ...`) and before any other log's.
      const end = Buffer.concat([name, Buffer.from([0x01])]);
      const [last] = await this.db.keys({ gte: first, lt: end, reverse: true, limit: 1 }).all();
      spans.push({ log: name.toString('utf8'), name, oldest: timeOf(first), newest: timeOf(last ?? first) });
      from = end;
    }
  }

  /** Removes about `bytes` of the oldest records (estimated from LevelDB's table sizes). */
  async trim(bytes: number): Promise<TrimmedRange | null> {
    // Table sizes do not count the memtable: write it out first (LevelDB's CompactRange flushes it;
    // the meta range is a few bytes, so nothing else is rewritten).
    await this.db.compactRange(this.metaStart, Buffer.concat([this.metaStart, Buffer.from([0xff])]));
    const spans = await this.spans();
    if (spans.length === 0) return null;
    const oldest = Math.min(...spans.map((s) => s.oldest));
    const newest = Math.max(...spans.map((s) => s.newest));
    const sizeBefore = async (cutoff: number): Promise<number> => {
      let total = 0;
      for (const span of spans) {
        if (span.oldest < cutoff)
          total += await this.db.approximateSize(recordKey(span.log, 0, 0), recordKey(span.log, cutoff, 0));
      }
      return total;
    };
    // The earliest whole second whose older records make up `bytes`, at most the newest second.
    let lo = Math.floor(oldest / SECOND) + 1;
    let hi = Math.floor(newest / SECOND);
    if (lo > hi) return null;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await sizeBefore(mid * SECOND)) >= bytes) hi = mid;
      else lo = mid + 1;
    }
    const before = lo * SECOND;
    const removed = await sizeBefore(before);
    const logs: string[] = [];
    for (const span of spans) {
      if (span.oldest >= before) continue;
      await this.removeBefore(span.log, before);
      logs.push(span.log);
    }
    return { before, logs, bytes: removed };
  }
}

/** The outcome of one budget check. */
export interface BudgetCheck {
  /** Usage when the check began and when it ended. */
  before: DiskUsage;
  after: DiskUsage;
  removed: TrimmedRange[];
  /** False when the store deleted all it may and the budget is still broken (other data fills the volume). */
  withinBudget: boolean;
}

/**
 * Measures the store against its budget and trims oldest-first until it fits. `dir` is the
 * LevelDB folder; the store's size is only measured when the volume is short of space or there is
 * an absolute cap (the common case costs one statfs).
 */
export async function enforceBudget(
  trimmer: Pick<OldestFirstTrimmer, 'trim'>,
  dir: string,
  budget: DiskBudget,
  volume: VolumeProbe = statVolume,
): Promise<BudgetCheck> {
  const measure = async (): Promise<DiskUsage> => {
    const space = await volume(dir);
    const usage = { ...space, usedBytes: 0 };
    // Without a cap and with free space to spare, the store's size does not matter.
    if (
      budget.maxBytes === undefined &&
      bytesOverBudget({ ...usage, usedBytes: Number.MAX_SAFE_INTEGER }, budget) === 0
    )
      return usage;
    return { ...space, usedBytes: await folderBytes(dir) };
  };
  const before = await measure();
  // Rounds work on the estimate of what is left, not on a new measure: LevelDB frees a trimmed
  // range's files only when its compaction ends, and its log and memtable shrink with no trim, so a
  // folder measured at once still looks over and further rounds would delete far more than asked.
  // The next check measures again and trims more if the estimate was short.
  let estimate = before;
  const removed: TrimmedRange[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const over = bytesOverBudget(estimate, budget);
    if (over === 0) break;
    const trimmed = await trimmer.trim(over + Math.ceil(estimate.usedBytes * HEADROOM));
    if (trimmed === null) break;
    removed.push(trimmed);
    estimate = {
      ...estimate,
      usedBytes: Math.max(0, estimate.usedBytes - trimmed.bytes),
      freeBytes: estimate.freeBytes + trimmed.bytes,
    };
  }
  const after = removed.length === 0 ? before : await measure();
  return { before, after, removed, withinBudget: bytesOverBudget(estimate, budget) === 0 };
}
