/**
 * The store's keys (docs/DESIGN.md 2a). Records sort by log name, then time, then sequence:
 * `<log>\x00<8-byte BE second-ms><4-byte BE seq>`, so one log's time range is one contiguous scan.
 * Index entries and roll-ups live under 0xFE, meta keys under 0xFF: no UTF-8 log name starts with
 * either byte, so every record key sorts before them.
 */
const SEPARATOR = 0x00;
export const INDEX_SPACE = Buffer.from([0xfe, 0x69]); // 0xFE 'i'
export const ROLLUP_SPACE = Buffer.from([0xfe, 0x72]); // 0xFE 'r'
/** The first key that is not a record. */
export const RECORDS_END = Buffer.from([0xfe]);
export const DAY = 86_400_000;
export const HOUR = 3_600_000;
export const MINUTE = 60_000;

/** A roll-up bucket's length: a minute, an hour or a (UTC) day. */
export type Granularity = 'm' | 'h' | 'd';
export const SPAN: Readonly<Record<Granularity, number>> = { m: MINUTE, h: HOUR, d: DAY };
/** Longest indexed value (bytes); a longer one is indexed by its first bytes and checked on read. */
export const MAX_INDEXED_VALUE = 256;

const name = (text: string): Buffer => Buffer.from(text, 'utf8');
const TWO_32 = 2 ** 32;

/**
 * Writes a non-negative integer below 2^53 as 8 big-endian bytes at `at` (two 32-bit halves: no
 * BigInt is allocated, which on the write path is garbage per key); returns the offset after it.
 */
function writeU64(buf: Buffer, value: number, at: number): number {
  const v = Math.max(0, Math.floor(value));
  buf.writeUInt32BE(Math.floor(v / TWO_32), at);
  buf.writeUInt32BE(v % TWO_32, at + 4);
  return at + 8;
}

const u64 = (value: number): Buffer => {
  const b = Buffer.allocUnsafe(8);
  writeU64(b, value, 0);
  return b;
};

export function recordKey(log: string, timestamp: number, seq: number): Buffer {
  const logName = name(log);
  const key = Buffer.allocUnsafe(logName.length + 1 + 8 + 4);
  logName.copy(key, 0);
  key[logName.length] = SEPARATOR;
  writeU64(key, timestamp, logName.length + 1);
  key.writeUInt32BE(seq >>> 0, logName.length + 9);
  return key;
}

export function rangeBounds(log: string, from: number, to: number): { gte: Buffer; lt: Buffer } {
  return { gte: recordKey(log, from, 0), lt: recordKey(log, to, 0) };
}

/** The block key's time and sequence (its last 12 bytes). */
export function blockPosition(key: Buffer): { second: number; seq: number } {
  const at = key.length - 12;
  return { second: key.readUInt32BE(at) * TWO_32 + key.readUInt32BE(at + 4), seq: key.readUInt32BE(key.length - 4) };
}

