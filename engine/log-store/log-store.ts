import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { silentLogger, type Logger } from '#engine/shared';
import { recordKey, rangeBounds } from './keys.ts';
import {
  DEFAULT_BUDGET_CHECK_MS,
  OldestFirstTrimmer,
  checkAfterBytes,
  enforceBudget,
  statVolume,
  type BudgetCheck,
  type DiskBudget,
  type VolumeProbe,
} from './disk-budget.ts';

/** Records buffered before a flush is forced without waiting for the timer. */
const FLUSH_AT = 2000;
/**
 * Appends are written at most this long after they were made: one LevelDB batch per interval
 * instead of one per event-loop turn keeps the write path's fixed costs off the verdict hot path.
 */
const FLUSH_AFTER_MS = 20;
/**
 * Records are encoded straight into blocks of this size, reused from a small pool: no per-record
 * string is kept until the flush, and no block is large enough for the allocator to map fresh pages.
 */
const BLOCK_BYTES = 64 * 1024;
const POOLED_BLOCKS = 32;
const NEWLINE = 0x0a;
/** 0xFF never starts a UTF-8 log name, so meta keys cannot collide with records. */
const BOOT_KEY = Buffer.from([0xff, 0x62, 0x6f, 0x6f, 0x74]);
const META_START = Buffer.from([0xff]);
const SECOND = 1000;

const defaultOnError = (error: unknown): void => {
  process.emitWarning(`log store write failed: ${error instanceof Error ? error.message : String(error)}`);
};

/** Whether a record (and its newline) still fits in a block. */
function fits(block: Block, json: string): boolean {
  const room = block.buf.length - block.used;
  // A UTF-16 code unit takes at most 3 bytes in UTF-8; only when that bound does not fit is the
  // exact length worth measuring.
  return json.length * 3 + 1 <= room || Buffer.byteLength(json) + 1 <= room;
}

export type LogRecord = Readonly<Record<string, unknown>> & { _timestamp: number };

export interface ReadOptions {
  from: number;
  to: number;
  limit?: number;
}

export interface LogStoreOptions {
  /** Disk budget with oldest-first deletion; none when absent. */
  budget?: DiskBudget;
  /** Hears what the budget check deleted. */
  logger?: Logger;
  /** Free and total space of the data volume (default fs.statfs). */
  volume?: VolumeProbe;
}

/** A block of one log's records of one second, newline-separated JSON in `buf[0, used)`. */
interface Block {
  readonly log: string;
  readonly second: number;
  readonly buf: Buffer;
  used: number;
}

/**
 * The log store over LevelDB. Records are stored in blocks: one LevelDB value per log and second
 * holding that flush's records of that second, newline-separated JSON. Time precision of logs is the
 * second (spec 8), so a range read scans the blocks of its seconds and filters the edges, and a burst
 * of thousands of requests costs a handful of puts instead of one per record.
 *
 * Appends are buffered and flushed every FLUSH_AFTER_MS (or sooner when the buffer is large).
 */
export class LogStore {
  readonly #db: ClassicLevel<Buffer, string>;
  /** The block each log is appending to. */
  readonly #open = new Map<string, Block>();
  #sealed: Block[] = [];
  #pendingRecords = 0;
  readonly #pool: Buffer[] = [];
  #seq = 0;
  #tail: Promise<void> = Promise.resolve();
  #queued = false;
  #timer: NodeJS.Timeout | null = null;
  readonly #onError: (error: unknown) => void;
  readonly #dir: string;
  readonly #budget: DiskBudget | undefined;
  readonly #logger: Logger;
  readonly #volume: VolumeProbe;
  readonly #trimmer: OldestFirstTrimmer;
  #budgetTimer: NodeJS.Timeout | null = null;
  #closing = false;
  #checking: Promise<BudgetCheck | null> | null = null;
  #writtenSinceCheck = 0;

