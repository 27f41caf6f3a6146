import type { LogRecord } from '#engine/log-store';
import { PARSE_LIMITS } from '#engine/parse';
import { capText, keepLast, type Clock } from '#engine/shared';
import { customLogName, RAW_LOG, type LogConfigsService } from './log-configs-service.ts';

/** The part of the log store ingestion writes to. */
export interface IngestStore {
  append(log: string, record: LogRecord): void;
  backlog(): { records: number; bytes: number };
}

/** Looks up `_intelligence_result` for a record's src_ip and user_agent (the intel module). */
export type IntelLookup = (ip: string, userAgent: string) => unknown;

/**
 * The raw log's record of a line that did not parse (spec 1.2, 7): the line (cut as a parsed
 * record's `raw_data` is), `parsed` 0 and why. A line that parsed is not stored twice: the raw log
 * is a view (rawLogView) that reads it from its configuration's log. TCP and Kafka write the same shape.
 */
export function failedRawRecord(configId: string, line: string, logId: string, now: number, reason: string): LogRecord {
  return {
    _timestamp: now,
    log_id: logId,
    log_setting_id: configId,
    parsed: 0,
    reason,
    raw_data: capText(line, PARSE_LIMITS.rawData),
  };
}

/** Sets a parsed record's `_intelligence_result` from its src_ip and user_agent. */
export function addIntelligence(record: Record<string, unknown>, intel: IntelLookup): void {
  record._intelligence_result = intel(
    typeof record.src_ip === 'string' ? record.src_ip : '',
    typeof record.user_agent === 'string' ? record.user_agent : '',
  );
}

/** A received line a configuration could not use, with why (spec 2.2: an operator sees why data is missing). */
export interface FailedRecord {
  at: number;
  code: string;
  reason: string;
  field: string | null;
  /** What the console words the reason with (the time text, the line's length, ...). */
  params: Readonly<Record<string, string | number>>;
  /** The record id it would have had (Kafka: topic-partition-offset). */
  logId: string | null;
  /** The line, cut to FAILED_LINE_CHARS. */
  line: string;
}

export interface IngestCounts {
  received: number;
  parsed: number;
  discarded: number;
  /** Lines that came for a configuration that no longer exists (deleted while data flowed). */
  orphaned: number;
  lastReceivedAt: number | null;
}

/** Failed records kept per configuration (the newest). */
export const FAILED_KEPT = 100;
const FAILED_LINE_CHARS = 2048;

const zeroCounts = (): IngestCounts => ({ received: 0, parsed: 0, discarded: 0, orphaned: 0, lastReceivedAt: null });

/**
 * Turns the lines a TCP or BROKER configuration received into records: each line is parsed with the
 * configuration's parser; a parsed record goes to `custom:<id>` (indexed on the configuration's key
 * fields), where the raw log's view finds it; a line that does not parse goes to the stored raw log
 * with `parsed` 0 and the reason (spec 7); a line
 * missing a required field is not in the configuration's log (spec 7: not visible in search), is
 * counted as discarded and kept with its reason among the last FAILED_KEPT. Synchronous: a Kafka
 * consumer puts its offsets right after, in the same batch as these records.
 */
export class LogIngest {
  readonly #counts = new Map<string, IngestCounts>();
  readonly #failed = new Map<string, FailedRecord[]>();
  #sequence = 0;
  readonly #prefix: string;

  constructor(
    private readonly deps: {
      store: IngestStore;
      configs: LogConfigsService;
      clock: Clock;
      intel?: IntelLookup;
      /** A short id of this start, so TCP records' log_id never repeats across restarts. */
      boot?: string;
    },
  ) {
    this.#prefix = `${deps.boot ?? Date.now().toString(36)}-`;
  }

  /**
   * Parses and stores `lines` of one configuration. `logIds` (Kafka: topic-partition-offset) name
   * the records; otherwise each gets `<boot>-<n>`.
   */
  write(configId: string, lines: readonly string[], logIds?: readonly string[]): void {
    const counts = this.#countsOf(configId);
    const now = this.deps.clock.now();
    counts.received += lines.length;
    counts.lastReceivedAt = now;
    const parser = this.deps.configs.parser(configId);
    if (parser === undefined) {
      counts.orphaned += lines.length;
      return;
    }
    const log = customLogName(configId);
    const intel = parser.intelligence ? this.deps.intel : undefined;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const logId = logIds?.[i] ?? `${this.#prefix}${(this.#sequence++).toString(36)}`;
      const outcome = parser.parse(line, { now, logId });
      if (outcome.ok) {
        const record = outcome.record as LogRecord;
        if (intel) addIntelligence(record, intel);
        this.deps.store.append(log, record);
        counts.parsed++;
      } else {
        counts.discarded++;
        this.#keepFailed(configId, {
          at: now,
          code: outcome.code,
          reason: outcome.reason,
          field: outcome.field ?? null,
          params: outcome.params,
          logId,
          line,
        });
        this.deps.store.append(RAW_LOG, failedRawRecord(configId, line, logId, now, outcome.reason));
      }
    }
  }

  /** Records appended and not yet written: the intakes pause their senders while it is high. */
  backlog(): number {
    return this.deps.store.backlog().records;
  }

  counts(configId: string): IngestCounts {
    return { ...(this.#counts.get(configId) ?? zeroCounts()) };
  }

  /** The newest failed records of a configuration, newest first. */
  failed(configId: string): FailedRecord[] {
    return [...(this.#failed.get(configId) ?? [])].reverse();
  }

  /** Forgets a deleted configuration's counters and failures. */
  forget(configId: string): void {
    this.#counts.delete(configId);
    this.#failed.delete(configId);
  }

  #countsOf(configId: string): IngestCounts {
    let counts = this.#counts.get(configId);
    if (counts === undefined) this.#counts.set(configId, (counts = zeroCounts()));
    return counts;
  }

  #keepFailed(configId: string, failed: FailedRecord): void {
    let ring = this.#failed.get(configId);
    if (ring === undefined) this.#failed.set(configId, (ring = []));
    const line = failed.line.length > FAILED_LINE_CHARS ? `${failed.line.slice(0, FAILED_LINE_CHARS)}…` : failed.line;
    keepLast(ring, [{ ...failed, line }], FAILED_KEPT);
  }
}
