/**
 * Value roll-ups (docs/DESIGN.md 2d): per log and minute, hour and UTC day, how many records hold
 * each value of the ranking fields, for the Security Overview's rankings and its distinct client
 * count. Kept for access and detection logs only, one key per bucket and field, so a ranking reads
 * only its field.
 *
 * Minute and hour buckets are counted in memory while open and written once closed (GRACE after
 * their end) or at close. A record of a bucket already written (late) goes into a small bucket of
 * its own, written with the next batch. A day is summed from its stored hours once it is over (the
 * store does that in the batch that writes its last hour, and again for a late hour). Opening a store
 * after a crash derives the open buckets again (the marker names them): an open hour from its minutes
 * already written, and the open minutes, with the rest of the hour, from their records.
 *
 * A written bucket keeps all values of a field up to a bound, else only the most frequent (KEPT),
 * counting the other records as overflow; for a distinct field it then keeps a HyperLogLog sketch
 * of all values. A read that meets overflow says the field is approximate.
 */
import { DistinctSketch } from './distinct-sketch.ts';
import { DAY, HOUR, MINUTE, SPAN, timeKey, type Granularity } from './keys.ts';
import { kindOfLog } from './fields.ts';

export const VALUE_FIELDS = [
  'path',
  'referrer_path',
  'src_ip',
  'hostname',
  'attack_src_ip',
  'attack_hostname',
  'ua_classification',
  'bot_type',
  'list_result',
] as const;
export type ValueField = (typeof VALUE_FIELDS)[number];

/** Values an open bucket counts per field; a new value beyond them counts as overflow. */
export const OPEN_CAP: Readonly<Record<Granularity, number>> = { m: 1_000, h: 10_000, d: 10_000 };
/**
 * Values a written bucket keeps per field: all of them up to `exact`; beyond that only the `top`
 * most frequent, the others' records counted as overflow. A small site's rankings stay exact; a
 * busy one's long ranges read a few hundred values per hour and day instead of thousands.
 */
export const KEPT: Readonly<Record<Granularity, { exact: number; top: number }>> = {
  m: { exact: 1_000, top: 1_000 },
  h: { exact: 200, top: 50 },
  d: { exact: 300, top: 200 },
};
/**
 * Fields whose distinct count the overview shows: a bucket that does not keep all their values
 * keeps a sketch of them (distinct-sketch.ts).
 */
export const DISTINCT_FIELDS: ReadonlySet<string> = new Set(['src_ip']);
/** A bucket closes this long after its end (late records of a busy second still make it). */
export const GRACE = 5_000;
const WEB_ATTACKS: ReadonlySet<string> = new Set(['OWASP', 'BLOCKED_BY_WAF']);

export const VALUE_SPACE = Buffer.from([0xfe, 0x76]); // 0xFE 'v'
const name = (text: string): Buffer => Buffer.from(text, 'utf8');

/** `0xFE v <log> 0`: every value roll-up of one log. */
export const valueLogPrefix = (log: string): Buffer => Buffer.concat([VALUE_SPACE, name(log), Buffer.from([0])]);

/** `0xFE v <log> 0 <m|h|d> <field> 0`: one log's value roll-ups of one granularity and field. */
export function valuePrefix(log: string, granularity: Granularity, field: string): Buffer {
  return Buffer.concat([valueLogPrefix(log), Buffer.from(granularity, 'latin1'), name(field), Buffer.from([0])]);
}

export function valueKey(
  log: string,
  granularity: Granularity,
  field: string,
  time: number,
  boot: number,
  part: number,
): Buffer {
  const tail = Buffer.allocUnsafe(14);
  tail.writeBigUInt64BE(BigInt(time), 0);
  tail.writeUInt32BE(boot >>> 0, 8);
  tail.writeUInt16BE(part & 0xffff, 12);
  return Buffer.concat([valuePrefix(log, granularity, field), tail]);
}

export function valueKeyTime(key: Buffer): number {
  return Number(key.readBigUInt64BE(key.length - 14));
}

/** The keys of one log, granularity and field with times in [from, to). */
export function valueRange(
  log: string,
  granularity: Granularity,
  field: string,
  from: number,
  to: number,
): { gte: Buffer; lt: Buffer } {
  const prefix = valuePrefix(log, granularity, field);
  return {
    gte: Buffer.concat([prefix, timeKey(Math.max(0, from))]),
    lt: Buffer.concat([prefix, timeKey(Math.max(0, to))]),
  };
}