  private constructor(
    db: ClassicLevel<Buffer, string>,
    dir: string,
    boot: number,
    onError: (error: unknown) => void,
    options: LogStoreOptions,
  ) {
    this.#db = db;
    this.#dir = dir;
    this.#seq = (boot & 0xfff) << 20;
    this.#onError = onError;
    this.#budget = options.budget;
    this.#logger = options.logger ?? silentLogger;
    this.#volume = options.volume ?? statVolume;
    this.#trimmer = new OldestFirstTrimmer(db, META_START);
    if (this.#budget) {
      this.#budgetTimer = setInterval(
        () => void this.checkBudget(),
        this.#budget.checkEveryMs ?? DEFAULT_BUDGET_CHECK_MS,
      );
      this.#budgetTimer.unref();
    }
  }

  /**
   * `onError` hears of a background write (or budget check) that failed: its records are lost, the
   * store goes on. With `options.budget` the store checks its size every 30 s and after write bursts.
   */
  static async open(
    dataDir: string,
    onError: (error: unknown) => void = defaultOnError,
    options: LogStoreOptions = {},
  ): Promise<LogStore> {
    const dir = join(dataDir, 'logs');
    const db = new ClassicLevel<Buffer, string>(dir, {
      keyEncoding: 'buffer',
      valueEncoding: 'utf8',
      // A larger memtable means fewer level-0 files and compactions under a steady log stream.
      writeBufferSize: 16 * 1024 * 1024,
    });
    await db.open();
    // Each opening gets a boot number kept in the high bits of the sequence, so blocks written
    // after a restart never take the key of an earlier block of the same second.
    const stored = await db.get(BOOT_KEY);
    const boot = stored === undefined ? 1 : Number(stored) + 1;
    await db.put(BOOT_KEY, String(boot));
    return new LogStore(db, dir, boot, onError, options);
  }

  append(log: string, record: LogRecord): void {
    this.appendJson(log, record._timestamp, JSON.stringify(record));
  }

  /** Appends a record already serialised as one line of JSON whose `_timestamp` is `timestamp`. */
  appendJson(log: string, timestamp: number, json: string): void {
    const second = Math.floor(timestamp / SECOND) * SECOND;
    let block = this.#open.get(log);
    if (block !== undefined && (block.second !== second || !fits(block, json))) {
      this.#seal(block);
      block = undefined;
    }
    if (block === undefined) {
      block = { log, second, buf: this.#buffer(Buffer.byteLength(json) + 1), used: 0 };
      this.#open.set(log, block);
    }
    if (block.used > 0) block.buf[block.used++] = NEWLINE;
    block.used += block.buf.write(json, block.used);
    if (++this.#pendingRecords >= FLUSH_AT) void this.#schedule().catch(this.#onError);
    else this.#timer ??= setTimeout(this.#tick, FLUSH_AFTER_MS);
  }

  /** Writes everything appended so far (after the batch in flight, if any). */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    return this.#schedule();
  }

  readonly #tick = (): void => {
    this.#timer = null;
    void this.#schedule().catch(this.#onError);
  };

  /**
   * Queues one write of whatever is pending when it runs. Writes run one at a time; appends made
   * while a write is in flight wait for the timer (or the size trigger) instead of following it at
   * once, so a steady stream costs one LevelDB batch per interval, not one per write completion.
   */
  #schedule(): Promise<void> {
    if (!this.#queued) {
      this.#queued = true;
      this.#tail = this.#tail
        .catch(() => undefined)
        .then(() => {
          this.#queued = false;
          return this.#write();
        });
    }
    return this.#tail;
  }

  #buffer(need: number): Buffer {
    if (need > BLOCK_BYTES) return Buffer.allocUnsafeSlow(need);
    return this.#pool.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES);
  }

  #seal(block: Block): void {
    this.#open.delete(block.log);
    this.#sealed.push(block);
  }

  async #write(): Promise<void> {
    for (const block of this.#open.values()) this.#seal(block);
    const blocks = this.#sealed;
    this.#sealed = [];
    this.#pendingRecords = 0;
    if (blocks.length === 0) return;
    let bytes = 0;
    const batch = blocks.map((block) => {
      bytes += block.used;
      this.#seq = (this.#seq & 0xfff00000) | ((this.#seq + 1) & 0xfffff);
      return {
        type: 'put' as const,
        key: recordKey(block.log, block.second, this.#seq),
        value: block.buf.subarray(0, block.used),
      };
    });
    const written = this.#db.batch<Buffer, Buffer>(batch, { valueEncoding: 'buffer' });
    // An open LevelDB copies the batch before batch() returns, so the blocks can be reused at once.
    if (this.#db.status === 'open') {
      for (const block of blocks)
        if (block.buf.length === BLOCK_BYTES && this.#pool.length < POOLED_BLOCKS) this.#pool.push(block.buf);
    }
    await written;
    if (this.#budget && (this.#writtenSinceCheck += bytes) >= checkAfterBytes(this.#budget)) void this.checkBudget();
  }

  /**
   * Checks the disk budget and deletes the oldest records (whole seconds, across logs) until the
   * store is within it. One check runs at a time; a call during a check gets that check's outcome.
   * Null without a budget, or when the check failed (reported to `onError`).
   */
  checkBudget(): Promise<BudgetCheck | null> {
    const budget = this.#budget;
    if (!budget || this.#closing || this.#db.status !== 'open') return Promise.resolve(null);
    this.#writtenSinceCheck = 0;
    this.#checking ??= enforceBudget(this.#trimmer, this.#dir, budget, this.#volume)
      .then(
        (check) => {
          for (const range of check.removed) {
            this.#logger.warn(
              { logs: range.logs, before: new Date(range.before).toISOString(), approxBytes: range.bytes },
              'log store over its disk budget: deleted the oldest records',
            );
          }
          if (!check.withinBudget) {
            this.#logger.error(
              {
                usedBytes: check.after.usedBytes,
                freeBytes: check.after.freeBytes,
                totalBytes: check.after.totalBytes,
              },
              'log store cannot get within its disk budget: other data fills the volume',
            );
          }
          return check;
        },
        (error: unknown) => {
          this.#onError(error);
          return null;
        },
      )
      .finally(() => {
        this.#checking = null;
      });
    return this.#checking;
  }

  /** Records of one log with from <= _timestamp < to, in time order (append order within a time). */
  async read(log: string, options: ReadOptions): Promise<LogRecord[]> {
    await this.flush();
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const out: LogRecord[] = [];
    // Blocks come in key order (second, then sequence); one second may span several blocks, so
    // its records are gathered and put in time order together (a stable sort keeps append order).
    let second = Number.NaN;
    let group: LogRecord[] = [];
    const emit = (): boolean => {
      group.sort((a, b) => a._timestamp - b._timestamp);
      for (const record of group) {
        if (out.length >= limit) return false;
        out.push(record);
      }
      group = [];
      return out.length < limit;
    };
    const first = Math.floor(options.from / SECOND) * SECOND;
    for await (const value of this.#db.values(rangeBounds(log, first, options.to))) {
      for (const line of value.split('\n')) {
        const record = JSON.parse(line) as LogRecord;
        if (record._timestamp < options.from || record._timestamp >= options.to) continue;
        const recordSecond = Math.floor(record._timestamp / SECOND);
        if (recordSecond !== second) {
          if (!emit()) return out;
          second = recordSecond;
        }
        group.push(record);
      }
    }
    emit();
    return out;
  }

  async close(): Promise<void> {
    // No new check starts (the last flush may cross the burst threshold); one under way finishes first.
    this.#closing = true;
    if (this.#budgetTimer) clearInterval(this.#budgetTimer);
    this.#budgetTimer = null;
    await this.#checking;
    await this.flush();
    await this.#db.close();
  }
}
