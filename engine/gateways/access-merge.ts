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

/** An access record: `_timestamp` is the verdict time, which it is stored under. */
export type AccessRecord = Record<string, unknown> & { _timestamp: number };

/** A verdict's record as it would be written, waiting for its response fields. */
export interface HeldRecord {
  log: string;
  siteId: string;
  /** The record (`accessRecord`): the merge sets its response fields, so it is the merge's from now on. */
  record: AccessRecord;
}

export interface AccessMergeOptions {
  /** Appends a record to the log store. */
  append(log: string, record: AccessRecord): void;
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
    readonly record: AccessRecord,
    readonly deadline: number,
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

/**
 * Sets the response fields of `response` on a record, or removes them when it is null (a record
 * whose line never came says nothing of the answer rather than the verdict's guess).
 */
export function withResponse(record: AccessRecord, response: ResponseFacts | null): AccessRecord {
  if (response === null) {
    // Undefined fields are not stored (and, unlike `delete`, leave the object's shape as it is).
    record.status = undefined;
    record.body_bytes_sent = undefined;
    record.request_time = undefined;
  } else {
    record.status = response.status;
    record.body_bytes_sent = response.bodyBytesSent;
    record.request_time = response.requestTimeSeconds;
  }
  return record;
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
    this.#pending.set(requestId, new Entry(record.log, record.siteId, record.record, deadline));
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
    this.#options.append(entry.log, withResponse(entry.record, response));
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
