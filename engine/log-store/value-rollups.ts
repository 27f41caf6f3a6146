/**
 * Value roll-ups (docs/DESIGN.md 2d): per log and minute, and per log and hour, how many records
 * hold each value of the ranking fields, for the Security Overview's rankings and its distinct
 * client count. Kept for access and detection logs only.
 *
 * A bucket (a minute or an hour) is counted in memory while it is open and written once closed
 * (5 s after its end, by the store's clock) or at close. A record of a bucket already written (late)
 * goes into a small bucket of its own, written in the same batch as the record. Opening a store
 * after a crash derives the open buckets again from their records (the marker names them).
 */
import { HOUR, MINUTE, prefixEnd, timeKey } from './keys.ts';
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

/** Values kept per field: beyond these a bucket counts records as overflow. */
export const MINUTE_CAP = 1_000;
export const HOUR_CAP = 10_000;
/** A bucket closes this long after its end (late records of a busy second still make it). */
const GRACE = 5_000;
const WEB_ATTACKS: ReadonlySet<string> = new Set(['OWASP', 'BLOCKED_BY_WAF']);

const SPACE = Buffer.from([0xfe, 0x76]); // 0xFE 'v'
const name = (text: string): Buffer => Buffer.from(text, 'utf8');

export type Granularity = 'm' | 'h';

/** `0xFE v <log> 0 <m|h>`: one log's value roll-ups of one granularity. */
export function valuePrefix(log: string, granularity: Granularity): Buffer {
  return Buffer.concat([SPACE, name(log), Buffer.from([0, granularity.charCodeAt(0)])]);
}

export function valueKey(log: string, granularity: Granularity, time: number, boot: number, part: number): Buffer {
  const tail = Buffer.allocUnsafe(14);
  tail.writeBigUInt64BE(BigInt(time), 0);
  tail.writeUInt32BE(boot >>> 0, 8);
  tail.writeUInt16BE(part & 0xffff, 12);
  return Buffer.concat([valuePrefix(log, granularity), tail]);
}

export function valueKeyTime(key: Buffer): number {
  return Number(key.readBigUInt64BE(key.length - 14));
}

/** The range of keys of one log and granularity with times in [from, to). */
export function valueRange(
  log: string,
  granularity: Granularity,
  from: number,
  to: number,
): { gte: Buffer; lt: Buffer } {
  const prefix = valuePrefix(log, granularity);
  return {
    gte: Buffer.concat([prefix, timeKey(Math.max(0, from))]),
    lt: Buffer.concat([prefix, timeKey(Math.max(0, to))]),
  };
}

export const valueLogPrefixEnd = (log: string, granularity: Granularity): Buffer =>
  prefixEnd(valuePrefix(log, granularity));

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

/** One bucket's counts: value -> records per field, and records that did not fit per field. */
export class ValueBucket {
  readonly fields = new Map<string, Map<string, number>>();
  readonly overflow = new Map<string, number>();
  constructor(
    readonly cap: number,
    readonly part: number,
  ) {}

  add(field: string, value: string, count = 1): void {
    let values = this.fields.get(field);
    if (values === undefined) this.fields.set(field, (values = new Map<string, number>()));
    const known = values.get(value);
    if (known !== undefined) values.set(value, known + count);
    else if (values.size < this.cap) values.set(value, count);
    else this.overflow.set(field, (this.overflow.get(field) ?? 0) + count);
  }

  toJson(): string {
    const out: Record<string, Record<string, number>> = {};
    for (const [field, values] of this.fields) out[field] = Object.fromEntries(values);
    if (this.overflow.size > 0) out[''] = Object.fromEntries(this.overflow);
    return JSON.stringify(out);
  }
}

/** Summed counts of several buckets: value -> records per field, and whether any bucket overflowed. */
export class ValueTotals {
  readonly fields = new Map<string, Map<string, number>>();
  readonly overflowed = new Set<string>();

  add(field: string, value: string, count: number): void {
    let values = this.fields.get(field);
    if (values === undefined) this.fields.set(field, (values = new Map<string, number>()));
    values.set(value, (values.get(value) ?? 0) + count);
  }

  addBucket(bucket: ValueBucket): void {
    for (const [field, values] of bucket.fields) for (const [value, n] of values) this.add(field, value, n);
    for (const field of bucket.overflow.keys()) this.overflowed.add(field);
  }

