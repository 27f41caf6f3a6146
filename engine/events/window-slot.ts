import { CepKey } from './cep.ts';
import type { EventSlab, StatefulRuntime, WindowRuntime } from './runtime.ts';
import { EMPTY, INLINE, ListPools, OBJECT, RING, RING_INDEX, RING_ROOM, SMALL_LIST } from './slab.ts';
import { addRecord, bucketOf, distinctEntries, WindowKey, type WindowShape } from './window.ts';

/**
 * A stateful event's region in a slab slot. Window events (most keys are small):
 *
 *   [0] EMPTY / INLINE / RING / OBJECT   [1] mute   [2] last   [3] total   [4] n or list index   [5...]
 *
 * INLINE count: n (bucket, count) pairs from [5], at most 8; average: n (bucket, count, sum)
 * triples, at most 6; distinct: n (hash, bucket) pairs, each value with the newest bucket it was
 * seen in, at most 16 (the distinct count is the entries still in the window). These sizes keep a
 * typical key inline: an address seen every few seconds to minutes has a handful of buckets in a
 * one-minute window and a dozen distinct paths in five minutes, and scanning 16 pairs in a block
 * costs less than the object and arrays (several cache misses) it would move to. A count or average
 * key that needs more buckets moves to a RING: a circular list of its non-empty buckets in its
 * member's pool (`[4]` its index, `[5]` head, `[6]` length, `[7]` an average's running sum, `[8]`
 * its room: 16 entries, then the window's bucket count). A distinct key that needs more values moves to a WindowKey OBJECT
 * (window.ts: exact set, then HyperLogLog). Both go back to the region when the key fires or its
 * window empties; the region keeps mute and last in step.
 *
 * CEP events: `[0] EMPTY / OBJECT  [1] latch  [2] newest run start  [3] run numbers`, the runs in a
 * CepKey object. So `sweepSlab` and the latch reads of combined events touch only the numbers.
 */
const MUTE = 1;
const LAST = 2;
const TOTAL = 3;
const N = 4;
const ENTRIES = 5;
const COUNT_ENTRIES = 8;
const AVERAGE_ENTRIES = 6;
const DISTINCT_ENTRIES = 16;

/** The bucket-list pools of a count or average event (null for the others). */
export function listPools(rt: StatefulRuntime): ListPools | null {
  if (rt.kind === 'count') return new ListPools(2, rt.shape.n);
  return rt.kind === 'average' ? new ListPools(3, rt.shape.n) : null;
}

export function regionSize(rt: StatefulRuntime): number {
  switch (rt.kind) {
    case 'count':
      return ENTRIES + 2 * COUNT_ENTRIES;
    case 'average':
      return ENTRIES + 3 * AVERAGE_ENTRIES;
    // (a RING region uses [4] to [8]: both are larger)
    case 'distinct':
      return ENTRIES + 2 * DISTINCT_ENTRIES;
    default:
      return 4;
  }
}

const baseOf = (slab: EventSlab, member: number, slot: number): number => slot * slab.stride + slab.offsets[member]!;

/**
 * Adds one record to a key of a window event (`value`: the number for average, the hash53 for
 * distinct) and returns the statistic over the window ending at `bucket`.
 */
