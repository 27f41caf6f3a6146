import type { KeyTarget } from './types.ts';

/** What a slab needs of its members: their key and eviction counters. */
export interface SlabMember {
  keys: number;
  evictions: number;
}

/** Hears of a slot before its state changes or it is released (a snapshot being taken in slices). */
export interface SlabWatcher {
  touch(slot: number): void;
}

/** A member's region in a slot: its first number says what the member holds for the key. */
export const EMPTY = 0;
/** The state is in the region itself (small keys: the common case). */
export const INLINE = 1;
/** The state is an object in `objects[member][slot]` (distinct keys past the inline capacity, CEP runs). */
export const OBJECT = 2;
/** The state is a ring of per-bucket numbers in the member's pool (count and average keys past the inline capacity). */
export const RING = 3;

/**
 * Fixed-size blocks of numbers (one per key that needs one) in one growing Float64Array, with a
 * free list: a busy key's window is one more cache line away, with no object to collect.
 */
export class RingPool {
  data: Float64Array;
  private readonly free: number[] = [];
  private used = 0;

  constructor(readonly size: number) {
    this.data = new Float64Array(size * 64);
  }

  /** A zeroed block; returns its index. May move `data`. */
  take(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    if ((this.used + 1) * this.size > this.data.length) {
      const data = new Float64Array(this.data.length * 2);
      data.set(this.data);
      this.data = data;
    }
    return this.used++;
  }

  give(index: number): void {
    this.data.fill(0, index * this.size, (index + 1) * this.size);
    this.free.push(index);
  }
}

/** Entries a key's bucket list has room for at first; a list that needs more moves to one with room for the whole window. */
export const SMALL_LIST = 16;

/** A count or average member's bucket lists: `step` numbers an entry, small ones first, then room for `room` (the window's buckets). */
export class ListPools {
  readonly small: RingPool;
  readonly large: RingPool;

  constructor(
    readonly step: number,
    readonly room: number,
  ) {
    this.small = new RingPool(step * Math.min(room, SMALL_LIST));
    this.large = room > SMALL_LIST ? new RingPool(step * room) : this.small;
  }

  /** The pool of lists with room for `room` entries. */
  of(room: number): RingPool {
    return room > SMALL_LIST ? this.large : this.small;
  }
}

const INITIAL_SLOTS = 1024;
/**
 * Every slot's block opens with a header: the slot's recency stamp, then its key when the key is
 * short enough to pack (`KEY_CHARS` code units below 256, six to a number: exact in a double),
 * else -1. A lookup then compares the key with numbers in the block the record's state is read
 * from next, instead of reading a string elsewhere in the heap (two more cache misses a key).
 */
const STAMP = 0;
const KEY_LENGTH = 1;
const KEY_WORDS = 3;
const KEY_CHARS = 6 * KEY_WORDS;
const HEADER = 2 + KEY_WORDS;
/** Where a region in RING mode keeps its list's index in its pool, and the list's room. */
export const RING_INDEX = 4;
export const RING_ROOM = 8;

/**
 * The stateful events that group records by one trigger object (ip, device, ...) share one slab: a
 * key -> slot table, and for each slot one contiguous block of numbers holding every member's state
 * side by side (`stride` numbers, the member's region at `offsets[member]`). A record then costs one
 * key lookup per trigger object, and its states sit in a few adjacent cache lines instead of behind
 * three or four pointers per event. A state too large for its region moves to a ring or an object.
 *
 * The key table is open addressing over typed arrays (linear probing, backward-shift deletion) with
 * the keys' 32-bit hashes beside the slots, so a lookup is one probe and one string comparison
 * (a JavaScript Map measured twice as slow here on fresh strings, and its delete + set to keep
 * recency costs two more). Recency is a doubly linked list of slots; a key is moved to its young end
 * only when touched in the older half, so a hot key costs no list update, and a key touched within
 * the last `capacity / 2` additions is never evicted (approximate LRU, as engine/shared's Lru). At
 * most `capacity` keys (maxKeysPerEvent) are held, so no member holds more; evicting a key evicts
 * it for every member (counted per member).
 */
export class KeySlab<M extends SlabMember> {
  /** The key of each slot ('' when free). */
  readonly keyOf: string[] = [];
  data: Float64Array;
  readonly objects: unknown[][];
  /** Per member: its bucket lists (count and average events), else null. */
  readonly pools: (ListPools | null)[];
  readonly offsets: Int32Array;
  readonly stride: number;
  /** Slots `data` has room for. */
  private slots: number;
  /** The key being looked up, packed as in a header (`packKey`); [0] -1 when it does not pack. */
  private readonly probe = new Float64Array(1 + KEY_WORDS);
  private older: Int32Array;
  private younger: Int32Array;
  /** Oldest and youngest slot (-1: none). */
  private oldest = -1;
  private youngest = -1;
  /**
   * Open-addressing table of (slot + 1, the key's hash) pairs side by side (0 = empty), so a probe
   * reads one cache line; `mask` is over entries, not numbers.
   */
  private table: Int32Array;
  private mask: number;
  private count = 0;
  private readonly free: number[] = [];
  private seq = 0;
  private readonly half: number;
  /** Told of each slot before it changes or goes (set while a snapshot is taken in slices), else null. */
  watcher: SlabWatcher | null = null;