/** An indexed value as stored: UTF-8, at most MAX_INDEXED_VALUE bytes (cut on a character boundary). */
export function indexValueBytes(value: string): Buffer {
  const bytes = name(value);
  if (bytes.length <= MAX_INDEXED_VALUE) return bytes;
  let end = MAX_INDEXED_VALUE;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** `0xFE i <log> 0`: every index entry of one log. */
export function indexLogPrefix(log: string): Buffer {
  return Buffer.concat([INDEX_SPACE, name(log), Buffer.from([SEPARATOR])]);
}

/** `0xFE i <log> 0 <field> 0`: every index entry of one log's field. */
export function indexFieldPrefix(log: string, field: string): Buffer {
  return Buffer.concat([indexLogPrefix(log), name(field), Buffer.from([SEPARATOR])]);
}

/** The entries of one value in one hour: prefix + hour + value length + value. */
export function indexValuePrefix(log: string, field: string, hour: number, value: Buffer): Buffer {
  const length = Buffer.allocUnsafe(2);
  length.writeUInt16BE(value.length);
  return Buffer.concat([indexFieldPrefix(log, field), u64(hour), length, value]);
}

/**
 * Index keys of one (log, field), built with one allocation each: the prefix is made once (the
 * write path makes two or three keys per record, and each temporary buffer is garbage to collect).
 */
export class IndexKeys {
  readonly #prefix: Buffer;
  constructor(log: string, field: string) {
    this.#prefix = indexFieldPrefix(log, field);
  }

  key(value: string, second: number, seq: number): Buffer {
    const prefix = this.#prefix;
    const length = Buffer.byteLength(value);
    const valueBytes = length <= MAX_INDEXED_VALUE ? length : indexValueBytes(value).length;
    const key = Buffer.allocUnsafe(prefix.length + 8 + 2 + valueBytes + 12);
    prefix.copy(key, 0);
    let at = prefix.length;
    at = writeU64(key, Math.floor(second / HOUR) * HOUR, at);
    at = key.writeUInt16BE(valueBytes, at);
    if (length <= MAX_INDEXED_VALUE) at += key.write(value, at, 'utf8');
    else at += indexValueBytes(value).copy(key, at);
    at = writeU64(key, second, at);
    key.writeUInt32BE(seq >>> 0, at);
    return key;
  }

  /**
   * A posting's key (postings.ts): the value's prefix, the slot's first second, the newest block's
   * sequence and the posting mark.
   */
  postingKey(value: string, slotStart: number, seq: number, mark: number): Buffer {
    const key = this.key(value, slotStart, seq);
    const marked = Buffer.allocUnsafe(key.length + 1);
    key.copy(marked, 0);
    marked[key.length] = mark;
    return marked;
  }
}

/** An indexed value's text as the index holds it: cut to MAX_INDEXED_VALUE bytes. */
export function indexedForm(value: string): string {
  return value.length * 3 <= MAX_INDEXED_VALUE ? value : indexValueBytes(value).toString('utf8');
}

export function indexKey(log: string, field: string, value: Buffer, second: number, seq: number): Buffer {
  const tail = Buffer.allocUnsafe(12);
  writeU64(tail, second, 0);
  tail.writeUInt32BE(seq >>> 0, 8);
  return Buffer.concat([indexValuePrefix(log, field, Math.floor(second / HOUR) * HOUR, value), tail]);
}

/** `0xFE r <log> 0`: every roll-up of one log. */
export function rollupPrefix(log: string): Buffer {
  return Buffer.concat([ROLLUP_SPACE, name(log), Buffer.from([SEPARATOR])]);
}

/**
 * A log's roll-ups of one granularity: minutes straight after the log's prefix (their time's first
 * byte is 0), hours and days after a `h` / `d` byte, so they sort after every minute.
 */
export function rollupGranularityPrefix(log: string, granularity: Granularity): Buffer {
  const prefix = rollupPrefix(log);
  return granularity === 'm' ? prefix : Buffer.concat([prefix, Buffer.from(granularity, 'latin1')]);
}

export function rollupKey(log: string, granularity: Granularity, time: number, boot: number, part: number): Buffer {
  const tail = Buffer.allocUnsafe(14);
  writeU64(tail, time, 0);
  tail.writeUInt32BE(boot >>> 0, 8);
  tail.writeUInt16BE(part & 0xffff, 12);
  return Buffer.concat([rollupGranularityPrefix(log, granularity), tail]);
}

/** The keys of one log's roll-ups of a granularity with times in [from, to). */
export function rollupRange(
  log: string,
  granularity: Granularity,
  from: number,
  to: number,
): { gte: Buffer; lt: Buffer } {
  const prefix = rollupGranularityPrefix(log, granularity);
  return { gte: Buffer.concat([prefix, u64(Math.max(0, from))]), lt: Buffer.concat([prefix, u64(Math.max(0, to))]) };
}

/** The time a roll-up key counts from (the 8 bytes before its boot and part). */
export function rollupTime(key: Buffer): number {
  return Number(key.readBigUInt64BE(key.length - 14));
}

/**
 * How a range [from, to) is read from roll-ups: the longest whole buckets (no longer than `coarsest`)
 * that fit, finer ones towards its ends, and the partial minutes at the very ends (`edges`) from the
 * records. Days are UTC days.
 */
export function coverRange(
  from: number,
  to: number,
  coarsest: Granularity = 'd',
): { whole: { granularity: Granularity; from: number; to: number }[]; edges: [number, number][] } {
  const whole: { granularity: Granularity; from: number; to: number }[] = [];
  const order: Granularity[] = coarsest === 'm' ? ['m'] : coarsest === 'h' ? ['m', 'h'] : ['m', 'h', 'd'];
  const split = (level: number, start: number, end: number): void => {
    const granularity = order[level]!;
    const span = SPAN[granularity];
    const first = Math.ceil(start / span) * span;
    const last = Math.floor(end / span) * span;
    if (first >= last) {
      if (level === 0) edges.push([start, end]);
      else split(level - 1, start, end);
      return;
    }
    if (level === 0) edges.push([start, first]);
    else split(level - 1, start, first);
    whole.push({ granularity, from: first, to: last });
    if (level === 0) edges.push([last, end]);
    else split(level - 1, last, end);
  };
  const edges: [number, number][] = [];
  if (from < to) split(order.length - 1, from, to);
  return { whole, edges: edges.filter(([a, b]) => a < b) };
}

export const timeKey = u64;

/** The first key after every key that starts with `prefix` (its lexicographic successor). */
export function prefixEnd(prefix: Buffer): Buffer {
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  if (end === 0) return Buffer.from([0xff, 0xff, 0xff, 0xff]);
  const next = Buffer.from(prefix.subarray(0, end));
  next[end - 1]! += 1;
  return next;
}
