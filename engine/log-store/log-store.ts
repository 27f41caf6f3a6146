import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { recordKey, rangeBounds } from './keys.ts';

/** Records buffered before a flush is forced without waiting for the timer. */
const FLUSH_AT = 2000;
/**
 * Appends are written at most this long after they were made: one LevelDB batch per interval
 * instead of one per event-loop turn keeps the write path's fixed costs off the verdict hot path.
 */
const FLUSH_AFTER_MS = 20;
/** 0xFF never starts a UTF-8 log name, so meta keys cannot collide with records. */
const BOOT_KEY = Buffer.from([0xff, 0x62, 0x6f, 0x6f, 0x74]);
const SECOND = 1000;

export type LogRecord = Readonly<Record<string, unknown>> & { _timestamp: number };

export interface ReadOptions {
  from: number;
  to: number;
  limit?: number;
}

interface Pending {
  log: string;
  second: number;
  json: string;
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
  #pending: Pending[] = [];
  #seq = 0;
  #flushing: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;

  private constructor(db: ClassicLevel<Buffer, string>, boot: number) {
    this.#db = db;
    this.#seq = (boot & 0xfff) << 20;
  }

  static async open(dataDir: string): Promise<LogStore> {
    const db = new ClassicLevel<Buffer, string>(join(dataDir, 'logs'), {
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
    return new LogStore(db, boot);
  }

  append(log: string, record: LogRecord): void {
    this.#pending.push({ log, second: Math.floor(record._timestamp / SECOND) * SECOND, json: JSON.stringify(record) });
    if (this.#pending.length >= FLUSH_AT) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_AFTER_MS);
  }

  /** Writes everything appended so far, one flush at a time. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#flushing ??= this.#drain().finally(() => {
      this.#flushing = null;
    });
    return this.#flushing;
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const records = this.#pending;
      this.#pending = [];
      const blocks = new Map<string, { log: string; second: number; lines: string[] }>();
      for (const r of records) {
        const id = `${r.second}\u0000${r.log}`;
        const block = blocks.get(id);
        if (block) block.lines.push(r.json);
        else blocks.set(id, { log: r.log, second: r.second, lines: [r.json] });
      }
      const batch = [];
      for (const block of blocks.values()) {
        this.#seq = (this.#seq & 0xfff00000) | ((this.#seq + 1) & 0xfffff);
        batch.push({ type: 'put' as const, key: recordKey(block.log, block.second, this.#seq), value: block.lines.join('\n') });
      }
      await this.#db.batch(batch);
    }
  }

  /** Records of one log with from <= _timestamp < to, in time order (append order within a time). */
  async read(log: string, options: ReadOptions): Promise<LogRecord[]> {
    await this.flush();
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const out: LogRecord[] = [];
    const first = Math.floor(options.from / SECOND) * SECOND;
    for await (const value of this.#db.values(rangeBounds(log, first, options.to))) {
      const block: LogRecord[] = [];
      for (const line of value.split('\n')) {
        const record = JSON.parse(line) as LogRecord;
        if (record._timestamp >= options.from && record._timestamp < options.to) block.push(record);
      }
      block.sort((a, b) => a._timestamp - b._timestamp);
      for (const record of block) {
        if (out.length >= limit) return out;
        out.push(record);
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.#db.close();
  }
}
