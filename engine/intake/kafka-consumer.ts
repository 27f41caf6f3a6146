import { createHash } from 'node:crypto';
import {
  Kafka,
  logLevel,
  type Admin,
  type Consumer,
  type EachBatchPayload,
  type KafkaConfig,
  type LogEntry,
  type SASLOptions,
} from 'kafkajs';
import type { LogRecord } from '#engine/log-store';
import type { LogParser, ParseFailureCode } from '#engine/parse';
import type { Clock, Logger } from '#engine/shared';

// One BROKER configuration's consumer: see the contract at the top of kafka-intake.ts.

export type SaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

/** A BROKER configuration as the intake needs it (validated by the API at the edge). */
export interface BrokerConfig {
  /** The configuration's id: names the consumer group, the log and the stored offsets. */
  id: string;
  /** `host:port` of one or more bootstrap brokers. */
  brokers: readonly string[];
  topic: string;
  /** SASL account and password (spec 5.5); SASL is used when both are set. */
  username?: string;
  password?: string;
  /** Default `plain` when an account is set. */
  mechanism?: SaslMechanism;
  /** TLS to the brokers: `true` trusts the system CAs, `{ ca }` a PEM bundle. */
  tls?: boolean | { ca?: string };
  /** The configuration's compiled parser; replaced in place when only the parsing changes. */
  parser: Pick<LogParser, 'parse'>;
}

/** The part of the log store the intake writes through (LogStore satisfies it). */
export interface KafkaStore {
  append(log: string, record: LogRecord): void;
  putMeta(name: string, value: string): void;
  getMeta(name: string): Promise<string | undefined>;
  flush(): Promise<void>;
  backlog(): { records: number; bytes: number };
}

/** One received message and what parsing made of it, as handed to the raw-log writer. */
export interface RawMessage {
  /** The value as UTF-8 text. */
  line: string;
  /** `<topic>-<partition>-<offset>`. */
  logId: string;
  /** Arrival moment (epoch ms). */
  now: number;
  /** Whether it parsed into a record (stored in the configuration's log). */
  parsed: boolean;
  /** Why it did not, when it did not. */
  reason?: string;
}

export type KafkaState = 'connecting' | 'connected' | 'retrying' | 'stopped';

/** A message that was not stored, and why (the newest ones are kept per configuration). */
export interface KafkaFailure {
  at: number;
  logId: string;
  code: ParseFailureCode | 'empty_message';
  reason: string;
  /** What the console words the reason with. */
  params: Readonly<Record<string, string | number>>;
}

export interface PartitionLag {
  partition: number;
  /** The partition's high watermark (the offset the next produced message gets). */
  high: number;
  /** The next offset this configuration will store (the low watermark when none is stored yet). */
  next: number;
  lag: number;
}

/** Per BROKER configuration. */
export interface KafkaConfigCounts {
  state: KafkaState;
  /** The last connection, authentication or broker error, kept after recovery for the console. */
  lastError: string | null;
  lastErrorAt: number | null;
  /** Messages handed to this configuration (replayed ones excluded). */
  received: number;
  /** Records parsed and stored. */
  stored: number;
  /** Messages that did not parse or had no value: counted, the last ones kept in `recentFailures`. */
  discarded: number;
  /** Bytes of message values received. */
  bytes: number;
  /** Messages at offsets already stored (a replay after a crash or a rebalance), not stored again. */
  replaySkipped: number;
  /** Kafka commits that failed (only the console's lag is behind; the stored offsets decide). */
  commitFailures: number;
  /** Consumer restarts after a crash or a failed connection. */
  restarts: number;
  /** True while fetching is paused because the store's backlog is high. */
  paused: boolean;
  /** Per partition, as of `lagAt`; empty until the first refresh succeeds. */
  lag: PartitionLag[];
  totalLag: number | null;
  lagAt: number | null;
  recentFailures: KafkaFailure[];
}