export function addToSlot(
  rt: WindowRuntime,
  slab: EventSlab,
  member: number,
  slot: number,
  bucket: number,
  value: number,
): number {
  const shape = rt.shape;
  const data = slab.data;
  const base = baseOf(slab, member, slot);
  const mode = data[base];
  if (mode === RING) {
    if (data[base + LAST]! > bucket - shape.n) return addRing(shape, slab, member, base, bucket, value);
    toRegion(slab, member, slot, data[base + MUTE]!);
  } else if (mode === OBJECT) {
    const k = slab.objects[member]![slot] as WindowKey;
    if (k.last > bucket - shape.n) {
      data[base + LAST] = bucket;
      return addRecord(shape, k, bucket, value);
    }
    // Its window emptied: back to the region (keeping the mute).
    toRegion(slab, member, slot, k.mute);
  } else if (mode === EMPTY) {
    data[base] = INLINE;
    data[base + MUTE] = -Infinity;
    data[base + LAST] = -Infinity;
    data[base + TOTAL] = 0;
    data[base + N] = 0;
    rt.keys++;
  }
  const stat =
    shape.kind === 'distinct'
      ? addDistinct(shape, data, base, bucket, value)
      : addWindow(shape, data, base, bucket, value);
  if (stat === stat) return stat;
  if (shape.kind !== 'distinct') {
    toRing(shape, slab, member, base);
    return addRing(shape, slab, member, base, bucket, value);
  }
  const k = toObject(shape, data, base);
  data[base] = OBJECT;
  data[base + LAST] = bucket;
  setObject(slab, member, slot, k);
  return addRecord(shape, k, bucket, value);
}

/** Count / average in the region; NaN (nothing added) when it has no room for a new bucket. */
function addWindow(shape: WindowShape, data: Float64Array, base: number, bucket: number, value: number): number {
  const average = shape.kind === 'average';
  const step = average ? 3 : 2;
  const oldest = bucket - shape.n;
  let n = data[base + N]!;
  if (data[base + LAST]! <= oldest) {
    n = 0;
    data[base + TOTAL] = 0;
  } else if (n > 0 && data[base + ENTRIES]! <= oldest) {
    let drop = 0;
    let total = data[base + TOTAL]!;
    while (drop < n && data[base + ENTRIES + drop * step]! <= oldest) {
      total -= data[base + ENTRIES + drop * step + 1]!;
      drop++;
    }
    data.copyWithin(base + ENTRIES, base + ENTRIES + drop * step, base + ENTRIES + n * step);
    n -= drop;
    data[base + TOTAL] = total;
  }
  const lastEntry = base + ENTRIES + (n - 1) * step;
  if (n > 0 && data[lastEntry] === bucket) {
    data[lastEntry + 1]!++;
    if (average) data[lastEntry + 2]! += value;
  } else if (n < (average ? AVERAGE_ENTRIES : COUNT_ENTRIES)) {
    const at = base + ENTRIES + n * step;
    data[at] = bucket;
    data[at + 1] = 1;
    if (average) data[at + 2] = value;
    n++;
  } else {
    data[base + N] = n;
    return NaN;
  }
  data[base + N] = n;
  data[base + LAST] = bucket;
  const total = ++data[base + TOTAL]!;
  if (!average) return total;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += data[base + ENTRIES + i * 3 + 2]!;
  return sum / total;
}

/** Where a RING region keeps the list's first entry, its length and (average) the running sum. */
const HEAD = 5;
const LENGTH = 6;
const SUM = 7;

/** Moves a count / average region's entries (all in the window) to a new small list in the member's pool. */
function toRing(shape: WindowShape, slab: EventSlab, member: number, base: number): void {
  const room = Math.min(shape.n, SMALL_LIST);
  const pool = slab.pools[member]!.of(room);
  const index = pool.take();
  const data = slab.data;
  const step = shape.kind === 'average' ? 3 : 2;
  const n = data[base + N]!;
  const start = index * pool.size;
  let sum = 0;
  for (let i = 0; i < n * step; i++) pool.data[start + i] = data[base + ENTRIES + i]!;
  if (step === 3) for (let i = 0; i < n; i++) sum += data[base + ENTRIES + i * 3 + 2]!;
  data[base] = RING;
  data[base + RING_INDEX] = index;
  data[base + RING_ROOM] = room;
  data[base + HEAD] = 0;
  data[base + LENGTH] = n;
  data[base + SUM] = sum;
}

/** A full small list moves to one with room for the whole window (entries unwrapped, oldest first). */
function growRing(shape: WindowShape, slab: EventSlab, member: number, base: number): void {
  const data = slab.data;
  const pools = slab.pools[member]!;
  const entries = ringEntries(shape, slab, member, base);
  pools.of(data[base + RING_ROOM]!).give(data[base + RING_INDEX]!);
  const pool = pools.of(shape.n);
  const index = pool.take();
  pool.data.set(entries, index * pool.size);
  data[base + RING_INDEX] = index;
  data[base + RING_ROOM] = shape.n;
  data[base + HEAD] = 0;
}