  constructor(
    readonly object: KeyTarget,
    readonly capacity: number,
    public members: M[],
    regionSize: (member: M) => number,
    listPools: (member: M) => ListPools | null,
  ) {
    this.half = Math.max(1, Math.floor(capacity / 2));
    this.offsets = new Int32Array(members.length);
    let stride = HEADER;
    members.forEach((rt, i) => {
      this.offsets[i] = stride;
      stride += regionSize(rt);
    });
    this.stride = stride;
    const slots = Math.min(INITIAL_SLOTS, capacity);
    this.data = new Float64Array(slots * stride);
    this.slots = slots;
    this.older = new Int32Array(slots);
    this.younger = new Int32Array(slots);
    this.table = new Int32Array(2 * tableSize(slots));
    this.mask = tableSize(slots) - 1;
    this.objects = members.map(() => []);
    this.pools = members.map(listPools);
  }

  get size(): number {
    return this.count;
  }

  /** The slots holding keys, least recently used first. */
  slotsByAge(): Int32Array {
    const slots = new Int32Array(this.count);
    let i = 0;
    for (let slot = this.oldest; slot !== -1; slot = this.younger[slot]!) slots[i++] = slot;
    return slots;
  }

  /** Slots there is room for (every slot number is below it). */
  get slotCount(): number {
    return this.slots;
  }

  /** Every key and its slot, least recently used first. */
  *entries(): IterableIterator<[string, number]> {
    for (let slot = this.oldest; slot !== -1; slot = this.younger[slot]!) yield [this.keyOf[slot]!, slot];
  }

  /** The slot of `key`, touched (recently used); -1 when the key has none. `hash`: the key's `hashKey`. */
  find(key: string, hash = hashKey(key)): number {
    const slot = this.lookup(key, hash);
    if (slot !== -1 && this.seq - this.data[slot * this.stride + STAMP]! > this.half) {
      this.unlink(slot);
      this.link(slot);
    }
    return slot;
  }

  /** The slot of `key`, made (empty) when it has none, evicting the least recently used key when full. May move `data`. */
  create(key: string, hash = hashKey(key)): number {
    const existing = this.lookup(key, hash);
    return existing !== -1 ? existing : this.insert(key, hash);
  }

