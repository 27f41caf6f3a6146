import type { ResponseFacts } from '#engine/verdict';
import { REQUEST_ID } from './gateway-log-line.ts';

/**
 * The verdict's access records waiting for nginx's log line of the same request. With auth_request
 * the verdict is made before the origin answers, so its record has no status, bytes or duration;
 * nginx's line brings them a few milliseconds after the answer. A record is held until its line
 * arrives, for at most `waitMs` (then it is written without those fields: a lost line leaves them
 * empty, never the record missing) and among at most `maxPending` (over that the oldest is written
 * at once). Every record is written with its verdict time. Held records live in memory only: on
 * stop `close()` writes them all; a crash loses at most the records of the last `waitMs`.
 */

/** A verdict's record as it would be written, waiting for its response fields. */
export interface HeldRecord {
  log: string;
  siteId: string;
  /** The verdict time: the record's `_timestamp` and the time it is stored under. */
  time: number;
  /** The record's JSON (`accessRecordJson` without response facts). */
  json: string;
  /** The record as an object (without intelligence), for the fields the log store indexes. */
  facets?: Readonly<Record<string, unknown>> | undefined;
}

export interface AccessMergeOptions {
  /** Appends a record to the log store (`facets`: the record object, so its JSON need not be parsed). */
  append(log: string, time: number, json: string, facets?: Readonly<Record<string, unknown>>): void;
  /** A monotonic clock in milliseconds (not the record clock: a test's record clock may stand still). */
  now(): number;
  waitMs: number;
  maxPending: number;
}

export interface AccessMergeCounts {
  held: number;
  merged: number;
  /** Written without response fields because no line came within waitMs (or on close). */
  unmerged: number;
  /** Written early, without response fields, because maxPending records were waiting. */
  evicted: number;
}

/** A held record and when its wait ends (a class: one shape for every entry of the map). */
class Entry {
  constructor(
    readonly log: string,
    readonly siteId: string,
    readonly time: number,
    readonly json: string,
    readonly deadline: number,
    readonly facets: Readonly<Record<string, unknown>> | undefined,
  ) {}
}

export const DEFAULT_MERGE_WAIT_MS = 3000;
export const DEFAULT_MAX_PENDING = 100_000;
/**
 * A sweep writes every record due by then, and the timer fires at most this often: records that
 * time out are written in runs, not one by one between fresh ones (each switch between seconds
 * starts a new block in the log store). A record waits at most waitMs plus this.
 */
export const SWEEP_EVERY_MS = 100;

const RESPONSE_SPAN = /^,"status":\d+,"body_bytes_sent":\d+,"request_time":[\d.e+-]+$/;

/**
 * The position of the response fields in a record of `accessRecordJson`: `,"status":` is the first
 * of its kind there (a `"` inside a JSON string is always escaped, so `,"` never occurs in one), and
 * the response fields run up to `,"guard_status":`.
 */
function responseSpan(json: string): [number, number] {
  const start = json.indexOf(',"status":');
  const end = start < 0 ? -1 : json.indexOf(',"guard_status":', start);
  return end > start && RESPONSE_SPAN.test(json.slice(start, end)) ? [start, end] : [-1, -1];
}

/**
 * The record with the response fields of `response`, or without any when it is null: spliced into
 * place in a record of `accessRecordJson`, set on the parsed record of any other shape.
 */
export function withResponse(json: string, response: ResponseFacts | null): string {
  const [start, end] = responseSpan(json);
  if (start < 0) {
    const record = JSON.parse(json) as Record<string, unknown>;
    delete record.status;
    delete record.body_bytes_sent;
    delete record.request_time;
    if (response) {
      record.status = response.status;
      record.body_bytes_sent = response.bodyBytesSent;
      record.request_time = response.requestTimeSeconds;
    }
    return JSON.stringify(record);
  }
  const fields = response
    ? `,"status":${response.status},"body_bytes_sent":${response.bodyBytesSent},"request_time":${response.requestTimeSeconds}`
    : '';
  return `${json.slice(0, start)}${fields}${json.slice(end)}`;
}

export class AccessMerge {
  readonly #options: AccessMergeOptions;
  /** In hold order, which is deadline order: the first entry is the next due. */
  readonly #pending = new Map<string, Entry>();
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  readonly counts: AccessMergeCounts = { held: 0, merged: 0, unmerged: 0, evicted: 0 };

  constructor(options: AccessMergeOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#pending.size;
  }

  /**
   * Holds a record until the line of `requestId` arrives. False (nothing held: the caller writes
   * the record itself) when the id cannot be one of nginx's or the merge is closed.
   */
  hold(requestId: string, record: HeldRecord): boolean {
    if (this.#closed || !REQUEST_ID.test(requestId)) return false;
    // The same id again (a request redirected inside nginx to a protected location is asked about
    // twice): the earlier record is written as it is, the later one waits for the line.
    const earlier = this.#pending.get(requestId);
    if (earlier !== undefined) {
      this.#pending.delete(requestId);
      this.#write(earlier, null);
      this.counts.unmerged++;
    }
    if (this.#pending.size >= this.#options.maxPending) {
      const [oldestId, oldest] = this.#pending.entries().next().value as [string, Entry];
      this.#pending.delete(oldestId);
      this.#write(oldest, null);
      this.counts.evicted++;
    }
    const deadline = this.#options.now() + this.#options.waitMs;
    this.#pending.set(
      requestId,
      new Entry(record.log, record.siteId, record.time, record.json, deadline, record.facets),
    );
    this.counts.held++;
    this.#arm();
    return true;
  }

  /**
   * The line of `requestId` arrived: its record is written with the response fields. False when no
   * record of that site waits for it (already written, never held, or held by another site).
   */
  complete(requestId: string, siteId: string, response: ResponseFacts): boolean {
    const entry = this.#pending.get(requestId);
    if (entry === undefined || entry.siteId !== siteId) return false;
    this.#pending.delete(requestId);
    this.#write(entry, response);
    this.counts.merged++;
    return true;
  }

  /** Writes, without response fields, every record whose wait is over. */
  sweep(): void {
    const now = this.#options.now();
    for (const [id, entry] of this.#pending) {
      if (entry.deadline > now) break;
      this.#pending.delete(id);
      this.#write(entry, null);
      this.counts.unmerged++;
    }
    this.#arm();
  }

  /** Writes every held record as it is (their lines may still come: they are then stored alone). */
  flush(): void {
    for (const entry of this.#pending.values()) {
      this.#write(entry, null);
      this.counts.unmerged++;
    }
    this.#pending.clear();
    this.#disarm();
  }

  /** Writes everything held and holds nothing more. */
  close(): void {
    this.#closed = true;
    this.flush();
  }

  #write(entry: Entry, response: ResponseFacts | null): void {
    // The record is spliced here, off the verdict's path (a line or a sweep writes it).
    const facets =
      entry.facets === undefined || response === null
        ? entry.facets
        : {
            ...entry.facets,
            status: response.status,
            body_bytes_sent: response.bodyBytesSent,
            request_time: response.requestTimeSeconds,
          };
    this.#options.append(entry.log, entry.time, withResponse(entry.json, response), facets);
  }

  #arm(): void {
    if (this.#timer !== null) return;
    const first = this.#pending.values().next();
    if (first.done === true) return;
    const delay = Math.max(first.value.deadline - this.#options.now(), SWEEP_EVERY_MS);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.sweep();
    }, delay);
    this.#timer.unref();
  }

  #disarm(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
