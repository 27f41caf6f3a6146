/** What a key table holds: anything with the LRU stamp the table maintains. */
export interface Keyed {
  /** The table's sequence number when the entry was last added or moved to the young end. */
  seq: number;
}

/**
 * A map trigger-object value -> entry, bounded to `capacity` entries. A Map keeps insertion order,
 * so its first entry is the least recently moved one; an entry is moved to the young end (delete +
 * set) only when it is touched in the older half, so a hot key costs one lookup and an entry touched
 * within the last `capacity / 2` additions is never evicted (approximate LRU, as engine/shared's
 * Lru, but with deletion, iteration and an eviction hook).
 */
export class KeyTable<S extends Keyed> {
  readonly map = new Map<string, S>();
  private seq = 0;
  private readonly half: number;

  constructor(
    readonly capacity: number,
    private readonly onEvict: (entry: S) => void = () => {},
  ) {
    this.half = Math.max(1, Math.floor(capacity / 2));
  }

  get size(): number {
    return this.map.size;
  }

  /** The entry of `key`, touched (recently used). */
  get(key: string): S | undefined {
    const entry = this.map.get(key);
    if (entry !== undefined && this.seq - entry.seq > this.half) {
      this.map.delete(key);
      this.map.set(key, entry);
      entry.seq = ++this.seq;
    }
    return entry;
  }

  /** The entry of `key` without touching it. */
  peek(key: string): S | undefined {
    return this.map.get(key);
  }

  /** Adds a key that is not present, evicting the least recently used ones while full. */
  add(key: string, entry: S): void {
    while (this.map.size >= this.capacity) {
      const oldest = this.map.entries().next();
      if (oldest.done === true) break;
      this.map.delete(oldest.value[0]);
      this.onEvict(oldest.value[1]);
    }
    entry.seq = ++this.seq;
    this.map.set(key, entry);
  }

  delete(key: string): void {
    this.map.delete(key);
  }
}
