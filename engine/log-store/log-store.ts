import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';

import { recordKey, rangeBounds } from './keys.ts';

const BATCH_SIZE = 1000;
/** 0xFF never starts a UTF-8 log name, so meta keys cannot collide with records. */
const BOOT_KEY = Buffer.from([0xff, 0x62, 0x6f, 0x6f, 0x74]);

export type LogRecord = Readonly<Record<string, unknown>> & { _timestamp: number };

export interface ReadOptions {
  from: number;
  to: number;
  limit?: number;
}

/**
 * The log store over LevelDB. Appends are buffered and written as one batch per tick (or sooner when
 * the buffer is large), so a burst of requests costs one write.
 */
export class LogStore {
  readonly #db: ClassicLevel<Buffer, string>;
  readonly #pending: { type: 'put'; key: Buffer; value: string }[] = [];
  #seq = 0;
  #flushing: Promise<void> | null = null;
  #timer: NodeJS.Immediate | null = null;

  private constructor(db: ClassicLevel<Buffer, string>, boot: number) {
    this.#db = db;
    this.#seq = (boot & 0xfff) << 20;
  }

  static async open(dataDir: string): Promise<LogStore> {
    const db = new ClassicLevel<Buffer, string>(join(dataDir, 'logs'), {
      keyEncoding: 'buffer',
      valueEncoding: 'utf8',
    });
    await db.open();
    // Each opening gets a boot number kept in the high bits of the sequence, so records written
    // after a restart never take the key of an earlier record with the same timestamp.
    const stored = await db.get(BOOT_KEY);
    const boot = stored === undefined ? 1 : Number(stored) + 1;
    await db.put(BOOT_KEY, String(boot));
    return new LogStore(db, boot);
  }

  append(log: string, record: LogRecord): void {
    this.#seq = (this.#seq & 0xfff00000) | ((this.#seq + 1) & 0xfffff);
    this.#pending.push({ type: 'put', key: recordKey(log, record._timestamp, this.#seq), value: JSON.stringify(record) });
    if (this.#pending.length >= BATCH_SIZE) void this.flush();
    else this.#timer ??= setImmediate(() => void this.flush());
  }

  /** Writes everything appended so far, in batches of at most BATCH_SIZE, one flush at a time. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearImmediate(this.#timer);
      this.#timer = null;
    }
    this.#flushing ??= this.#drain().finally(() => {
      this.#flushing = null;
    });
    return this.#flushing;
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      await this.#db.batch(this.#pending.splice(0, BATCH_SIZE));
    }
  }

  async read(log: string, options: ReadOptions): Promise<LogRecord[]> {
    await this.flush();
    const out: LogRecord[] = [];
    for await (const value of this.#db.values({ ...rangeBounds(log, options.from, options.to), limit: options.limit ?? -1 })) {
      out.push(JSON.parse(value) as LogRecord);
    }
    return out;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.#db.close();
  }
}

