// A bounded cache that keeps recently used entries, in two generations: entries are added to the
// young map; when it is full it becomes the old map (the previous old map is dropped) and a new
// young map starts; a hit in the old map moves the entry to the young one. A hit in the young map,
// the common case, is a single Map lookup, where an exact LRU on a Map pays a delete and a set on
// every hit. An entry used within the last `capacity / 2` insertions is never evicted; at most
// `capacity` entries are held.

export class Lru<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly generation: number;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('LRU capacity must be a positive integer');
    this.generation = Math.ceil(capacity / 2);
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) {
      this.old.delete(key);
      this.add(key, aged);
    }
    return aged;
  }

  set(key: K, value: V): void {
    if (this.young.has(key)) {
      this.young.set(key, value);
      return;
    }
    this.old.delete(key);
    this.add(key, value);
  }

  private add(key: K, value: V): void {
    if (this.young.size >= this.generation) {
      this.old = this.young;
      this.young = new Map();
    }
    // Two full generations can exceed an odd capacity by one: the oldest old entry makes room.
    while (this.young.size + this.old.size >= this.capacity && this.old.size > 0) {
      this.old.delete(this.old.keys().next().value as K);
    }
    this.young.set(key, value);
  }
}