/**
 * Count / average in the pool: the key's non-empty buckets as a circular list, oldest first, with
 * room for every bucket of the window. A record drops the entries that left the window from the
 * head and adds to (or appends) the tail: it touches those entries only. An average's running sum
 * is summed again from the list whenever an entry leaves, so rounding errors do not build up.
 */
function addRing(
  shape: WindowShape,
  slab: EventSlab,
  member: number,
  base: number,
  bucket: number,
  value: number,
): number {
  const data = slab.data;
  const average = shape.kind === 'average';
  const step = average ? 3 : 2;
  const oldest = bucket - shape.n;
  let pool = slab.pools[member]!.of(data[base + RING_ROOM]!);
  let list = pool.data;
  let start = data[base + RING_INDEX]! * pool.size;
  let room = data[base + RING_ROOM]!;
  let head = data[base + HEAD]!;
  let length = data[base + LENGTH]!;
  let total = data[base + TOTAL]!;
  let dropped = false;
  while (length > 0 && list[start + head * step]! <= oldest) {
    total -= list[start + head * step + 1]!;
    head = head + 1 === room ? 0 : head + 1;
    length--;
    dropped = true;
  }
  let tail = head + length - 1;
  if (tail >= room) tail -= room;
  if (length > 0 && list[start + tail * step] === bucket) list[start + tail * step + 1]!++;
  else {
    if (length === room) {
      data[base + HEAD] = head;
      data[base + LENGTH] = length;
      growRing(shape, slab, member, base);
      pool = slab.pools[member]!.of(shape.n);
      list = pool.data;
      start = data[base + RING_INDEX]! * pool.size;
      room = shape.n;
      head = 0;
      tail = length - 1;
    }
    tail = length === 0 ? head : tail + 1 === room ? 0 : tail + 1;
    list[start + tail * step] = bucket;
    list[start + tail * step + 1] = 1;
    if (average) list[start + tail * step + 2] = 0;
    length++;
  }
  data[base + HEAD] = head;
  data[base + LENGTH] = length;
  data[base + TOTAL] = ++total;
  data[base + LAST] = bucket;
  if (!average) return total;
  list[start + tail * step + 2]! += value;
  let sum = data[base + SUM]! + value;
  if (dropped) {
    sum = 0;
    for (let i = 0, at = head; i < length; i++, at = at + 1 === room ? 0 : at + 1) sum += list[start + at * 3 + 2]!;
  }
  data[base + SUM] = sum;
  return sum / total;
}

/** The pool list of a RING region as flat (bucket, count[, sum]) entries, oldest first. */
function ringEntries(shape: WindowShape, slab: EventSlab, member: number, base: number): number[] {
  const room = slab.data[base + RING_ROOM]!;
  const pool = slab.pools[member]!.of(room);
  const start = slab.data[base + RING_INDEX]! * pool.size;
  const step = shape.kind === 'average' ? 3 : 2;
  const out: number[] = [];
  const length = slab.data[base + LENGTH]!;
  for (let i = 0, at = slab.data[base + HEAD]!; i < length; i++, at = at + 1 === room ? 0 : at + 1) {
    for (let j = 0; j < step; j++) out.push(pool.data[start + at * step + j]!);
  }
  return out;
}

/**
 * Distinct in the region; NaN (nothing added) when a new value finds no room. An event whose
 * threshold needs at most 16 values (`shape.keep`) never leaves the region: a new value takes the
 * place of the least recently seen one once `keep` are held, so the key remembers the `keep` most
 * recent values. Its count is then min(count, keep), which compares with the threshold exactly
 * (a forgotten value seen again counts as new only while `keep` newer ones are in the window).
 */
