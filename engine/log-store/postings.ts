/**
 * Index postings (docs/DESIGN.md 2a): the index entries of one value gathered over several blocks.
 *
 * An entry per (field, value, block) made a steady stream write one or two tiny LevelDB entries per
 * record (a client address is new in nearly every block), and LevelDB's compaction spent more time on
 * them than on the records. Instead a log's entries gather in memory for GATHER_MS and are then
 * written together: one entry per (field, value, SLOT) holding every block of that slot with the
 * value, and its rows.
 *
 * Entry key: the value's prefix (log, field, hour, value) + the slot's first second (8 bytes) + the
 * newest block's sequence (4 bytes) + POSTING_MARK. Entries of the per-block format (stores written
 * before) have no mark: `prefix + second + seq`. Both are read.
 *
 * Entry value, per block, oldest first: varint seconds after the slot start, varint sequence, then
 * varint `2n + 1` when the value is in all n rows of the block, or `2b` and b bytes of rows
 * (rows.ts).
 *
 * Gathered entries are not yet in LevelDB: a reader merges them in (`positions`). A log with
 * gathered entries has a marker meta value naming its first block; after a crash the store
 * re-indexes the blocks from there (LogStore.open).
 */
import { indexedForm } from './keys.ts';
import { decodeRows } from './rows.ts';

/** Blocks of one entry lie in one slot of this many ms (it divides an hour). */
export const SLOT = 30_000;
/** How long a log's entries gather before they are written. */
export const GATHER_MS = 5_000;
/** Gathered block positions of one log over which its entries are written at once. */
export const MAX_GATHERED = 100_000;
/**
 * A field whose gathered values repeat less than this many times on average (a client address on a
 * busy site: new in nearly every block) gains nothing from gathering: its entries are written per
 * block, in the records' batch, for DIRECT_MS, then gathered again to look once more.
 */
const MIN_REPEAT = 1.5;
const DIRECT_MS = 30_000;
/** The last byte of a posting's key (per-block entries end in their sequence). */
export const POSTING_MARK = 0x01;
const SEQ_LOW = 0x100000;

/** One block holding a value, and the rows that hold it. */
export interface Position {
  second: number;
  seq: number;
  rows: readonly number[];
  /** Rows in the block: `rows` is every row when its length equals this. */
  blockRows: number;
}

/** A block as the index saw it: where it is, how many rows, field -> value -> rows. */
export interface IndexedRows {
  second: number;
  seq: number;
  rows: number;
  index: ReadonlyMap<string, ReadonlyMap<string, number[]>>;
}

/** Where a log's un-written entries start: its blocks from `second`, sequences `first..last`. */
export interface GatherMarker {
  second: number;
  first: number;
  last: number;
  fields: string[];
}

/** Whether a block (by sequence) is one of a marker's: same boot bits, low bits within first..last (cyclic). */
export function markerHolds(marker: GatherMarker, seq: number): boolean {
  if ((seq & ~(SEQ_LOW - 1)) >>> 0 !== (marker.first & ~(SEQ_LOW - 1)) >>> 0) return false;
  const span = (marker.last - marker.first + SEQ_LOW) % SEQ_LOW;
  const at = (seq - marker.first + SEQ_LOW) % SEQ_LOW;
  return at <= span;
}

