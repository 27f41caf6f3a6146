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
import { encodeValues } from '#engine/log-store';
import { keepLast } from '#engine/shared';
import { compileParser, parseFailureText, type LogParseConfig, type LogParser } from '#engine/parse';
import {
  errorText,
  groupIdOf,
  newReaderCounts,
  type BrokerConnection,
  type FailedLine,
  type ReaderCounts,
  type KafkaFailure,
  type ParsedBatch,
  type ReaderSettings,
} from './kafka-link.ts';

/** What the reader needs of the engine's thread (over the thread's port). */
export interface ReaderHost {
  /** The partition's next offset as stored, if any. */
  storedNext(partition: number): Promise<number | undefined>;
  /**
   * Stores a batch's records and next offset together, after the partition's batch before it is
   * written; resolves once written, with the store's backlog (records).
   */
  store(batch: ParsedBatch): Promise<number>;
  /** The store's unwritten records. */
  backlog(): Promise<number>;
  /** The counters changed (the host keeps the latest copy). */
  counted(counts: ReaderCounts): void;
  log(level: 'warn' | 'debug', fields: Record<string, unknown>, message: string): void;
  /** The engine's time. */
  now(): number;
}

/** Batches of one partition handed to the host and not yet written, at most. */
const UNWRITTEN_PER_PARTITION = 2;

