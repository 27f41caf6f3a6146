import { highBits, lowBits } from '#engine/shared';

/** 2^12 registers: a standard error of 1.04 / sqrt(4096), about 1.6 %. */
export const HLL_PRECISION = 12;
const M = 1 << HLL_PRECISION;
/** Candidates kept per register (see README: more than 4 strictly decreasing maxima is rare). */
const SLOTS = 4;
const ALPHA = 0.7213 / (1 + 1.079 / M);
/** Bucket numbers are kept modulo 1024 in 10 bits: fine while a window has at most 64 buckets. */
const AGE_MASK = 0x3ff;
const RHO_BITS = 6;
const RHO_MASK = (1 << RHO_BITS) - 1;
/** rho is taken from 21 hash bits, so it is at most 22. */
const MAX_RHO = 22;

const POW = Float64Array.from({ length: MAX_RHO + 2 }, (_, i) => 2 ** -i);

/**
 * A HyperLogLog over a sliding window of buckets (after Chabchoub and Hebrail's sliding HLL): each
 * register keeps its "list of possible future maxima", entries (bucket, rho) in time order with
 * strictly decreasing rho, so when the oldest maximum leaves the window the next one takes over and
 * the estimate stays exact to the bucket. An entry packs the bucket (mod 1024) and rho in 16 bits:
 * 4,096 registers x 4 entries = 32 KB.
 *
 * The estimate is kept up to date incrementally (the harmonic sum and the count of empty registers)
 * and recomputed in full only when the current bucket moves on, at most once per bucket.
 */
export class SlidingHll {
  readonly entries = new Uint16Array(M * SLOTS);
  /** The bucket the incremental sums are up to date for. */
  bucket = -Infinity;
  private sum = M;
  private zeros = M;

  constructor(private readonly windowBuckets: number) {}

  add(hash: number, bucket: number): void {
    if (bucket !== this.bucket) this.advance(bucket);
    const index = highBits(hash) >>> (32 - HLL_PRECISION);
    const low = lowBits(hash);
    const rho = low === 0 ? MAX_RHO : Math.clz32(low) - 10;
    const base = index * SLOTS;
    const entries = this.entries;
    const before = entries[base] ?? 0;
    // Drop the tail entries this one outlives with a rho at least as large.
    let length = SLOTS;
    while (length > 0 && (entries[base + length - 1] ?? 0) === 0) length--;
    while (length > 0 && ((entries[base + length - 1] ?? 0) & RHO_MASK) <= rho) entries[base + --length] = 0;
    const packed = ((bucket & AGE_MASK) << RHO_BITS) | rho;
    // A full list (5 strictly decreasing maxima, rare) gives up its youngest candidate.
    entries[base + (length === SLOTS ? SLOTS - 1 : length)] = packed;
    const after = entries[base] ?? 0;
    if (after !== before) this.change(before & RHO_MASK, after & RHO_MASK);
  }

  /** The estimated number of distinct values in the window ending at `bucket`. */
  estimate(bucket: number): number {
    if (bucket !== this.bucket) this.advance(bucket);
    const raw = (ALPHA * M * M) / this.sum;
    if (raw <= 2.5 * M && this.zeros > 0) return M * Math.log(M / this.zeros);
    return raw;
  }

  /** Drops entries whose bucket has left the window ending at `bucket`, then recomputes the sums. */
  private advance(bucket: number): void {
    const entries = this.entries;
    if (bucket - this.bucket >= this.windowBuckets || bucket < this.bucket) entries.fill(0);
    else {
      for (let base = 0; base < entries.length; base += SLOTS) {
        let drop = 0;
        while (drop < SLOTS) {
          const e = entries[base + drop] ?? 0;
          if (e === 0 || ((bucket - (e >>> RHO_BITS)) & AGE_MASK) < this.windowBuckets) break;
          drop++;
        }
        if (drop > 0) {
          for (let i = 0; i < SLOTS; i++) entries[base + i] = i + drop < SLOTS ? (entries[base + i + drop] ?? 0) : 0;
        }
      }
    }
    this.bucket = bucket;
    this.recompute();
  }

  private recompute(): void {
    const entries = this.entries;
    let sum = 0;
    let zeros = 0;
    for (let base = 0; base < entries.length; base += SLOTS) {
      const rho = (entries[base] ?? 0) & RHO_MASK;
      sum += POW[rho] ?? 0;
      if (rho === 0) zeros++;
    }
    this.sum = sum;
    this.zeros = zeros;
  }

  private change(from: number, to: number): void {
    this.sum += (POW[to] ?? 0) - (POW[from] ?? 0);
    if (from === 0) this.zeros--;
    if (to === 0) this.zeros++;
  }

  /** The registers as base64 (snapshot). */
  save(): string {
    return Buffer.from(this.entries.buffer, this.entries.byteOffset, this.entries.byteLength).toString('base64');
  }

  /** Registers saved by `save` when the sums were up to date for `bucket`; null if they do not fit. */
  static load(windowBuckets: number, bucket: number, text: string): SlidingHll | null {
    const bytes = Buffer.from(text, 'base64');
    const hll = new SlidingHll(windowBuckets);
    if (bytes.length !== hll.entries.byteLength || !Number.isFinite(bucket)) return null;
    new Uint8Array(hll.entries.buffer).set(bytes);
    hll.bucket = bucket;
    hll.recompute();
    return hll;
  }
}