/** Reused by encodePosting: grown when a posting needs more. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/** Writes `value` (below 2^53) as an unsigned varint at `at`; returns the offset after it. */
function writeVarint(out: Buffer, value: number, at: number): number {
  let v = value;
  while (v >= 0x80) {
    out[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[at++] = v;
  return at;
}

const olderFirst = (a: Position, b: Position): number => a.second - b.second || a.seq - b.seq;

/** Encodes one slot's positions (any order in, oldest first out). */
export function encodePosting(slotStart: number, positions: readonly Position[]): Buffer {
  let sorted = true;
  let bound = 0;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    if (i > 0 && olderFirst(positions[i - 1]!, p) > 0) sorted = false;
    // Three varints of at most 8 bytes, and at most 5 bytes per row.
    bound += 24 + (p.rows.length === p.blockRows ? 0 : p.rows.length * 5);
  }
  const ordered = sorted ? positions : [...positions].sort(olderFirst);
  if (scratch.length < bound) scratch = Buffer.allocUnsafe(Math.max(bound, scratch.length * 2));
  const out = scratch;
  let at = 0;
  for (const p of ordered) {
    at = writeVarint(out, (p.second - slotStart) / 1000, at);
    at = writeVarint(out, p.seq >>> 0, at);
    const rows = p.rows;
    if (rows.length === p.blockRows) {
      at = writeVarint(out, rows.length * 2 + 1, at);
      continue;
    }
    // The rows (rows.ts: ascending, delta-encoded), after their byte length, which is known once written.
    const lengthAt = at;
    at += rowsLengthBytes(rows);
    const start = at;
    let previous = -1;
    for (const row of rows) {
      at = writeVarint(out, row - previous - 1, at);
      previous = row;
    }
    const end = writeVarint(out, (at - start) * 2, lengthAt);
    if (end !== start) throw new Error('index posting: a row list length took an unexpected size');
  }
  return Buffer.from(out.subarray(0, at));
}

/** The bytes the varint of a row list's byte length takes (the list is at most 5 bytes a row). */
function rowsLengthBytes(rows: readonly number[]): number {
  let previous = -1;
  let bytes = 0;
  for (const row of rows) {
    const delta = row - previous - 1;
    previous = row;
    bytes += delta < 0x80 ? 1 : delta < 0x4000 ? 2 : delta < 0x200000 ? 3 : delta < 0x10000000 ? 4 : 5;
  }
  const doubled = bytes * 2;
  return doubled < 0x80 ? 1 : doubled < 0x4000 ? 2 : doubled < 0x200000 ? 3 : 4;
}

/** The blocks of a posting, oldest first; `rows` decoded on demand. */
export function decodePosting(
  slotStart: number,
  bytes: Uint8Array,
): { second: number; seq: number; rows: () => number[] }[] {
  const out: { second: number; seq: number; rows: () => number[] }[] = [];
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    let byte: number;
    do {
      if (at >= bytes.length) throw new Error('an index posting ends inside a number');
      byte = bytes[at++]!;
      value += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte & 0x80);
    return value;
  };
  while (at < bytes.length) {
    const second = slotStart + varint() * 1000;
    const seq = varint();
    const length = varint();
    if (length % 2 === 1) {
      const n = (length - 1) / 2;
      out.push({ second, seq, rows: () => Array.from({ length: n }, (_, i) => i) });
    } else {
      const end = at + length / 2;
      if (end > bytes.length) throw new Error('an index posting ends inside a row list');
      const rows = bytes.subarray(at, end);
      at = end;
      out.push({ second, seq, rows: () => decodeRows(rows) });
    }
  }
  return out;
}

/** One log's gathered entries. */
class Gathered {
  readonly byField = new Map<string, Map<string, Position[]>>();
  readonly fields = new Set<string>();
  positions = 0;
  second = Number.POSITIVE_INFINITY;
  first = -1;
  last = -1;
  constructor(readonly startedAt: number) {}

  marker(): GatherMarker {
    return { second: this.second, first: this.first, last: this.last, fields: [...this.fields] };
  }
}

/** Entries waiting to be written, by log. */
export class Gatherer {
  readonly #logs = new Map<string, Gathered>();
  /** `<log>\0<field>` -> until when its entries are written per block (MIN_REPEAT). */
  readonly #directUntil = new Map<string, number>();