  private insert(key: string, hash: number): number {
    while (this.count >= this.capacity && this.oldest !== -1) this.release(this.oldest, true);
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.keyOf.length;
      if (slot >= this.slots) this.grow();
      this.keyOf.push(key);
    } else this.keyOf[slot] = key;
    // `lookup` just packed this key into the probe.
    this.data.set(this.probe, slot * this.stride + KEY_LENGTH);
    let p = hash & this.mask;
    while (this.table[2 * p] !== 0) p = (p + 1) & this.mask;
    this.table[2 * p] = slot + 1;
    this.table[2 * p + 1] = hash;
    this.count++;
    this.link(slot);
    return slot;
  }

  /** Drops a slot and its key; counted as an eviction for the members that held state. */
  release(slot: number, evicted: boolean): void {
    const key = this.keyOf[slot];
    if (key === undefined || key === '') return;
    this.watcher?.touch(slot);
    const data = this.data;
    const base = slot * this.stride;
    for (let m = 0; m < this.members.length; m++) {
      if (data[base + this.offsets[m]!] === EMPTY) continue;
      const rt = this.members[m]!;
      rt.keys--;
      if (evicted) rt.evictions++;
      this.clearMember(m, slot);
    }
    this.remove(key, slot);
    this.unlink(slot);
    this.keyOf[slot] = '';
    this.count--;
    this.free.push(slot);
  }

  /** Empties one member's region of a slot (the caller counts the key). */
  clearMember(member: number, slot: number): void {
    const at = slot * this.stride + this.offsets[member]!;
    if (this.data[at] === RING) this.pools[member]!.of(this.data[at + RING_ROOM]!).give(this.data[at + RING_INDEX]!);
    this.data.fill(0, at, at + this.regionEnd(member));
    const objects = this.objects[member]!;
    if (slot < objects.length) objects[slot] = undefined;
  }

  /** Whether a slot holds no state for any member. */
  emptySlot(slot: number): boolean {
    const base = slot * this.stride;
    for (let m = 0; m < this.members.length; m++) if (this.data[base + this.offsets[m]!] !== EMPTY) return false;
    return true;
  }

  private regionEnd(member: number): number {
    const next = member + 1 < this.members.length ? this.offsets[member + 1]! : this.stride;
    return next - this.offsets[member]!;
  }

  private lookup(key: string, hash: number): number {
    const table = this.table;
    const mask = this.mask;
    const probe = this.probe;
    const packed = packKey(key, probe);
    let p = hash & mask;
    for (;;) {
      const entry = table[2 * p]!;
      if (entry === 0) return -1;
      if (table[2 * p + 1] === hash) {
        const slot = entry - 1;
        if (packed) {
          const data = this.data;
          const at = slot * this.stride + KEY_LENGTH;
          if (
            data[at] === probe[0] &&
            data[at + 1] === probe[1] &&
            data[at + 2] === probe[2] &&
            data[at + 3] === probe[3]
          )
            return slot;
        } else if (this.keyOf[slot] === key) return slot;
      }
      p = (p + 1) & mask;
    }
  }

  /** Takes a slot out of the table, shifting back the entries after it that probed past it. */
  private remove(key: string, slot: number): void {
    const table = this.table;
    const mask = this.mask;
    let p = hashKey(key) & mask;
    while (table[2 * p] !== slot + 1) {
      if (table[2 * p] === 0) return;
      p = (p + 1) & mask;
    }
    let hole = p;
    for (let q = (p + 1) & mask; table[2 * q] !== 0; q = (q + 1) & mask) {
      const home = table[2 * q + 1]! & mask;
      // The entry at q may fill the hole unless its home lies cyclically in (hole, q].
      if (((q - home) & mask) >= ((q - hole) & mask)) {
        table[2 * hole] = table[2 * q]!;
        table[2 * hole + 1] = table[2 * q + 1]!;
        hole = q;
      }
    }
    table[2 * hole] = 0;
  }

  /** Makes a slot the youngest. */
  private link(slot: number): void {
    this.data[slot * this.stride + STAMP] = ++this.seq;
    this.older[slot] = this.youngest;
    this.younger[slot] = -1;
    if (this.youngest !== -1) this.younger[this.youngest] = slot;
    else this.oldest = slot;
    this.youngest = slot;
  }

  private unlink(slot: number): void {
    const older = this.older[slot]!;
    const younger = this.younger[slot]!;
    if (older !== -1) this.younger[older] = younger;
    else this.oldest = younger;
    if (younger !== -1) this.older[younger] = older;
    else this.youngest = older;
  }

  private grow(): void {
    const slots = Math.min(this.capacity, this.slots * 2);
    const data = new Float64Array(slots * this.stride);
    data.set(this.data);
    this.data = data;
    for (const name of ['older', 'younger'] as const) {
      const next = new Int32Array(slots);
      next.set(this[name]);
      this[name] = next;
    }
    this.slots = slots;
    if (tableSize(slots) > this.mask + 1) this.rehash(tableSize(slots));
  }

  private rehash(size: number): void {
    const table = new Int32Array(2 * size);
    const mask = size - 1;
    for (let p = 0; p <= this.mask; p++) {
      const entry = this.table[2 * p]!;
      if (entry === 0) continue;
      const hash = this.table[2 * p + 1]!;
      let q = hash & mask;
      while (table[2 * q] !== 0) q = (q + 1) & mask;
      table[2 * q] = entry;
      table[2 * q + 1] = hash;
    }
    this.table = table;
    this.mask = mask;
  }
}

/** The table for `slots` slots: a power of two at least twice as large (at most half full). */
function tableSize(slots: number): number {
  let size = 16;
  while (size < slots * 2) size *= 2;
  return size;
}

/** FNV-1a over the UTF-16 code units, finished with MurmurHash3's avalanche step. */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h | 0;
}

/**
 * Packs a key into `into` as a slot header holds it: [length, then six code units to a number]
 * when it has at most KEY_CHARS code units all below 256 (addresses, fingerprints, most user
 * names); else [-1] and false. Equal packings mean equal keys.
 */
function packKey(key: string, into: Float64Array): boolean {
  const length = key.length;
  if (length > KEY_CHARS) {
    into[0] = -1;
    return false;
  }
  into[0] = length;
  for (let w = 0; w < KEY_WORDS; w++) {
    let lo = 0;
    let hi = 0;
    const start = w * 6;
    for (let i = 0; i < 3; i++) {
      const a = start + i;
      const b = start + 3 + i;
      const ca = a < length ? key.charCodeAt(a) : 0;
      const cb = b < length ? key.charCodeAt(b) : 0;
      if ((ca | cb) > 255) {
        into[0] = -1;
        return false;
      }
      lo |= ca << (8 * i);
      hi |= cb << (8 * i);
    }
    into[1 + w] = hi * 16_777_216 + lo;
  }
  return true;
}
