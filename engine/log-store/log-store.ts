import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';

import { recordKey, rangeBounds } from './keys.ts';

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

  private constructor(db: ClassicLevel<Buffer, string>) {
    this.#db = db;
  }

  static async open(dataDir: string): Promise<LogStore> {
    const db = new ClassicLevel<Buffer, string>(join(dataDir, 'logs'), {
      keyEncoding: 'buffer',
      valueEncoding: 'utf8',
    });
    await db.open();
    return new LogStore(db);
  }

  append(log: string, record: LogRecord): void {
    this.#seq = (this.#seq + 1) >>> 0;
    this.#pending.push({ type: 'put', key: recordKey(log, record._timestamp, this.#seq), value: JSON.stringify(record) });
    if (this.#pending.length >= 1000) void this.flush();
    else this.#timer ??= setImmediate(() => void this.flush());
  }

  async flush(): Promise<void> {
    if (this.#timer) {
      clearImmediate(this.#timer);
      this.#timer = null;
    }
    if (this.#flushing) await this.#flushing;
    if (this.#pending.length === 0) return;
    const batch = this.#pending.splice(0, this.#pending.length);
    this.#flushing = this.#db.batch(batch).finally(() => {
      this.#flushing = null;
    });
    await this.#flushing;
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