export interface KafkaSourceOptions {
  store: KafkaStore;
  log: string;
  raw: ((configId: string, message: RawMessage) => void) | undefined;
  logger: Logger;
  clock: Clock;
  clientId: string;
  highWaterMark: number;
  lowWaterMark: number;
  backlogPollMs: number;
  lagRefreshMs: number;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  restartDelayMs: { initial: number; max: number };
  recentFailures: number;
  /** kafkajs retry policy of each client (connections, requests). */
  retries: number;
}

/** The meta name of a partition's next offset, stored in the batch of the records read before it. */
export const offsetMetaName = (configId: string, topic: string, partition: number): string =>
  `kafka\u0000${configId}\u0000${topic}\u0000${partition}`;

/** Consumer group of a configuration. */
export const groupIdOf = (configId: string): string => `rampart-${configId}`;

/** What a change must touch to need a new connection (the parser is swapped in place). */
export function connectionDigest(config: BrokerConfig): string {
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

const errorText = (error: unknown): string => {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message !== error.message
      ? `${error.message}: ${cause.message}`
      : error.message;
  }
  return String(error);
};

function sasl(config: BrokerConfig): SASLOptions | undefined {
  if (config.username === undefined || config.password === undefined) return undefined;
  const { username, password } = config;
  switch (config.mechanism ?? 'plain') {
    case 'plain':
      return { mechanism: 'plain', username, password };
    case 'scram-sha-256':
      return { mechanism: 'scram-sha-256', username, password };
    case 'scram-sha-512':
      return { mechanism: 'scram-sha-512', username, password };
  }
}

export class KafkaSource {
  readonly id: string;
  readonly digest: string;
  readonly counts: KafkaConfigCounts;
  #config: BrokerConfig;
  readonly #options: KafkaSourceOptions;
  readonly #kafka: Kafka;
  #consumer: Consumer | null = null;
  #admin: Admin | null = null;
  /** partition -> next offset as stored (the store, not Kafka, is the truth). */
  readonly #next = new Map<number, number>();
  #stopping = false;
  #restartTimer: NodeJS.Timeout | null = null;
  #restartDelay: number;
  #lagTimer: NodeJS.Timeout | null = null;
  #pauseTimer: NodeJS.Timeout | null = null;
  /** partition -> next offset stored and not yet committed to Kafka. */
  readonly #toCommit = new Map<number, number>();
  #committing: Promise<void> | null = null;

  constructor(config: BrokerConfig, options: KafkaSourceOptions) {
    this.id = config.id;
    this.digest = connectionDigest(config);
    this.#config = config;
    this.#options = options;
    this.#restartDelay = options.restartDelayMs.initial;
    this.counts = {
      state: 'connecting',
      lastError: null,
      lastErrorAt: null,
      received: 0,
      stored: 0,
      discarded: 0,
      bytes: 0,
      replaySkipped: 0,
      commitFailures: 0,
      restarts: 0,
      paused: false,
      lag: [],
      totalLag: null,
      lagAt: null,
      recentFailures: [],
    };
    const tls = config.tls;
    const kafkaConfig: KafkaConfig = {
      clientId: options.clientId,
      brokers: [...config.brokers],
      connectionTimeout: 5000,
      requestTimeout: 30_000,
      retry: { retries: options.retries, initialRetryTime: 300, maxRetryTime: 10_000 },
      logLevel: logLevel.WARN,
      logCreator: () => (entry) => this.#onLog(entry),
    };
    if (tls === true) kafkaConfig.ssl = true;
    else if (tls !== undefined && tls !== false) kafkaConfig.ssl = tls.ca === undefined ? true : { ca: [tls.ca] };
    const mechanism = sasl(config);
    if (mechanism !== undefined) kafkaConfig.sasl = mechanism;
    this.#kafka = new Kafka(kafkaConfig);
  }

  /** Swaps the parser (a parsing change needs no new connection). */
  setParser(parser: Pick<LogParser, 'parse'>): void {
    this.#config = { ...this.#config, parser };
  }

  /** Starts consuming in the background; failures show in `counts` and are retried with back-off. */
  start(): void {
    void this.#launch();
    this.#lagTimer = setInterval(() => void this.refreshLag(), this.#options.lagRefreshMs);
    this.#lagTimer.unref();
  }