  addJson(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    for (const [field, values] of Object.entries(parsed as Record<string, Record<string, number>>)) {
      if (typeof values !== 'object' || values === null) continue;
      if (field === '') {
        for (const f of Object.keys(values)) this.overflowed.add(f);
        continue;
      }
      for (const [value, n] of Object.entries(values)) if (typeof n === 'number') this.add(field, value, n);
    }
  }
}

interface OpenBuckets {
  minutes: Map<number, ValueBucket>;
  hours: Map<number, ValueBucket>;
  /** Buckets of records whose minute or hour was written already: written with the next batch. */
  late: { granularity: Granularity; time: number; bucket: ValueBucket }[];
}

/** What a log's crash marker holds: its oldest open minute and hour. */
export interface ValuesMarker {
  minute: number;
  hour: number;
}

/**
 * The open buckets of every rolled-up log. `add` runs for each appended record; `take` hands the
 * buckets due (closed ones and late ones) to the store's next batch.
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
    let open = this.#logs.get(log);
    if (open === undefined) this.#logs.set(log, (open = { minutes: new Map(), hours: new Map(), late: [] }));
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

  #bucket(open: OpenBuckets, granularity: Granularity, time: number, late: boolean): ValueBucket {
    const cap = granularity === 'm' ? MINUTE_CAP : HOUR_CAP;
    if (late) {
      let entry = open.late.find((l) => l.granularity === granularity && l.time === time);
      if (entry === undefined)
        open.late.push((entry = { granularity, time, bucket: new ValueBucket(cap, this.#part()) }));
      return entry.bucket;
    }
    const buckets = granularity === 'm' ? open.minutes : open.hours;
    let bucket = buckets.get(time);
    if (bucket === undefined) buckets.set(time, (bucket = new ValueBucket(cap, this.#part())));
    return bucket;
  }

  #part(): number {
    this.#parts = (this.#parts + 1) & 0xffff;
    return this.#parts;
  }

  /**
   * The buckets to write now: late ones, and open ones closed by `now` (all of them with `all`).
   * Each log's marker after the take is given too ('' when nothing of it is open).
   */
  take(
    now: number,
    all: boolean,
  ): {
    puts: { log: string; granularity: Granularity; time: number; bucket: ValueBucket }[];
    markers: Map<string, string>;
  } {
    const puts: { log: string; granularity: Granularity; time: number; bucket: ValueBucket }[] = [];
    const markers = new Map<string, string>();
    for (const [log, open] of this.#logs) {
      const before = this.#marker(open);
      for (const late of open.late) puts.push({ log, ...late });
      open.late = [];
      let written = this.#written.get(log);
      for (const [granularity, buckets, span] of [
        ['m', open.minutes, MINUTE],
        ['h', open.hours, HOUR],
      ] as const) {
        for (const [time, bucket] of buckets) {
          if (!all && now < time + span + GRACE) continue;
          puts.push({ log, granularity, time, bucket });
          buckets.delete(time);
          written ??= { minute: -1, hour: -1 };
          if (granularity === 'm') written.minute = Math.max(written.minute, time);
          else written.hour = Math.max(written.hour, time);
        }
      }
      if (written !== undefined) this.#written.set(log, written);
      const after = this.#marker(open);
      if (after !== before) markers.set(log, after);
      if (open.minutes.size === 0 && open.hours.size === 0) this.#logs.delete(log);
    }
    return { puts, markers };
  }

  /** The marker of the open buckets of every log with some, for a batch that writes their records. */
  markerOf(log: string): string {
    const open = this.#logs.get(log);
    return open === undefined ? '' : this.#marker(open);
  }

  #marker(open: OpenBuckets): string {
    if (open.minutes.size === 0 && open.hours.size === 0) return '';
    const marker: ValuesMarker = {
      minute: open.minutes.size === 0 ? Number.MAX_SAFE_INTEGER : Math.min(...open.minutes.keys()),
      hour: open.hours.size === 0 ? Number.MAX_SAFE_INTEGER : Math.min(...open.hours.keys()),
    };
    return JSON.stringify(marker);
  }

  /** The open buckets of a log with times in [from, to) (late ones included). */
  *open(log: string, granularity: Granularity, from: number, to: number): Generator<ValueBucket> {
    const open = this.#logs.get(log);
    if (open === undefined) return;
    for (const [time, bucket] of granularity === 'm' ? open.minutes : open.hours)
      if (time >= from && time < to) yield bucket;
    for (const late of open.late)
      if (late.granularity === granularity && late.time >= from && late.time < to) yield late.bucket;
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
    open.late = open.late.filter((l) => l.time + (l.granularity === 'm' ? MINUTE : HOUR) > cutoff);
  }
}