/** Whether a log has value roll-ups. */
export const rolledUp = (log: string): boolean => {
  const kind = kindOfLog(log);
  return kind === 'access' || kind === 'detection';
};

/** The path of a request line (`GET /a/b?x=1 HTTP/1.1` -> `/a/b`) or of a URL (`https://h/a?x` -> `/a`). */
export function pathOf(text: string): string {
  let start = 0;
  if (text.startsWith('http://') || text.startsWith('https://')) {
    const slash = text.indexOf('/', text.indexOf('//') + 2);
    if (slash < 0) return '/';
    start = slash;
  } else {
    const space = text.indexOf(' ');
    if (space >= 0) start = space + 1;
  }
  let end = text.length;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // '?', '#', ' '
    if (c === 63 || c === 35 || c === 32) {
      end = i;
      break;
    }
  }
  return text.slice(start, end);
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The `intel` object of a record's `_intelligence_result`, if any. */
function intelOf(record: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> | undefined {
  const result = record._intelligence_result;
  if (typeof result !== 'object' || result === null) return undefined;
  const intel = (result as { intel?: unknown }).intel;
  return typeof intel === 'object' && intel !== null ? (intel as Readonly<Record<string, unknown>>) : undefined;
}

/** Calls `visit` with each ranking field and value of a record of `log` (empty values left out). */
export function rankingValues(
  log: string,
  record: Readonly<Record<string, unknown>>,
  visit: (field: ValueField, value: string) => void,
): void {
  const ip = str(record.src_ip);
  const host = str(record.hostname);
  if (ip !== '') visit('src_ip', ip);
  if (host !== '') visit('hostname', host);
  if (kindOfLog(log) === 'detection') {
    const referrer = str(record.referrer);
    if (referrer !== '') visit('referrer_path', pathOf(referrer));
    return;
  }
  const request = str(record.request);
  if (request !== '') visit('path', pathOf(request));
  const intel = intelOf(record);
  const browser = str(record.ua_classification) || str(intel?.ua_classification);
  if (browser !== '') visit('ua_classification', browser);
  if (record.guard_status === 'BOT') visit('bot_type', str(record.bot_type) || str(intel?.bot_type) || 'unclassified');
  const list = str(record.list_result);
  if (list !== '') visit('list_result', list);
  if (WEB_ATTACKS.has(str(record.guard_status))) {
    if (ip !== '') visit('attack_src_ip', ip);
    if (host !== '') visit('attack_hostname', host);
  }
}

/**
 * One field's counts in a bucket: value -> records, the records of values it does not hold
 * (`overflow`), and for a distinct field with overflow, a sketch of the values it does not hold.
 */
export class FieldTally {
  readonly counts = new Map<string, number>();
  overflow = 0;
  sketch: DistinctSketch | null = null;
}

/** What a bucket stores per field: values, their counts, overflow, and a sketch of all values. */
interface StoredTally {
  v: string[];
  n: number[];
  o?: number;
  s?: string;
}

/**
 * A tally as stored: every value up to `kept.exact` of them, else its `kept.top` most frequent (ties
 * by value) and the others' records as overflow; for a distinct field with overflow, a sketch of
 * every value it saw.
 */
export function encodeTally(field: string, tally: FieldTally, kept: { exact: number; top: number }): string {
  const entries = [...tally.counts];
  let overflow = tally.overflow;
  if (entries.length > kept.exact) {
    entries.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    for (let i = kept.top; i < entries.length; i++) overflow += entries[i]![1];
    entries.length = kept.top;
  }
  const stored: StoredTally = { v: entries.map((e) => e[0]), n: entries.map((e) => e[1]) };
  if (overflow > 0) {
    stored.o = overflow;
    if (DISTINCT_FIELDS.has(field)) {
      const sketch = new DistinctSketch();
      if (tally.sketch !== null) sketch.merge(tally.sketch);
      for (const value of tally.counts.keys()) sketch.add(value);
      stored.s = sketch.toBase64();
    }
  }
  return JSON.stringify(stored);
}

/**
 * Adds a stored tally's text to `into` (its sketch too with `sketches`: a day summed from hours
 * needs it, a ranking does not); false when the text is not one.
 */
export function addStoredTally(into: FieldTally, text: string, sketches = false): boolean {
  let stored: StoredTally;
  try {
    stored = JSON.parse(text) as StoredTally;
  } catch {
    return false;
  }
  if (!Array.isArray(stored.v) || !Array.isArray(stored.n)) return false;
  const { v, n } = stored;
  const counts = into.counts;
  for (let i = 0; i < v.length; i++) {
    const count = n[i];
    if (typeof count !== 'number') continue;
    counts.set(v[i]!, (counts.get(v[i]!) ?? 0) + count);
  }
  if (typeof stored.o === 'number' && stored.o > 0) into.overflow += stored.o;
  if (sketches && typeof stored.s === 'string') {
    const sketch = DistinctSketch.fromBase64(stored.s);
    if (sketch !== undefined) {
      if (into.sketch === null) into.sketch = sketch;
      else into.sketch.merge(sketch);
    }
  }
  return true;
}

/**
 * Adds a stored tally's distinct values: its sketch when it has one (it holds every value), else
 * its values. False when the text is not a tally.
 */
export function addStoredDistinct(values: Set<string>, merge: (sketch: DistinctSketch) => void, text: string): boolean {
  let stored: StoredTally;
  try {
    stored = JSON.parse(text) as StoredTally;
  } catch {
    return false;
  }
  if (typeof stored.s === 'string') {
    const sketch = DistinctSketch.fromBase64(stored.s);
    if (sketch !== undefined) {
      merge(sketch);
      return true;
    }
  }
  if (!Array.isArray(stored.v)) return false;
  for (const value of stored.v) values.add(value);
  return true;
}

/** Adds one tally to another (an open bucket's to the totals, hours' to their day). */
export function addTally(into: FieldTally, from: FieldTally): void {
  for (const [value, n] of from.counts) into.counts.set(value, (into.counts.get(value) ?? 0) + n);
  into.overflow += from.overflow;
  if (from.sketch !== null) {
    if (into.sketch === null) into.sketch = new DistinctSketch();
    into.sketch.merge(from.sketch);
  }
}

/** One bucket's counts, per field. */
export class ValueBucket {
  readonly fields = new Map<string, FieldTally>();
  constructor(
    readonly granularity: Granularity,
    readonly part: number,
  ) {}

  add(field: string, value: string, count = 1): void {
    let tally = this.fields.get(field);
    if (tally === undefined) this.fields.set(field, (tally = new FieldTally()));
    const known = tally.counts.get(value);
    if (known !== undefined) tally.counts.set(value, known + count);
    else if (tally.counts.size < OPEN_CAP[this.granularity]) tally.counts.set(value, count);
    else {
      tally.overflow += count;
      if (DISTINCT_FIELDS.has(field)) (tally.sketch ??= new DistinctSketch()).add(value);
    }
  }

  /** Each field's stored text (encodeTally with the granularity's KEPT). */
  encode(): [field: string, text: string][] {
    return [...this.fields].map(([field, tally]) => [field, encodeTally(field, tally, KEPT[this.granularity])]);
  }
}

/** What a read of value roll-ups gives. */
export interface ValueCounts {
  /** field -> value -> records: every value, unless the field is in `approximate`. */
  fields: Map<string, Map<string, number>>;
  /** Fields some bucket of which did not keep all values: their counts are the most frequent ones'. */
  approximate: string[];
}

/** Summed tallies of several buckets. */
export class ValueTotals {
  readonly tallies = new Map<string, FieldTally>();

  tally(field: string): FieldTally {
    let tally = this.tallies.get(field);
    if (tally === undefined) this.tallies.set(field, (tally = new FieldTally()));
    return tally;
  }

  add(field: string, value: string, count: number): void {
    const counts = this.tally(field).counts;
    counts.set(value, (counts.get(value) ?? 0) + count);
  }

  result(): ValueCounts {
    const out: ValueCounts = { fields: new Map(), approximate: [] };
    for (const [field, tally] of this.tallies) {
      if (tally.counts.size === 0 && tally.overflow === 0) continue;
      out.fields.set(field, tally.counts);
      if (tally.overflow > 0) out.approximate.push(field);
    }
    return out;
  }
}

interface OpenBuckets {
  minutes: Map<number, ValueBucket>;
  hours: Map<number, ValueBucket>;
  /** Buckets of records whose minute or hour was written already: written with the next batch. */
  late: ValueBucket[];
  lateTimes: number[];
  /** The newest record time seen (a bulk load of old records closes buckets as it passes them). */
  newest: number;
  /** Whether a record came since the last take, and the store time of the last take that saw one. */
  added: boolean;
  activeAt: number;
}

/** What a log's crash marker holds: its oldest open minute and hour. */
export interface ValuesMarker {
  minute: number;
  hour: number;
}

/** A bucket to write. */
export interface ValuePut {
  log: string;
  granularity: Granularity;
  time: number;
  bucket: ValueBucket;
}

/**
 * The open minute and hour buckets of every rolled-up log. `add` runs for each appended record;
 * `take` hands the buckets due (closed ones and late ones) to the store's next batch, and names the
 * days whose hours are all written by then (the store sums a day from its stored hours).
 */
export class ValueRollups {
  readonly #logs = new Map<string, OpenBuckets>();
  /** Per log, the newest minute and hour written (a record older than those is late). */
  readonly #written = new Map<string, { minute: number; hour: number }>();
  #parts = 0;

  /**
   * Counts a record. `recovering` (a crash's open buckets derived again): only the buckets at or
   * after the marker's minute and hour count it, the others were written before the crash.
   */
  add(log: string, timestamp: number, record: Readonly<Record<string, unknown>>, recovering?: ValuesMarker): void {
    const open = this.#openOf(log, timestamp);
    if (timestamp > open.newest) open.newest = timestamp;
    open.added = true;
    const minute = Math.floor(timestamp / MINUTE) * MINUTE;
    const hour = Math.floor(timestamp / HOUR) * HOUR;
    const written = this.#written.get(log);
    const minuteBucket =
      recovering !== undefined && minute < recovering.minute
        ? undefined
        : this.#bucket(open, 'm', minute, written !== undefined && minute <= written.minute);
    const hourBucket =
      recovering !== undefined && hour < recovering.hour
        ? undefined
        : this.#bucket(open, 'h', hour, written !== undefined && hour <= written.hour);
    rankingValues(log, record, (field, value) => {
      minuteBucket?.add(field, value);
      hourBucket?.add(field, value);
    });
  }

  /**
   * After a crash: a written minute bucket of an hour that was still open (at or after the marker's
   * hour), counted into that hour, so that the hour's records before the oldest open minute need not
   * be read again.
   */
  restoreIntoHour(log: string, minute: number, field: string, stored: string): void {
    const bucket = this.#bucket(this.#openOf(log, minute), 'h', Math.floor(minute / HOUR) * HOUR, false);
    let tally = bucket.fields.get(field);
    if (tally === undefined) bucket.fields.set(field, (tally = new FieldTally()));
    addStoredTally(tally, stored, true);
  }

  #openOf(log: string, timestamp: number): OpenBuckets {
    let open = this.#logs.get(log);
    if (open === undefined)
      this.#logs.set(
        log,
        (open = {
          minutes: new Map(),
          hours: new Map(),
          late: [],
          lateTimes: [],
          newest: timestamp,
          added: true,
          activeAt: 0,
        }),
      );
    return open;
  }

  #bucket(open: OpenBuckets, granularity: 'm' | 'h', time: number, late: boolean): ValueBucket {
    if (late) {
      for (let i = 0; i < open.late.length; i++)
        if (open.lateTimes[i] === time && open.late[i]!.granularity === granularity) return open.late[i]!;
      const bucket = new ValueBucket(granularity, this.#part());
      open.late.push(bucket);
      open.lateTimes.push(time);
      return bucket;
    }
    const buckets = granularity === 'm' ? open.minutes : open.hours;
    let bucket = buckets.get(time);
    if (bucket === undefined) buckets.set(time, (bucket = new ValueBucket(granularity, this.#part())));
    return bucket;
  }

  #part(): number {
    this.#parts = (this.#parts + 1) & 0xffff;
    return this.#parts;
  }

  /**
   * The buckets to write now: late ones, and open ones closed (all of them with `all`). A bucket
   * closes GRACE after its end by the store's clock, or, while records keep coming, by the newest
   * record's time when that is earlier (records of the past loaded in bulk). Each log's marker after
   * the take is given ('' when nothing of it is open), and the days over whose hours this take writes.
   */
  take(now: number, all: boolean): { puts: ValuePut[]; markers: Map<string, string>; days: Map<string, Set<number>> } {
    const puts: ValuePut[] = [];
    const markers = new Map<string, string>();
    const days = new Map<string, Set<number>>();
    for (const [log, open] of this.#logs) {
      const before = this.#marker(open);
      if (open.added) {
        open.activeAt = now;
        open.added = false;
      }
      const effective = all || now - open.activeAt >= GRACE ? now : Math.min(now, open.newest);
      const dayOver = (time: number): void => {
        const day = Math.floor(time / DAY) * DAY;
        if (effective < day + DAY) return;
        let set = days.get(log);
        if (set === undefined) days.set(log, (set = new Set()));
        set.add(day);
      };
      for (let i = 0; i < open.late.length; i++) {
        const bucket = open.late[i]!;
        puts.push({ log, granularity: bucket.granularity, time: open.lateTimes[i]!, bucket });
        if (bucket.granularity === 'h') dayOver(open.lateTimes[i]!);
      }
      open.late = [];
      open.lateTimes = [];
      let written = this.#written.get(log);
      for (const [granularity, buckets] of [
        ['m', open.minutes],
        ['h', open.hours],
      ] as const) {
        for (const [time, bucket] of buckets) {
          if (!all && effective < time + SPAN[granularity] + GRACE) continue;
          puts.push({ log, granularity, time, bucket });
          buckets.delete(time);
          written ??= { minute: -1, hour: -1 };
          if (granularity === 'm') written.minute = Math.max(written.minute, time);
          else {
            written.hour = Math.max(written.hour, time);
            dayOver(time);
          }
        }
      }
      if (written !== undefined) this.#written.set(log, written);
      const after = this.#marker(open);
      if (after !== before) markers.set(log, after);
      if (open.minutes.size === 0 && open.hours.size === 0 && !open.added) this.#logs.delete(log);
    }
    return { puts, markers, days };
  }

  /** The marker of the open buckets of every log with some, for a batch that writes their records. */
  markerOf(log: string): string {
    const open = this.#logs.get(log);
    return open === undefined ? '' : this.#marker(open);
  }

  #marker(open: OpenBuckets): string {
    if (open.minutes.size === 0 && open.hours.size === 0) return '';
    let minute = Number.MAX_SAFE_INTEGER;
    for (const time of open.minutes.keys()) if (time < minute) minute = time;
    let hour = Number.MAX_SAFE_INTEGER;
    for (const time of open.hours.keys()) if (time < hour) hour = time;
    return JSON.stringify({ minute, hour } satisfies ValuesMarker);
  }

  /** The open buckets of a log with times in [from, to) (late ones included). */
  *open(log: string, granularity: 'm' | 'h', from: number, to: number): Generator<ValueBucket> {
    const open = this.#logs.get(log);
    if (open === undefined) return;
    for (const [time, bucket] of granularity === 'm' ? open.minutes : open.hours)
      if (time >= from && time < to) yield bucket;
    for (let i = 0; i < open.late.length; i++) {
      const time = open.lateTimes[i]!;
      if (open.late[i]!.granularity === granularity && time >= from && time < to) yield open.late[i]!;
    }
  }

  /** After a crash: the open buckets derived again start as written up to just before the marker. */
  recovering(log: string, marker: ValuesMarker): void {
    this.#written.set(log, { minute: marker.minute - MINUTE, hour: marker.hour - HOUR });
  }

  /** Forgets open buckets before `cutoff` (retention removed their records). */
  dropBefore(log: string, cutoff: number): void {
    const open = this.#logs.get(log);
    if (open === undefined) return;
    for (const time of open.minutes.keys()) if (time + MINUTE <= cutoff) open.minutes.delete(time);
    for (const time of open.hours.keys()) if (time + HOUR <= cutoff) open.hours.delete(time);
    const keep = open.late.map((bucket, i) => open.lateTimes[i]! + SPAN[bucket.granularity] > cutoff);
    open.late = open.late.filter((_, i) => keep[i]);
    open.lateTimes = open.lateTimes.filter((_, i) => keep[i]);
  }
}
