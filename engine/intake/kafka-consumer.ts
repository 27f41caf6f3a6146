import { createHash } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import type { EncodedValues, LogRecord } from '#engine/log-store';
import type { LogParseConfig } from '#engine/parse';
import { keepLast, type Clock, type Logger } from '#engine/shared';
import {
  Calls,
  errorText,
  newReaderCounts,
  newWrittenCounts,
  offsetMetaName,
  type BrokerConnection,
  type KafkaConfigCounts,
  type ParsedBatch,
  type ReaderCall,
  type ReaderCounts,
  type ReaderSettings,
  type ReaderStart,
  type ToHost,
  type ToReader,
} from './kafka-link.ts';
import { startThread } from './thread.ts';

// One BROKER configuration's consumer, the engine's side: see the contract at the top of
// kafka-intake.ts. kafkajs and the parser run in the configuration's own thread (kafka-worker.ts).

export {
  groupIdOf,
  offsetMetaName,
  type KafkaConfigCounts,
  type KafkaFailure,
  type KafkaState,
  type PartitionLag,
  type SaslMechanism,
} from './kafka-link.ts';

/** A BROKER configuration as the intake needs it (validated by the API at the edge). */
export interface BrokerConfig extends BrokerConnection {
  /** The configuration's parsing, compiled in the Kafka thread; replaced there when only it changes. */
  parse: LogParseConfig;
  /** Runs on each parsed record in the engine's thread before it is stored (the intelligence lookup). */
  enrich?: (record: Record<string, unknown>) => void;
}

/** The part of the log store the intake writes through (LogStore satisfies it). */
export interface KafkaStore {
  append(log: string, record: LogRecord, encoded?: EncodedValues): void;
  putMeta(name: string, value: string): void;
  getMeta(name: string): Promise<string | undefined>;
  flush(): Promise<void>;
  backlog(): { records: number; bytes: number };
}

/** A received message that did not parse, as handed to the raw-log writer (a parsed one is its record). */
export interface FailedMessage {
  /** The value as UTF-8 text. */
  line: string;
  /** `<topic>-<partition>-<offset>`. */
  logId: string;
  /** Arrival moment (epoch ms). */
  now: number;
  /** Why it did not parse. */
  reason: string;
}

export interface KafkaSourceOptions extends ReaderSettings {
  store: KafkaStore;
  log: string;
  failed: ((configId: string, message: FailedMessage) => void) | undefined;
  logger: Logger;
  clock: Clock;
}

