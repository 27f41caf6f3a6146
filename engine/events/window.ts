import { ExactSet } from './exact-set.ts';
import { SlidingHll } from './sliding-hll.ts';

/** A key holds at most this many buckets, whatever the window length. */
export const MAX_BUCKETS = 64;
/** Distinct values a key keeps in a plain list before it uses a hash table. */
const SMALL_SET = 16;
/**
 * Bucket numbers count from 2024-01-01 rather than 1970, so for today's times they stay small
 * integers V8 keeps unboxed in the object form's lists.
 */
const EPOCH_MS = Date.UTC(2024, 0, 1);

/** Bucket length (ms) of a window: 1 s up to 64 s, then window / 64 rounded up to whole seconds. */
export function bucketMsOf(windowSeconds: number): number {
  return Math.max(1, Math.ceil(windowSeconds / MAX_BUCKETS)) * 1000;
}

/** The bucket of an engine time. */
export const bucketOf = (now: number, bucketMs: number): number => Math.floor((now - EPOCH_MS) / bucketMs);

export type WindowKind = 'count' | 'distinct' | 'average';

/**
 * The object form of one (event, key) of a count, distinct or average event: what a busy distinct
 * key holds (the slab's regions hold the others, window-slot.ts), and every key in a snapshot.
 * `buckets` is a flat list of the non-empty buckets in the window, oldest first: `[bucket, count]`
 * pairs (count; for distinct, the count of values last seen in that bucket) or `[bucket, count,
 * sum]` triples (average).
 */
export class WindowKey {
  /** The first bucket in which the key may fire again (fired keys are muted for a window; the latch of combined events). */
  mute = -Infinity;
  /** The newest bucket that received a record. */
  last = -Infinity;
  /** Records in the window (count, average) or distinct values (exact mode). */
  total = 0;
  buckets: number[] = [];
  /** Distinct, up to 16 values: `[hash, bucket, ...]`. */
  small: number[] | null = null;
  set: ExactSet | null = null;
  hll: SlidingHll | null = null;

  clear(): void {
    this.buckets.length = 0;
    this.total = 0;
    this.small = null;
    this.set = null;
    this.hll = null;
  }
}

/** The parameters of a window (shared by every key of an event). */
export interface WindowShape {
  kind: WindowKind;
  /** Buckets in the window (the current one included). */
  n: number;
  exactDistinct: number;
  /**
   * Distinct: how many values a key needs to remember to compare its count with the event's
   * threshold exactly, threshold + 1 (see window-slot.ts addDistinct); Infinity for the others.
   */
  keep: number;
}

/** Drops the buckets that have left the window ending at `bucket`. */
function expire(shape: WindowShape, k: WindowKey, bucket: number): void {
  const b = k.buckets;
  const oldest = bucket - shape.n;
  if (b.length === 0 || b[0]! > oldest) return;
  const step = shape.kind === 'average' ? 3 : 2;
  let i = 0;
  while (i < b.length && b[i]! <= oldest) {
    k.total -= b[i + 1]!;
    i += step;
  }
  b.copyWithin(0, i);
  b.length -= i;
}

/** Adds `count` (and `sum`) to the current bucket. */
function bump(k: WindowKey, step: number, bucket: number, sum: number): void {
  const b = k.buckets;
  const at = b.length - step;
  if (at >= 0 && b[at] === bucket) {
    b[at + 1]!++;
    if (step === 3) b[at + 2]! += sum;
  } else if (step === 3) b.push(bucket, 1, sum);
  else b.push(bucket, 1);
}

/**
 * Adds one record to a key and returns the statistic (count, distinct count or mean) over the
 * window ending at `bucket`. `value` is the number for average, the value's hash53 for distinct.
 */
export function addRecord(shape: WindowShape, k: WindowKey, bucket: number, value: number): number {
  if (k.last <= bucket - shape.n) k.clear();
  else expire(shape, k, bucket);
  k.last = bucket;
  switch (shape.kind) {
    case 'count':
      bump(k, 2, bucket, 0);
      return ++k.total;
    case 'average': {
      bump(k, 3, bucket, value);
      k.total++;
      return mean(k);
    }
    default:
      return addDistinct(shape, k, bucket, value);
  }
}