function sasl(config: BrokerConnection): SASLOptions | undefined {
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

function compiled(parse: LogParseConfig): Pick<LogParser, 'parse'> {
  const outcome = compileParser(parse);
  if (outcome.ok) return outcome.value;
  // The engine hands over only configurations it compiled itself; were one not to, every line says so.
  const params = { detail: `the configuration does not compile: ${outcome.error.map((p) => p.code).join(', ')}` };
  const reason = parseFailureText({ code: 'parse_error', params }, 'en');
  return { parse: () => ({ ok: false, code: 'parse_error', reason, params }) };
}

/**
 * One BROKER configuration's consumer, in its own thread: kafkajs, the parser, the group's
 * offsets and back-pressure. The contract is kafka-intake.ts's. What running in a thread of its
 * own changes: a batch's records travel to the host parsed; the host appends them with the
 * partition's next offset in one synchronous run and answers once they are written; and the next
 * fetch does not wait for that answer (at most UNWRITTEN_PER_PARTITION batches of a partition
 * wait), so fetching, parsing and storing overlap. Kafka is committed, and the offsets a new
 * consumer seeks to are moved, only by written batches.
 */
export class KafkaReader {
  readonly id: string;
  readonly counts: ReaderCounts;
  readonly #config: BrokerConnection;
  #parser: Pick<LogParser, 'parse'>;
  /** Whether records are handed over with their values encoded (ParsedBatch `encoded`). */
  #encode: boolean;
  readonly #settings: ReaderSettings;
  readonly #host: ReaderHost;
  readonly #kafka: Kafka;
  #consumer: Consumer | null = null;
  #admin: Admin | null = null;
  /** partition -> next offset as stored (the store, not Kafka, is the truth). */
  readonly #next = new Map<number, number>();
  /** partition -> next offset after the batches handed to the host (written or not yet). */
  readonly #handed = new Map<number, number>();
  /** partition -> its batches handed and not yet answered, oldest first. */
  readonly #unwritten = new Map<number, Promise<void>[]>();
  /** Consumers made so far: a batch names the one that read it. */
  #launches = 0;
  #stopping = false;
  #restartTimer: NodeJS.Timeout | null = null;
  #restartDelay: number;
  #lagTimer: NodeJS.Timeout | null = null;
  #pauseTimer: NodeJS.Timeout | null = null;
  /** partition -> next offset stored and not yet committed to Kafka. */
  readonly #toCommit = new Map<number, number>();
  #committing: Promise<void> | null = null;
  #countedSoon = false;

  constructor(
    config: BrokerConnection,
    parse: LogParseConfig,
    settings: ReaderSettings,
    host: ReaderHost,
    counts: ReaderCounts = newReaderCounts(),
    encode = true,
  ) {
    this.#encode = encode;
    this.id = config.id;
    this.counts = counts;
    this.#config = config;
    this.#parser = compiled(parse);
    this.#settings = settings;
    this.#host = host;
    this.#restartDelay = settings.restartDelayMs.initial;
    const tls = config.tls;
    const kafkaConfig: KafkaConfig = {
      clientId: settings.clientId,
      brokers: [...config.brokers],
      connectionTimeout: 5000,
      requestTimeout: 30_000,
      retry: { retries: settings.retries, initialRetryTime: 300, maxRetryTime: 10_000 },
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
  setParser(parse: LogParseConfig, encode: boolean): void {
    this.#parser = compiled(parse);
    this.#encode = encode;
  }

  /** Starts consuming in the background; failures show in `counts` and are retried with back-off. */
  start(): void {
    void this.#launch();
    this.#lagTimer = setInterval(() => void this.refreshLag(), this.#settings.lagRefreshMs);
    this.#lagTimer.unref();
  }

  /** Stops fetching and leaves the group, once the batches handed over are written and committed. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    for (const timer of [this.#restartTimer, this.#pauseTimer]) if (timer) clearTimeout(timer);
    if (this.#lagTimer) clearInterval(this.#lagTimer);
    await Promise.all([...this.#unwritten.values()].flat());
    await this.#committing;
    // Not waiting for a launch under way (its connection may be retrying for a while): it checks
    // #stopping after each step and disconnects what it made.
    await this.#consumer?.disconnect().catch(() => undefined);
    await this.#admin?.disconnect().catch(() => undefined);
    this.#consumer = null;
    this.#admin = null;
    this.counts.paused = false;
    this.#counted();
  }

  /** Reads the partitions' high watermarks and compares them with the stored next offsets. */
  async refreshLag(): Promise<void> {
    if (this.#stopping) return;
    try {
      const admin = await this.#adminClient();
      const offsets = await admin.fetchTopicOffsets(this.#config.topic);
      const stored = await Promise.all(offsets.map((entry) => this.#storedNext(entry.partition)));
      const lag = offsets.map((entry, i) => {
        const high = Number(entry.high);
        const next = stored[i] ?? Number(entry.low);
        return { partition: entry.partition, high, next, lag: Math.max(0, high - next) };
      });
      lag.sort((a, b) => a.partition - b.partition);
      this.counts.lag = lag;
      this.counts.totalLag = lag.reduce((sum, entry) => sum + entry.lag, 0);
      this.counts.lagAt = this.#host.now();
    } catch (error) {
      this.#noteError(error);
    }
    this.#counted();
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
    this.#counted();
    this.#launches += 1;
    // A new consumer starts from the stored offsets.
    this.#handed.clear();
    const settings = this.#settings;
    const consumer = this.#kafka.consumer({
      groupId: groupIdOf(this.id),
      sessionTimeout: settings.sessionTimeoutMs,
      rebalanceTimeout: settings.rebalanceTimeoutMs,
      heartbeatInterval: Math.max(500, Math.floor(settings.sessionTimeoutMs / 4)),
      allowAutoTopicCreation: false,
      maxBytesPerPartition: settings.maxBytesPerPartition,
      // While every partition is paused (the store behind), kafkajs sleeps this long before it
      // looks again, and the broker holds a fetch with nothing new as long. At kafkajs's 5 s a
      // pause of 20 ms stopped the stream for 5 s; at 500 ms (the Java client's default) an idle
      // consumer asks twice a second.
      maxWaitTimeInMs: 500,
      retry: { retries: settings.retries, initialRetryTime: 300, maxRetryTime: 10_000 },
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
        // Partitions' batches overlap: one is parsed while others are stored.
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
    this.#counted();
    const delay = this.#restartDelay;
    this.#restartDelay = Math.min(this.#settings.restartDelayMs.max, delay * 2);
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
    this.#counted();
    // kafkajs restarts the consumer itself after a retriable error; otherwise a new one is built.
    if (restart) {
      this.counts.restarts += 1;
      return;
    }
    this.#abandon(consumer);
  }

  /** Leaves a consumer that cannot go on; a new one starts after the back-off. */
  #abandon(consumer: Consumer | null): void {
    void consumer?.disconnect().catch(() => undefined);
    if (this.#consumer === consumer) this.#consumer = null;
    this.#scheduleRestart();
  }

  /**
   * Runs synchronously inside kafkajs's join, before the first fetch of the new assignment: each
   * partition whose next offset is stored is moved there, whatever Kafka's committed offset says.
   * (Messages handed over and not yet written are fetched again and skipped.)
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
    const changed = this.counts.state !== 'connected' || this.counts.lastError !== null;
    this.counts.state = 'connected';
    // Fetching again: an error from before (a coordinator not yet elected, a broker that was away)
    // is over, and the console should not show it as the current one.
    this.counts.lastError = null;
    this.#restartDelay = this.#settings.restartDelayMs.initial;
    if (changed) this.#counted();
  }

  async #storedNext(partition: number): Promise<number | undefined> {
    const known = this.#next.get(partition);
    if (known !== undefined) return known;
    const stored = await this.#host.storedNext(partition);
    if (stored === undefined) return undefined;
    // A value set meanwhile by a batch is newer than the one read.
    const next = this.#next.get(partition) ?? stored;
    this.#next.set(partition, next);
    return next;
  }

  async #eachBatch(payload: EachBatchPayload): Promise<void> {
    const batch = payload.batch;
    if (this.#stopping || !payload.isRunning() || payload.isStale()) return;
    const { partition, topic } = batch;
    const last = batch.messages.at(-1);
    if (last === undefined) return;
    const launch = this.#launches;
    const from = this.#handed.get(partition) ?? (await this.#storedNext(partition));
    if (this.#stopping || payload.isStale() || launch !== this.#launches) return;

    const parser = this.#parser;
    const encode = this.#encode;
    const counts = this.counts;
    const now = this.#host.now();
    const records: Record<string, unknown>[] = [];
    const encodedValues: (string | null)[] = [];
    const failed: FailedLine[] = [];
    // Counted by the host once the batch is written, with its records.
    const discards: KafkaFailure[] = [];
    const keep = this.#settings.recentFailures;
    let discarded = 0;
    const discard = (failure: KafkaFailure): void => {
      discarded += 1;
      // Only the last ones are kept: a flood of bad messages is counted, not held.
      keepLast(discards, [failure], keep);
    };
    let received = 0;
    let bytes = 0;
    let stored = -1;
    for (const message of batch.messages) {
      const offset = Number(message.offset);
      if (from !== undefined && offset < from) {
        counts.replaySkipped += 1;
        continue;
      }
      received += 1;
      stored = offset;
      const logId = `${topic}-${partition}-${message.offset}`;
      const value = message.value;
      if (value === null || value.length === 0) {
        discard({ at: now, logId, code: 'empty_message', reason: 'the message has no value', params: {} });
        continue;
      }
      bytes += value.length;
      const line = value.toString('utf8');
      const outcome = parser.parse(line, { now, logId });
      if (outcome.ok) {
        records.push(outcome.record);
        if (encode) {
          // Encoded here, off the engine's thread, as the store would encode it.
          encodedValues.push(encodeValues(outcome.record) ?? null);
        }
      } else {
        discard({ at: now, logId, code: outcome.code, reason: outcome.reason, params: outcome.params });
        failed.push({ at: records.length, logId, line, reason: outcome.reason });
      }
    }
    this.#counted();
    let unwritten = this.#unwritten.get(partition);
    if (unwritten === undefined) this.#unwritten.set(partition, (unwritten = []));
    if (stored >= 0) {
      const next = stored + 1;
      this.#handed.set(partition, next);
      const list = unwritten;
      const parsed: ParsedBatch = {
        launch,
        topic,
        partition,
        now,
        records,
        encoded: encodedValues,
        failed,
        next,
        received,
        bytes,
        discarded,
        discards,
      };
      const written = this.#host.store(parsed).then(
        (backlog) => {
          this.#next.set(partition, next);
          this.#commit(partition, next);
          this.#checkBacklog(backlog);
        },
        (error: unknown) => this.#writeFailed(launch, error),
      );
      list.push(written);
      void written.finally(() => list.splice(list.indexOf(written), 1));
    } else if (unwritten.length === 0) {
      // Only replays: every message up to the batch's last was stored before.
      this.#commit(partition, Number(last.offset) + 1);
    }
    payload.resolveOffset(last.offset);
    await payload.heartbeat();
    while (unwritten.length >= UNWRITTEN_PER_PARTITION && !this.#stopping) await unwritten[0];
  }

  /**
   * A write failed: its records are not stored and neither is its offset. The consumer starts
   * again from the stored offsets; the host refuses what this launch handed over after it.
   */
  #writeFailed(launch: number, error: unknown): void {
    this.#noteError(error);
    if (this.#stopping || launch !== this.#launches) return;
    this.#next.clear();
    this.#handed.clear();
    this.#launches += 1;
    this.#abandon(this.#consumer);
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
        this.#host.log('debug', { configId: this.id, error: errorText(error) }, 'kafka commit failed');
        this.#counted();
      }
    }
  }

  /** Pauses fetching while the store is behind; resumes below the low-water mark. Nothing is dropped. */
  #checkBacklog(backlog: number): void {
    const consumer = this.#consumer;
    if (consumer === null || this.#stopping || this.counts.paused) return;
    if (backlog <= this.#settings.highWaterMark) return;
    consumer.pause([{ topic: this.#config.topic }]);
    this.counts.paused = true;
    this.#counted();
    const poll = async (): Promise<void> => {
      this.#pauseTimer = null;
      if (this.#stopping) return;
      const now = await this.#host.backlog().catch(() => Infinity);
      if (this.#stopping) return;
      if (now > this.#settings.lowWaterMark) {
        this.#pauseTimer = setTimeout(() => void poll(), this.#settings.backlogPollMs);
        return;
      }
      this.counts.paused = false;
      this.#counted();
      this.#consumer?.resume([{ topic: this.#config.topic }]);
    };
    this.#pauseTimer = setTimeout(() => void poll(), this.#settings.backlogPollMs);
  }

  #noteError(error: unknown): void {
    if (this.#stopping) return;
    this.counts.lastError = errorText(error);
    this.counts.lastErrorAt = this.#host.now();
    this.#counted();
  }

  /** The host hears the counters once per turn, however often they change in it. */
  #counted(): void {
    if (this.#countedSoon) return;
    this.#countedSoon = true;
    queueMicrotask(() => {
      this.#countedSoon = false;
      this.#host.counted(this.counts);
    });
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
    this.#host.log(
      'warn',
      { configId: this.id, kafka: namespace, broker: typeof log.broker === 'string' ? log.broker : undefined },
      message,
    );
  }
}