function addDistinct(shape: WindowShape, data: Float64Array, base: number, bucket: number, hash: number): number {
  const oldest = bucket - shape.n;
  let n = data[base + LAST]! <= oldest ? 0 : data[base + N]!;
  let at = -1;
  let leastRecent = -1;
  for (let i = 0; i < n; i++) {
    const e = base + ENTRIES + i * 2;
    if (data[e] === hash) {
      at = e;
      break;
    }
    if (at === -1 && data[e + 1]! <= oldest) at = e;
    if (leastRecent === -1 || data[e + 1]! < data[leastRecent + 1]!) leastRecent = e;
  }
  if (at === -1) {
    if (n >= shape.keep) at = leastRecent;
    else if (n === DISTINCT_ENTRIES) {
      data[base + N] = n;
      return NaN;
    } else {
      at = base + ENTRIES + n * 2;
      n++;
    }
  }
  data[at] = hash;
  data[at + 1] = bucket;
  data[base + N] = n;
  data[base + LAST] = bucket;
  let live = 0;
  for (let i = 0; i < n; i++) if (data[base + ENTRIES + i * 2 + 1]! > oldest) live++;
  return live;
}

/** The region's state as a WindowKey (for a key outgrowing its region, and for snapshots). */
function toObject(shape: WindowShape, data: Float64Array, base: number): WindowKey {
  const k = new WindowKey();
  k.mute = data[base + MUTE]!;
  k.last = data[base + LAST]!;
  const n = data[base + N]!;
  if (shape.kind !== 'distinct') {
    const step = shape.kind === 'average' ? 3 : 2;
    k.total = data[base + TOTAL]!;
    k.buckets = Array.from(data.subarray(base + ENTRIES, base + ENTRIES + n * step));
    return k;
  }
  const oldest = k.last - shape.n;
  const live: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const e = base + ENTRIES + i * 2;
    if (data[e + 1]! > oldest) live.push([data[e]!, data[e + 1]!]);
  }
  live.sort((x, y) => x[1] - y[1]);
  k.small = live.flat();
  for (const [, b] of live) {
    const tail = k.buckets.length - 2;
    if (tail >= 0 && k.buckets[tail] === b) k.buckets[tail + 1]!++;
    else k.buckets.push(b, 1);
  }
  k.total = live.length;
  return k;
}

function setObject(slab: EventSlab, member: number, slot: number, state: WindowKey | CepKey): void {
  const objects = slab.objects[member]!;
  while (objects.length <= slot) objects.push(undefined);
  objects[slot] = state;
}

/** Empties a key's region but for its mute (the object it may have had goes). */
function toRegion(slab: EventSlab, member: number, slot: number, mute: number): void {
  const data = slab.data;
  const base = baseOf(slab, member, slot);
  if (data[base] === RING) slab.pools[member]!.of(data[base + RING_ROOM]!).give(data[base + RING_INDEX]!);
  data[base] = INLINE;
  data[base + MUTE] = mute;
  data[base + LAST] = -Infinity;
  data[base + TOTAL] = 0;
  data[base + N] = 0;
  const objects = slab.objects[member]!;
  if (slot < objects.length) objects[slot] = undefined;
}

/** Records a firing: the key's window is cleared and it is muted until `mute` (a bucket). Returns what the window held. */
export function fireSlot(
  slab: EventSlab,
  member: number,
  slot: number,
  mute: number,
): { records: number; approximate: 0 | 1 } {
  const base = baseOf(slab, member, slot);
  let records = slab.data[base + TOTAL]!;
  let approximate: 0 | 1 = 0;
  if (slab.data[base] === OBJECT) {
    const k = slab.objects[member]![slot] as WindowKey;
    records = k.total;
    approximate = k.hll === null ? 0 : 1;
  }
  toRegion(slab, member, slot, mute);
  return { records, approximate };
}