  /** Adds a written block's index; returns the log's marker (it changes with every block). */
  add(log: string, fields: readonly string[], block: IndexedRows, now: number): void {
    let gathered = this.#logs.get(log);
    if (gathered === undefined) this.#logs.set(log, (gathered = new Gathered(now)));
    if (gathered.first < 0) gathered.first = block.seq;
    gathered.last = block.seq;
    gathered.second = Math.min(gathered.second, block.second);
    for (const field of fields) if (!this.direct(log, field, now)) gathered.fields.add(field);
    for (const [field, byValue] of block.index) {
      if (this.direct(log, field, now)) continue;
      let values = gathered.byField.get(field);
      if (values === undefined) gathered.byField.set(field, (values = new Map<string, Position[]>()));
      for (const [full, rows] of byValue) {
        const value = indexedForm(full);
        const position: Position = { second: block.second, seq: block.seq, rows, blockRows: block.rows };
        const list = values.get(value);
        if (list === undefined) values.set(value, [position]);
        else {
          const previous = list[list.length - 1]!;
          // Two long values cut to the same indexed form, in one block: one position, both rows.
          if (previous.seq === block.seq && previous.second === block.second) {
            previous.rows = [...new Set([...previous.rows, ...rows])].sort((a, b) => a - b);
            continue;
          }
          list.push(position);
        }
        gathered.positions++;
      }
    }
  }

  /** Where a log's gathered entries start (undefined when it gathers nothing). */
  marker(log: string): GatherMarker | undefined {
    const gathered = this.#logs.get(log);
    return gathered === undefined || gathered.fields.size === 0 ? undefined : gathered.marker();
  }

  constructor(private readonly gatherMs = GATHER_MS) {}

  /** Logs whose entries are due: gathered for gatherMs, or grown past MAX_GATHERED (all with `all`). */
  due(now: number, all = false): string[] {
    const logs: string[] = [];
    for (const [log, gathered] of this.#logs) {
      if (all || now - gathered.startedAt >= this.gatherMs || gathered.positions >= MAX_GATHERED) logs.push(log);
    }
    return logs;
  }

  get size(): number {
    return this.#logs.size;
  }

  /** Removes a log's entries: field -> value -> positions. */
  take(log: string, now: number): Map<string, Map<string, Position[]>> | undefined {
    const gathered = this.#logs.get(log);
    this.#logs.delete(log);
    if (gathered === undefined) return undefined;
    for (const [field, values] of gathered.byField) {
      let positions = 0;
      for (const list of values.values()) positions += list.length;
      if (values.size >= 1000 && positions < values.size * MIN_REPEAT)
        this.#directUntil.set(`${log}\u0000${field}`, now + DIRECT_MS);
    }
    return gathered.byField;
  }

  /**
   * Whether a field of a log is written per block for now (its values did not repeat enough while
   * gathered). Decided when a log's entries are taken, so it holds for a whole gathering.
   */
  direct(log: string, field: string, now: number): boolean {
    if (this.#directUntil.size === 0) return false;
    const key = `${log}\u0000${field}`;
    const until = this.#directUntil.get(key);
    if (until === undefined) return false;
    // A gathering that began while the field was direct keeps it direct to its end.
    const started = this.#logs.get(log)?.startedAt;
    if (now < until || (started !== undefined && started < until)) return true;
    this.#directUntil.delete(key);
    return false;
  }

  /** The gathered positions of one value (indexed form of the value), newest last; a copy. */
  positions(log: string, field: string, value: string): Position[] {
    return [...(this.#logs.get(log)?.byField.get(field)?.get(value) ?? [])];
  }

  /** Forgets positions of blocks before `before` (their records were deleted). */
  dropBefore(log: string, before: number): void {
    const gathered = this.#logs.get(log);
    if (gathered === undefined) return;
    for (const values of gathered.byField.values()) {
      for (const [value, list] of values) {
        const kept = list.filter((p) => p.second >= before);
        if (kept.length === 0) values.delete(value);
        else values.set(value, kept);
      }
    }
  }
}

/** A max-heap of blocks by (second, seq): a reader's merge of entries that overlap in time. */
export class NewestFirst<T extends { second: number; seq: number }> {
  readonly #items: T[] = [];

  get size(): number {
    return this.#items.length;
  }

  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!newer(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < items.length && newer(items[l]!, items[best]!)) best = l;
        if (r < items.length && newer(items[r]!, items[best]!)) best = r;
        if (best === i) break;
        [items[i], items[best]] = [items[best]!, items[i]!];
        i = best;
      }
    }
    return top;
  }
}

const newer = (a: { second: number; seq: number }, b: { second: number; seq: number }): boolean =>
  a.second > b.second || (a.second === b.second && a.seq > b.seq);