  /** Stops fetching and leaves the group; what was appended is flushed before it resolves. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    for (const timer of [this.#restartTimer, this.#pauseTimer]) if (timer) clearTimeout(timer);
    if (this.#lagTimer) clearInterval(this.#lagTimer);
    // The last stored offsets are committed while still in the group.
    await this.#committing;
    // Not waiting for a launch under way (its connection may be retrying for a while): it checks
    // #stopping after each step and disconnects what it made.
    await this.#consumer?.disconnect().catch(() => undefined);
    await this.#admin?.disconnect().catch(() => undefined);
    this.#consumer = null;
    this.#admin = null;
    await this.#options.store.flush();
    this.counts.state = 'stopped';
    this.counts.paused = false;
  }

  /** Reads the partitions' high watermarks and compares them with the stored next offsets. */
  async refreshLag(): Promise<void> {
    if (this.#stopping) return;
    try {
      const admin = await this.#adminClient();
      const offsets = await admin.fetchTopicOffsets(this.#config.topic);
      const stored = await Promise.all(offsets.map((entry) => this.#storedNext(entry.partition)));
      const lag: PartitionLag[] = offsets.map((entry, i) => {
        const high = Number(entry.high);
        const next = stored[i] ?? Number(entry.low);
        return { partition: entry.partition, high, next, lag: Math.max(0, high - next) };
      });
      lag.sort((a, b) => a.partition - b.partition);
      const total = lag.reduce((sum, entry) => sum + entry.lag, 0);
      this.counts.lag = lag;
      this.counts.totalLag = total;
      this.counts.lagAt = this.#options.clock.now();
    } catch (error) {
      this.#noteError(error);
    }
  }

  async #adminClient(): Promise<Admin> {
    if (this.#admin === null) {
      const admin = this.#kafka.admin({ retry: { retries: 1 } });
      await admin.connect();
      if (this.#stopping) {
        await admin.disconnect().catch(() => undefined);
        throw new Error('stopped');
      }
      this.#admin = admin;
    }
    return this.#admin;
  }

  async #launch(): Promise<void> {
    if (this.#stopping) return;
    this.counts.state = this.counts.state === 'retrying' ? 'retrying' : 'connecting';
    const options = this.#options;
    const consumer = this.#kafka.consumer({
      groupId: groupIdOf(this.id),
      sessionTimeout: options.sessionTimeoutMs,
      rebalanceTimeout: options.rebalanceTimeoutMs,
      heartbeatInterval: Math.max(500, Math.floor(options.sessionTimeoutMs / 4)),
      allowAutoTopicCreation: false,
      // Larger fetches: fewer round trips per record at ingest rates.
      maxBytesPerPartition: 4 * 1024 * 1024,
      // While every partition is paused (the store behind), kafkajs sleeps this long before it
      // looks again, and the broker holds a fetch with nothing new as long. At kafkajs's 5 s a
      // pause of 20 ms stopped the stream for 5 s; at 500 ms (the Java client's default) an idle
      // consumer asks twice a second.
      maxWaitTimeInMs: 500,
      retry: { retries: options.retries, initialRetryTime: 300, maxRetryTime: 10_000 },
    });
    this.#consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => this.#onJoin(consumer, payload.memberAssignment));
    consumer.on(consumer.events.FETCH, () => this.#connected());
    consumer.on(consumer.events.CRASH, ({ payload }) => this.#onCrash(consumer, payload.error, payload.restart));
    try {
      // The stored offsets of the topic's partitions are read before joining, so that the join
      // handler (synchronous, before the first fetch) can seek to them.
      const admin = await this.#adminClient();
      const partitions = await admin.fetchTopicOffsets(this.#config.topic);
      await Promise.all(partitions.map(({ partition }) => this.#storedNext(partition)));
      await consumer.connect();
      await consumer.subscribe({ topics: [this.#config.topic], fromBeginning: true });
      if (this.#stopping) {
        await consumer.disconnect();
        return;
      }
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        // Partitions' batches overlap: one is parsed while another's write and commit are awaited.
        // Each batch stores its own partition's records and offset in one atomic write.
        partitionsConsumedConcurrently: 4,
        eachBatch: (payload) => this.#eachBatch(payload),
      });
    } catch (error) {
      this.#noteError(error);
      await consumer.disconnect().catch(() => undefined);
      if (this.#consumer === consumer) this.#consumer = null;
      this.#scheduleRestart();
    }
  }

  #scheduleRestart(): void {
    if (this.#stopping || this.#restartTimer !== null) return;
    this.counts.state = 'retrying';
    const delay = this.#restartDelay;
    this.#restartDelay = Math.min(this.#options.restartDelayMs.max, delay * 2);
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      this.counts.restarts += 1;
      void this.#launch();
    }, delay);
  }

  #onCrash(consumer: Consumer, error: Error, restart: boolean): void {
    this.#noteError(error);
    if (this.#stopping) return;
    this.counts.state = 'retrying';
    // kafkajs restarts the consumer itself after a retriable error; otherwise a new one is built.
    if (restart) {
      this.counts.restarts += 1;
      return;
    }
    void consumer.disconnect().catch(() => undefined);
    if (this.#consumer === consumer) this.#consumer = null;
    this.#scheduleRestart();
  }

  /**
   * Runs synchronously inside kafkajs's join, before the first fetch of the new assignment: each
   * partition whose next offset is stored is moved there, whatever Kafka's committed offset says.
   */
  #onJoin(consumer: Consumer, assignment: Record<string, number[]>): void {
    this.#connected();
    for (const partition of assignment[this.#config.topic] ?? []) {
      const next = this.#next.get(partition);
      if (next !== undefined) consumer.seek({ topic: this.#config.topic, partition, offset: String(next) });
    }
  }

  #connected(): void {
    if (this.#stopping) return;
    this.counts.state = 'connected';
    // Fetching again: an error from before (a coordinator not yet elected, a broker that was away)
    // is over, and the console should not show it as the current one.
    this.counts.lastError = null;
    this.#restartDelay = this.#options.restartDelayMs.initial;
  }

  async #storedNext(partition: number): Promise<number | undefined> {
    const known = this.#next.get(partition);
    if (known !== undefined) return known;
    const stored = await this.#options.store.getMeta(offsetMetaName(this.id, this.#config.topic, partition));
    if (stored === undefined) return undefined;
    // A value set meanwhile by a batch is newer than the one read.
    const next = this.#next.get(partition) ?? Number(stored);
    this.#next.set(partition, next);
    return next;
  }

  async #eachBatch(payload: EachBatchPayload): Promise<void> {
    const batch = payload.batch;
    if (this.#stopping || !payload.isRunning() || payload.isStale()) return;
    const { partition, topic } = batch;
    const last = batch.messages.at(-1);
    if (last === undefined) return;
    const next = await this.#storedNext(partition);
    if (this.#stopping) return;

    // From here to putMeta there is no await: the records and the partition's next offset go into
    // the same LevelDB batch, so after a crash either both are stored or neither.
    const { store, log, raw, clock } = this.#options;
    const { parser } = this.#config;
    const counts = this.counts;
    const now = clock.now();
    let stored = -1;
    for (const message of batch.messages) {
      const offset = Number(message.offset);
      if (next !== undefined && offset < next) {
        counts.replaySkipped += 1;
        continue;
      }
      counts.received += 1;
      stored = offset;
      const logId = `${topic}-${partition}-${message.offset}`;
      const value = message.value;
      if (value === null || value.length === 0) {
        this.#discard(now, logId, 'empty_message', 'the message has no value', {});
        continue;
      }
      counts.bytes += value.length;
      const line = value.toString('utf8');
      const outcome = parser.parse(line, { now, logId });
      if (outcome.ok) {
        store.append(log, outcome.record);
        counts.stored += 1;
        raw?.(this.id, { line, logId, now, parsed: true });
      } else {
        this.#discard(now, logId, outcome.code, outcome.reason, outcome.params);
        raw?.(this.id, { line, logId, now, parsed: false, reason: outcome.reason });
      }
    }
    if (stored >= 0) {
      store.putMeta(offsetMetaName(this.id, topic, partition), String(stored + 1));
      await store.flush();
      // Only once written: a failed write leaves the offset where it was and kafkajs retries the batch.
      this.#next.set(partition, stored + 1);
    }

    payload.resolveOffset(last.offset);
    // Every message up to the batch's last is stored now (or was before, when it was a replay).
    this.#commit(partition, Number(last.offset) + 1);
    await payload.heartbeat();
    this.#checkBacklog();
  }

  /**
   * Kafka's committed offset follows the store, for the lag an operator sees in other tools. With
   * kafkajs's automatic commits off, only offsets named are committed; one request is in flight at
   * a time, with the newest offset of each partition, and the batches do not wait for it.
   */
  #commit(partition: number, offset: number): void {
    this.#toCommit.set(partition, offset);
    this.#committing ??= this.#commitPending().finally(() => {
      this.#committing = null;
      // Offsets noted after the loop's last look.
      const [first] = this.#toCommit;
      if (first !== undefined && this.#consumer !== null) this.#commit(...first);
    });
  }

  async #commitPending(): Promise<void> {
    const topic = this.#config.topic;
    while (this.#toCommit.size > 0) {
      const consumer = this.#consumer;
      if (consumer === null) return;
      const offsets = [...this.#toCommit].map(([partition, offset]) => ({ topic, partition, offset: String(offset) }));
      this.#toCommit.clear();
      try {
        await consumer.commitOffsets(offsets);
      } catch (error) {
        this.counts.commitFailures += 1;
        this.#options.logger.debug({ configId: this.id, error: errorText(error) }, 'kafka commit failed');
      }
    }
  }

  #discard(
    at: number,
    logId: string,
    code: KafkaFailure['code'],
    reason: string,
    params: KafkaFailure['params'],
  ): void {
    this.counts.discarded += 1;
    const ring = this.counts.recentFailures;
    ring.push({ at, logId, code, reason, params });
    if (ring.length > this.#options.recentFailures) ring.shift();
  }

  /** Pauses fetching while the store is behind; resumes below the low-water mark. Nothing is dropped. */
  #checkBacklog(): void {
    const consumer = this.#consumer;
    if (consumer === null || this.#stopping || this.counts.paused) return;
    if (this.#options.store.backlog().records <= this.#options.highWaterMark) return;
    consumer.pause([{ topic: this.#config.topic }]);
    this.counts.paused = true;
    const poll = (): void => {
      this.#pauseTimer = null;
      if (this.#stopping) return;
      if (this.#options.store.backlog().records > this.#options.lowWaterMark) {
        this.#pauseTimer = setTimeout(poll, this.#options.backlogPollMs);
        return;
      }
      this.counts.paused = false;
      this.#consumer?.resume([{ topic: this.#config.topic }]);
    };
    this.#pauseTimer = setTimeout(poll, this.#options.backlogPollMs);
  }

  #noteError(error: unknown): void {
    if (this.#stopping) return;
    this.counts.lastError = errorText(error);
    this.counts.lastErrorAt = this.#options.clock.now();
  }

  /** kafkajs's own log: errors mark the configuration as retrying (it retries by itself). */
  #onLog(entry: LogEntry): void {
    const { namespace, level, log } = entry;
    if (level > logLevel.WARN) return;
    const message = typeof log.message === 'string' ? log.message : '';
    if (level === logLevel.ERROR && !this.#stopping) {
      const detail = typeof log.error === 'string' ? `${message}: ${log.error}` : message;
      this.#noteError(detail);
      if (this.counts.state === 'connected') this.counts.state = 'retrying';
    }
    this.#options.logger.warn(
      { configId: this.id, kafka: namespace, broker: typeof log.broker === 'string' ? log.broker : undefined },
      message,
    );
  }
}