/** The first bucket a window event's key may fire in again (its latch for combined events). */
export function muteOf(slab: EventSlab, member: number, slot: number): number {
  const base = baseOf(slab, member, slot);
  const mode = slab.data[base];
  if (mode === OBJECT) return (slab.objects[member]![slot] as WindowKey).mute;
  return mode === EMPTY ? -Infinity : slab.data[base + MUTE]!;
}

/** A window event's key as a WindowKey (snapshot); null when it has none. */
export function windowKeyAt(shape: WindowShape, slab: EventSlab, member: number, slot: number): WindowKey | null {
  const base = baseOf(slab, member, slot);
  const mode = slab.data[base];
  if (mode === OBJECT) return slab.objects[member]![slot] as WindowKey;
  if (mode === RING) return ringToObject(shape, slab, member, base);
  return mode === INLINE ? toObject(shape, slab.data, base) : null;
}

/** A CEP event's key state, made when missing. */
export function cepKeyAt(
  rt: StatefulRuntime,
  slab: EventSlab,
  member: number,
  slot: number,
  create: boolean,
): CepKey | null {
  const base = baseOf(slab, member, slot);
  if (slab.data[base] === OBJECT) return slab.objects[member]![slot] as CepKey;
  if (!create) return null;
  const k = new CepKey();
  slab.data[base] = OBJECT;
  slab.data[base + 1] = -Infinity;
  slab.data[base + 2] = -Infinity;
  setObject(slab, member, slot, k);
  rt.keys++;
  return k;
}

/** Keeps a CEP key's region in step with its object after a record: latch, newest run start, run count. */
export function noteCep(slab: EventSlab, member: number, slot: number, k: CepKey, started: boolean, now: number): void {
  const base = baseOf(slab, member, slot);
  slab.data[base + 1] = k.latch;
  if (started) slab.data[base + 2] = now;
  slab.data[base + 3] = k.runs.length;
}

/** Whether a CEP event's key has partial runs (read from the region, not the object). */
export function hasRuns(slab: EventSlab, member: number, slot: number): boolean {
  const base = baseOf(slab, member, slot);
  return slab.data[base] === OBJECT && slab.data[base + 3] !== 0;
}

/** Strict continuity: a record of the key that no step matches breaks its runs. */
export function breakRuns(slab: EventSlab, member: number, slot: number): void {
  const base = baseOf(slab, member, slot);
  if (slab.data[base] !== OBJECT || slab.data[base + 3] === 0) return;
  (slab.objects[member]![slot] as CepKey).runs.length = 0;
  slab.data[base + 3] = 0;
}

function ringToObject(shape: WindowShape, slab: EventSlab, member: number, base: number): WindowKey {
  const data = slab.data;
  const k = new WindowKey();
  k.mute = data[base + MUTE]!;
  k.last = data[base + LAST]!;
  k.total = data[base + TOTAL]!;
  // Only what is still in the window as of `last` (the list may hold entries the next record drops).
  const entries = ringEntries(shape, slab, member, base);
  const step = shape.kind === 'average' ? 3 : 2;
  for (let i = 0; i < entries.length; i += step) {
    if (entries[i]! <= k.last - shape.n) k.total -= entries[i + 1]!;
    else k.buckets.push(...entries.slice(i, i + step));
  }
  return k;
}