/** What a change must touch to need a new connection (the parser is swapped in place). */
export function connectionDigest(config: BrokerConnection): string {
  const tls = config.tls === undefined || config.tls === false ? false : config.tls === true ? true : config.tls;
  const fields = [
    config.brokers,
    config.topic,
    config.username ?? null,
    config.password ?? null,
    config.mechanism ?? null,
    tls,
  ];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

/** One partition's batches: whether its last one is being written, and those waiting for that. */
interface Lane {
  writing: boolean;
  waiting: { thread: Worker; id: number; batch: ParsedBatch }[];
}

export class KafkaSource {
  readonly id: string;
  readonly digest: string;
  /** The Kafka thread's counters, as it last reported them. */
  #counts: ReaderCounts = newReaderCounts();
  /** What is written, counted here as it is written (a thread that ends cannot lose a count). */
  readonly #written = newWrittenCounts();
  #config: BrokerConfig;
  readonly #options: KafkaSourceOptions;
  #thread: Worker | null = null;
  #stopping = false;
  #restartTimer: NodeJS.Timeout | null = null;
  #restartDelay: number;
  readonly #calls = new Calls<ReaderCall>((id, call) => this.#post({ t: 'call', id, call }));
  /** Per partition: whether its last batch is being written, and the batches waiting for that. */
  readonly #lanes = new Map<number, Lane>();
  /** Batches read by an earlier launch than this are refused: a write of that launch failed (one thread's). */
  #refusedBelow = 0;

  constructor(config: BrokerConfig, options: KafkaSourceOptions) {
    this.id = config.id;
    this.digest = connectionDigest(config);
    this.#config = config;
    this.#options = options;
    this.#restartDelay = options.restartDelayMs.initial;
  }

  /** The counters: what is written, and the rest as the Kafka thread last reported it. */
  get counts(): KafkaConfigCounts {
    return { ...this.#counts, ...this.#written };
  }

  /** Swaps the parsing (a parsing change needs no new connection). */
  setParser(config: Pick<BrokerConfig, 'parse' | 'enrich'>): void {
    this.#config = { ...this.#config, parse: config.parse, enrich: config.enrich };
    this.#post({ t: 'parser', parse: config.parse, encode: config.enrich === undefined });
  }

  /** Starts consuming in the background; failures show in `counts` and are retried with back-off. */
  start(): void {
    const options = this.#options;
    const settings: ReaderSettings = {
      clientId: options.clientId,
      highWaterMark: options.highWaterMark,
      lowWaterMark: options.lowWaterMark,
      backlogPollMs: options.backlogPollMs,
      lagRefreshMs: options.lagRefreshMs,
      sessionTimeoutMs: options.sessionTimeoutMs,
      rebalanceTimeoutMs: options.rebalanceTimeoutMs,
      restartDelayMs: options.restartDelayMs,
      recentFailures: options.recentFailures,
      retries: options.retries,
      maxBytesPerPartition: options.maxBytesPerPartition,
    };
    const { parse, enrich: _enrich, ...connection } = this.#config;
    const start: ReaderStart = {
      connection,
      parse,
      settings,
      clockSkewMs: options.clock.now() - Date.now(),
      counts: { ...this.#counts, paused: false },
      encode: this.#config.enrich === undefined,
    };
    const thread = startThread(import.meta.url, 'kafka-worker', start);
    this.#thread = thread;
    // Launches count from 1 again in a new thread; what an old one handed over is dropped.
    this.#refusedBelow = 0;
    thread.on('message', (message: ToHost) => this.#onMessage(thread, message));
    thread.on('error', (error) => {
      options.logger.warn({ configId: this.id, error: errorText(error) }, 'kafka thread failed');
      this.#counts = {
        ...this.#counts,
        state: 'retrying',
        lastError: errorText(error),
        lastErrorAt: options.clock.now(),
      };
    });
    thread.on('exit', () => {
      if (this.#thread !== thread) return;
      this.#thread = null;
      this.#calls.failAll('the Kafka thread ended');
      // Its batches not yet appended are dropped: the next thread reads them again.
      for (const lane of this.#lanes.values()) lane.waiting = [];
      if (this.#stopping) return;
      // An unexpected end: a new thread after a pause, which seeks to the stored offsets again. It
      // starts once the writes under way are done, so that it reads the offsets they store.
      this.#counts = { ...this.#counts, state: 'retrying', restarts: this.#counts.restarts + 1 };
      const delay = this.#restartDelay;
      this.#restartDelay = Math.min(options.restartDelayMs.max, delay * 2);
      void options.store
        .flush()
        .catch(() => undefined)
        .then(() => {
          if (this.#stopping) return;
          this.#restartTimer = setTimeout(() => {
            this.#restartTimer = null;
            if (!this.#stopping) this.start();
          }, delay);
        });
    });
  }

  /** Stops fetching and leaves the group; what was appended is flushed before it resolves. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    const thread = this.#thread;
    if (thread !== null) {
      // The thread commits the stored offsets while still in the group, then leaves it; batches in
      // hand are stored meanwhile (their calls are still answered).
      await this.#call({ method: 'stop' }).catch(() => undefined);
      this.#thread = null;
      await thread.terminate();
    }
    await this.#options.store.flush();
    this.#counts = { ...this.#counts, state: 'stopped', paused: false };
  }

  /**
   * Ends the Kafka thread as a crash would, without leaving the group or committing: a new thread
   * follows, from the stored offsets. Fault injection (tests); false when no thread runs.
   */
  async endThread(): Promise<boolean> {
    const thread = this.#thread;
    if (thread === null || this.#stopping) return false;
    await thread.terminate();
    return true;
  }

  /** Reads the partitions' high watermarks and compares them with the stored next offsets. */
  async refreshLag(): Promise<void> {
    if (this.#stopping) return;
    await this.#call({ method: 'refreshLag' }).catch(() => undefined);
  }

  #post(message: ToReader): void {
    this.#thread?.postMessage(message);
  }

  #call(call: ReaderCall): Promise<void> {
    return this.#thread === null ? Promise.resolve() : this.#calls.call<void>(call);
  }

  #onMessage(thread: Worker, message: ToHost): void {
    if (thread !== this.#thread) return;
    switch (message.t) {
      case 'counts':
        // After stop() the thread's last word does not undo 'stopped'.
        if (!this.#stopping || this.#thread !== null) this.#counts = message.counts;
        return;
      case 'log':
        this.#options.logger[message.level](message.fields, message.message);
        return;
      case 'reply':
        this.#calls.answered(message);
        return;
      case 'call':
        this.#answer(thread, message.id, message.call);
        return;
    }
  }

  /** Answers `thread` only, and only while it is the current one. */
  #reply(thread: Worker, id: number, answer: { value: unknown } | { error: unknown }): void {
    if (thread !== this.#thread) return;
    thread.postMessage(
      'error' in answer
        ? ({ t: 'reply', id, error: errorText(answer.error) } satisfies ToReader)
        : ({ t: 'reply', id, value: answer.value } satisfies ToReader),
    );
  }

  #answer(thread: Worker, id: number, call: Extract<ToHost, { t: 'call' }>['call']): void {
    const { store } = this.#options;
    const reply = (value: unknown): void => this.#reply(thread, id, { value });
    const fail = (error: unknown): void => this.#reply(thread, id, { error });
    switch (call.method) {
      case 'storedNext':
        store
          .getMeta(offsetMetaName(this.id, this.#config.topic, call.partition))
          .then((stored) => reply(stored === undefined ? undefined : Number(stored)), fail);
        return;
      case 'backlog':
        reply(store.backlog().records);
        return;
      case 'store': {
        let lane = this.#lanes.get(call.batch.partition);
        if (lane === undefined) this.#lanes.set(call.batch.partition, (lane = { writing: false, waiting: [] }));
        lane.waiting.push({ thread, id, batch: call.batch });
        this.#pump(lane);
        return;
      }
    }
  }

  /**
   * Appends a partition's next batch once the one before it is written: were that write to fail,
   * no later batch of the partition may be stored with its offset past the lost records.
   */
  #pump(lane: Lane): void {
    const { store } = this.#options;
    while (!lane.writing && lane.waiting.length > 0) {
      const { thread, id, batch } = lane.waiting.shift()!;
      const fail = (error: unknown): void => this.#reply(thread, id, { error });
      if (thread !== this.#thread) continue;
      if (batch.launch < this.#refusedBelow) {
        fail(new Error('a write before this batch failed'));
        continue;
      }
      try {
        this.#store(batch);
      } catch (error) {
        fail(error);
        continue;
      }
      lane.writing = true;
      store.flush().then(
        () => {
          lane.writing = false;
          this.#countWritten(batch);
          this.#reply(thread, id, { value: store.backlog().records });
          this.#pump(lane);
        },
        (error: unknown) => {
          // Not stored, offset included: the thread starts a new consumer from the stored offsets.
          lane.writing = false;
          this.#refusedBelow = Math.max(this.#refusedBelow, batch.launch + 1);
          fail(error);
          this.#pump(lane);
        },
      );
    }
  }

  /**
   * A parsed batch into the store: from the first append to putMeta there is no await, so the
   * records and the partition's next offset go into the same LevelDB batch, and after a crash
   * either both are stored or neither.
   */
  #store(batch: ParsedBatch): void {
    const { store, log } = this.#options;
    const { enrich } = this.#config;
    const { records, encoded, now } = batch;
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      const values = encoded[i];
      if (enrich !== undefined) {
        // A record changed here is encoded by the store.
        enrich(record);
        store.append(log, record as LogRecord);
      } else store.append(log, record as LogRecord, values ?? undefined);
    }
    const failed = this.#options.failed;
    if (failed !== undefined)
      for (const line of batch.failed)
        failed(this.id, { line: line.line, logId: line.logId, now, reason: line.reason });
    store.putMeta(offsetMetaName(this.id, batch.topic, batch.partition), String(batch.next));
  }

  #countWritten(batch: ParsedBatch): void {
    const written = this.#written;
    written.received += batch.received;
    written.bytes += batch.bytes;
    written.stored += batch.records.length;
    written.discarded += batch.discarded;
    keepLast(written.recentFailures, batch.discards, this.#options.recentFailures);
  }
}
