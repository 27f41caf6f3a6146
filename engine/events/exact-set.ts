/**
 * The exact part of a distinct count: value hash -> the newest bucket it was seen in, as an
 * open-addressing table (linear probing) over typed arrays, about 10 bytes a slot. Entries whose
 * bucket has left the window are stale: they are skipped by the caller's accounting and dropped
 * when the table is rebuilt.
 */
export class ExactSet {
  private keys: Float64Array;
  private buckets: Float64Array;
  /** Entries in the table, stale ones included. */
  size = 0;

  constructor(capacity = 8) {
    this.keys = new Float64Array(capacity);
    this.buckets = new Float64Array(capacity);
  }

  get capacity(): number {
    return this.keys.length;
  }

  /** The bucket `hash` was last seen in, or -Infinity. */
  get(hash: number): number {
    const keys = this.keys;
    const mask = keys.length - 1;
    let i = mix(hash) & mask;
    for (;;) {
      const k = keys[i];
      if (k === hash) return this.buckets[i]!;
      if (k === 0) return -Infinity;
      i = (i + 1) & mask;
    }
  }

  set(hash: number, bucket: number): void {
    if ((this.size + 1) * 4 > this.keys.length * 3) this.resize(this.keys.length * 2);
    const keys = this.keys;
    const mask = keys.length - 1;
    let i = mix(hash) & mask;
    for (;;) {
      const k = keys[i];
      if (k === hash) {
        this.buckets[i] = bucket;
        return;
      }
      if (k === 0) {
        keys[i] = hash;
        this.buckets[i] = bucket;
        this.size++;
        return;
      }
      i = (i + 1) & mask;
    }
  }

  /** Calls `fn` for every entry, stale ones included. */
  forEach(fn: (hash: number, bucket: number) => void): void {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] ?? 0;
      if (k !== 0) fn(k, this.buckets[i] ?? 0);
    }
  }

  /** Keeps only entries seen in `minBucket` or later, in a table sized for them (half full at most). */
  prune(minBucket: number): void {
    const live: number[] = [];
    this.forEach((h, b) => {
      if (b >= minBucket) live.push(h, b);
    });
    let capacity = 8;
    while (capacity * 3 < (live.length / 2) * 4 * 2) capacity *= 2;
    this.keys = new Float64Array(capacity);
    this.buckets = new Float64Array(capacity);
    this.size = 0;
    for (let i = 0; i < live.length; i += 2) this.set(live[i] ?? 0, live[i + 1] ?? 0);
  }

  private resize(capacity: number): void {
    const oldKeys = this.keys;
    const oldBuckets = this.buckets;
    this.keys = new Float64Array(capacity);
    this.buckets = new Float64Array(capacity);
    this.size = 0;
    for (let i = 0; i < oldKeys.length; i++) {
      const k = oldKeys[i] ?? 0;
      if (k !== 0) this.set(k, oldBuckets[i] ?? 0);
    }
  }
}

/** The slot of a hash53: its low 21 bits mixed with the high ones (both are already well mixed). */
const mix = (hash: number): number => (hash % 0x200000) ^ (Math.floor(hash / 0x200000) >>> 11);