/** Puts a restored state in a key's region (replacing what was there). */
export function storeState(
  rt: StatefulRuntime,
  slab: EventSlab,
  member: number,
  slot: number,
  state: WindowKey | CepKey,
): void {
  const base = baseOf(slab, member, slot);
  if (slab.data[base] === EMPTY) rt.keys++;
  else slab.clearMember(member, slot);
  const data = slab.data;
  data[base] = OBJECT;
  if (state instanceof CepKey) {
    data[base + 1] = state.latch;
    let newest = -Infinity;
    for (let r = 2; r < state.runs.length; r += 4) newest = Math.max(newest, state.runs[r]!);
    data[base + 2] = newest;
    data[base + 3] = state.runs.length;
    setObject(slab, member, slot, state);
    return;
  }
  if (rt.kind === 'cep') return;
  data[base + MUTE] = state.mute;
  data[base + LAST] = state.last;
  if (rt.kind === 'distinct') {
    // A key whose values fit its region goes back to it, where an uninterrupted run kept it.
    const entries: number[] = [];
    if (state.hll === null) distinctEntries(state, (hash, bucket) => entries.push(hash, bucket));
    if (state.hll === null && entries.length / 2 <= Math.min(rt.shape.keep, DISTINCT_ENTRIES)) {
      data[base] = INLINE;
      data[base + TOTAL] = 0;
      data[base + N] = entries.length / 2;
      data.set(entries, base + ENTRIES);
      return;
    }
    setObject(slab, member, slot, state);
    return;
  }
  // Count and average: the buckets go to the region, or to a pool list when there are too many.
  const step = rt.kind === 'average' ? 3 : 2;
  const entries = state.buckets.length / step;
  data[base] = INLINE;
  data[base + TOTAL] = state.total;
  data[base + N] = Math.min(entries, rt.kind === 'average' ? AVERAGE_ENTRIES : COUNT_ENTRIES);
  if (entries <= data[base + N]!) {
    data.set(state.buckets, base + ENTRIES);
    return;
  }
  // Too many for the region: straight into a pool list with room for the whole window.
  const pool = slab.pools[member]!.of(rt.shape.n);
  const index = pool.take();
  const start = index * pool.size;
  const kept = state.buckets.slice(-rt.shape.n * step);
  pool.data.set(kept, start);
  let sum = 0;
  let total = 0;
  for (let i = 0; i < kept.length; i += step) {
    total += kept[i + 1]!;
    if (step === 3) sum += kept[i + 2]!;
  }
  data[base + TOTAL] = total;
  data[base] = RING;
  data[base + RING_INDEX] = index;
  data[base + RING_ROOM] = rt.shape.n;
  data[base + HEAD] = 0;
  data[base + LENGTH] = kept.length / step;
  data[base + SUM] = sum;
}

/** Whether a stateful event's key fired within its window (the latch combined events read). */
export function latched(rt: StatefulRuntime, slab: EventSlab, slot: number, now: number): boolean {
  if (rt.kind === 'cep') {
    const base = baseOf(slab, rt.member, slot);
    return slab.data[base] === OBJECT && now < slab.data[base + 1]!;
  }
  return bucketOf(now, rt.bucketMs) < muteOf(slab, rt.member, slot);
}

/**
 * Drops the states that hold nothing any more at `now` (windows empty and not muted, CEP runs all
 * out of their window and no latch), and the keys left with none. Reads the slab's numbers in slot
 * order, never an object.
 */
export function sweepSlab(slab: EventSlab, now: number): void {
  const members = slab.members;
  const count = members.length;
  const offsets = slab.offsets;
  const buckets = new Float64Array(count);
  const spans = new Float64Array(count);
  members.forEach((rt, m) => {
    buckets[m] = rt.kind === 'cep' ? now : bucketOf(now, rt.bucketMs);
    spans[m] = rt.kind === 'cep' ? rt.windowMs : rt.shape.n;
  });
  const keys = slab.keyOf;
  const stride = slab.stride;
  for (let slot = 0; slot < keys.length; slot++) {
    if (keys[slot] === '') continue;
    const data = slab.data;
    const base = slot * stride;
    let left = 0;
    for (let m = 0; m < count; m++) {
      const at = base + offsets[m]!;
      if (data[at] === EMPTY) continue;
      const current = buckets[m]!;
      // Window events: [1] mute (bucket), [2] last (bucket); CEP: [1] latch (ms), [2] newest run start (ms).
      const expired =
        members[m]!.kind === 'cep'
          ? current >= data[at + 1]! && current - data[at + 2]! >= spans[m]!
          : current >= data[at + 1]! && data[at + 2]! <= current - spans[m]!;
      if (!expired) {
        left++;
        continue;
      }
      slab.clearMember(m, slot);
      members[m]!.keys--;
    }
    if (left === 0) slab.release(slot, false);
  }
}