/** The mean of an average key's window, summed from its buckets (no running sum to drift). */
function mean(k: WindowKey): number {
  const b = k.buckets;
  let sum = 0;
  for (let i = 2; i < b.length; i += 3) sum += b[i]!;
  return k.total === 0 ? 0 : sum / k.total;
}

function addDistinct(shape: WindowShape, k: WindowKey, bucket: number, hash: number): number {
  if (k.hll !== null) {
    k.hll.add(hash, bucket);
    return Math.round(k.hll.estimate(bucket));
  }
  const oldest = bucket - shape.n;
  const seen = lastSeen(k, hash);
  if (seen > oldest) {
    if (seen === bucket) return k.total;
    // Seen earlier in the window: it moves to the current bucket.
    const b = k.buckets;
    for (let i = b.length - 2; i >= 0; i -= 2) {
      if (b[i] === seen) {
        b[i + 1]!--;
        break;
      }
    }
  } else k.total++;
  bump(k, 2, bucket, 0);
  remember(shape, k, hash, bucket);
  return k.total > shape.exactDistinct ? toHll(shape, k, bucket) : k.total;
}

function lastSeen(k: WindowKey, hash: number): number {
  if (k.set !== null) return k.set.get(hash);
  const small = k.small;
  if (small !== null) for (let i = 0; i < small.length; i += 2) if (small[i] === hash) return small[i + 1]!;
  return -Infinity;
}

function remember(shape: WindowShape, k: WindowKey, hash: number, bucket: number): void {
  const oldest = bucket - shape.n;
  if (k.set !== null) {
    k.set.set(hash, bucket);
    if (k.set.size > 2 * k.total + 64) k.set.prune(oldest + 1);
    return;
  }
  const small = k.small;
  if (small === null) {
    k.small = [hash, bucket];
    return;
  }
  for (let i = 0; i < small.length; i += 2) {
    if (small[i] === hash || small[i + 1]! <= oldest) {
      small[i] = hash;
      small[i + 1] = bucket;
      return;
    }
  }
  if (small.length < SMALL_SET * 2) {
    small.push(hash, bucket);
    return;
  }
  const set = new ExactSet(64);
  for (let i = 0; i < small.length; i += 2) set.set(small[i]!, small[i + 1]!);
  set.set(hash, bucket);
  k.set = set;
  k.small = null;
}

/** Every (hash, bucket) a distinct key remembers, stale ones included. */
export function distinctEntries(k: WindowKey, fn: (hash: number, bucket: number) => void): void {
  if (k.set !== null) k.set.forEach(fn);
  else if (k.small !== null) for (let i = 0; i < k.small.length; i += 2) fn(k.small[i]!, k.small[i + 1]!);
}

/** Restores a distinct key's remembered values (snapshot). */
export function rememberAll(shape: WindowShape, k: WindowKey, entries: readonly number[]): void {
  for (let i = 0; i + 1 < entries.length; i += 2) {
    if (entries[i]! > 0) remember(shape, k, entries[i]!, entries[i + 1]!);
  }
}

/** Past `exactDistinct` values the key's set becomes a sliding HyperLogLog holding the same values. */
function toHll(shape: WindowShape, k: WindowKey, bucket: number): number {
  const hll = new SlidingHll(shape.n);
  const oldest = bucket - shape.n;
  // Oldest first, so each register's list of candidate maxima is built in time order.
  const live: [number, number][] = [];
  distinctEntries(k, (h, b) => {
    if (b > oldest) live.push([h, b]);
  });
  live.sort((x, y) => x[1] - y[1]);
  if (live.length > 0) hll.bucket = live[0]![1];
  for (const [h, b] of live) hll.add(h, b);
  k.hll = hll;
  k.set = null;
  k.small = null;
  k.buckets.length = 0;
  k.total = 0;
  return Math.round(hll.estimate(bucket));
}
