/**
 * The BROKER intake (spec 4.2, docs/DESIGN.md 2b): one kafkajs consumer per BROKER configuration,
 * reading its topic into the configuration's log (`custom:<configId>`) exactly once.
 *
 * Lifecycle. `apply(configs)` is the whole wanted set: a new configuration starts a consumer, a
 * removed one stops it (leaving the group after the batch in hand is stored), and a changed one is
 * restarted only when a connection-relevant field changed (brokers, topic, account, password,
 * mechanism, TLS: compared as a digest); a parsing change swaps the parser in place. Calls are
 * serialised. `close()` stops everything. Starting never throws: a broker that cannot be reached,
 * a topic that does not exist or a refused password is shown as `retrying` with its error text,
 * and retried with back-off (1 s doubling to 30 s) until it works or the configuration goes.
 *
 * Exactly once. The consumer group is `rampart-<configId>`, with kafkajs's automatic commits off.
 * Threads. Each consumer runs in its own worker thread (kafka-worker.ts): kafkajs and the parser
 * there, the store here. For each fetched batch the thread reads every message's value as UTF-8
 * text and parses it with `log_id = <topic>-<partition>-<offset>`, then hands the batch's records
 * and failed lines to this thread, which in one synchronous run (no await) enriches and appends
 * each record, hands each message that did not parse to the raw-log writer, and stages the partition's next offset with
 * `putMeta('kafka\0<configId>\0<topic>\0<partition>')`. The log store writes staged meta values in
 * the same atomic LevelDB batch as the records appended before them, so after a crash the stored
 * records and the stored offset always agree. Then `flush()` makes them durable, and only then is
 * the offset resolved and committed to Kafka. Kafka's committed offset is never trusted for
 * correctness (it may trail the store by a batch after a crash): on each join, synchronously
 * before kafkajs's first fetch, every assigned partition with a stored offset is sought there;
 * and in each batch any message below the stored next offset is skipped (`replaySkipped`), so a
 * seek that lost a race with a rebalance still stores nothing twice. The store is the only writer
 * of a configuration's offsets: two engines sharing one group (or one store per engine) would
 * each keep their own, which is not supported.
 *
 * Bad input. A message without a value is discarded (`empty_message`); one that does not parse is
 * discarded with the parser's code and reason (spec 7: a record missing a required field is not
 * stored). Both are counted and the newest `recentFailures` (100) kept per configuration. They
 * still advance the stored offset: they are never read again.
 *
 * Back-pressure. After each batch, when the store's unwritten backlog is above `highWaterMark`
 * records the consumer's topic is paused (kafkajs stops fetching it; the broker keeps the
 * messages), and resumed when the backlog is at or below `lowWaterMark`. Nothing is dropped.
 *
 * Outages. kafkajs retries connections and requests by itself; its errors (routed from its log,
 * which goes to the engine's Logger at warn) mark the configuration `retrying` with the error text
 * until the next successful fetch. A consumer crash that kafkajs does not restart itself (a
 * non-retriable error) is restarted here with back-off. When the broker comes back the consumer
 * rejoins, seeks to the stored offsets and continues; nothing accepted before is lost, nothing is
 * stored twice.
 *
 * Status. `counts()` per configuration: state (`connecting`, `connected`, `retrying`, `stopped`)
 * and the last error, messages received, records stored, discarded, bytes, replaySkipped, commit
 * failures, restarts, paused, and lag per partition (high watermark from the admin API minus the
 * stored next offset) refreshed every `lagRefreshMs` (5 s) or on demand with `refreshLag()`.
 * Received, stored, discarded and bytes are counted by this thread when a batch is written, so
 * received = stored + discarded at every look and a Kafka thread that ends loses no count.
 */
import { systemClock, silentLogger, type Clock, type Logger } from '#engine/shared';
import {
  KafkaSource,
  connectionDigest,
  type BrokerConfig,
  type KafkaConfigCounts,
  type KafkaStore,
  type FailedMessage,
} from './kafka-consumer.ts';

export { connectionDigest, groupIdOf, offsetMetaName } from './kafka-consumer.ts';
export type {
  BrokerConfig,
  KafkaConfigCounts,
  KafkaFailure,
  KafkaState,
  KafkaStore,
  PartitionLag,
  FailedMessage,
  SaslMechanism,
} from './kafka-consumer.ts';

export interface KafkaIntakeOptions {
  /** Where records and offsets go (LogStore satisfies it). */
  store: KafkaStore;
  /** A configuration's log; default `custom:<configId>`. */
  logName?: (configId: string) => string;
  /**
   * Hears each message with a value that did not parse, in the batch's synchronous run: an
   * `append` to `store` here lands in the same atomic batch as the parsed records and the offset.
   * (A parsed message is its record: the raw log reads it from the configuration's log.)
   */
  failed?: (configId: string, message: FailedMessage) => void;
  logger?: Logger;
  clock?: Clock;
  clientId?: string;
  /** Fetching pauses while the store's unwritten records exceed this... */
  highWaterMark?: number;
  /** ...and resumes at or below this. */
  lowWaterMark?: number;
  backlogPollMs?: number;
  lagRefreshMs?: number;
  /** Consumer group session timeout: how long a crashed engine's member holds its partitions. */
  sessionTimeoutMs?: number;
  rebalanceTimeoutMs?: number;
  restartDelayMs?: { initial: number; max: number };
  /** How many discarded messages are kept per configuration. */
  recentFailures?: number;
  /** kafkajs retries per connection or request before the consumer restarts. */
  retries?: number;
  /**
   * The most one fetch brings of a partition: 1 MB. Fetching overlaps storing, so larger fetches
   * gain nothing (4 MB: the same rate within noise, 150-230 MB more resident at the peak).
   */
  maxBytesPerPartition?: number;
}

const DEFAULTS = {
  clientId: 'rampart',
  highWaterMark: 50_000,
  lowWaterMark: 10_000,
  backlogPollMs: 20,
  lagRefreshMs: 5000,
  sessionTimeoutMs: 30_000,
  rebalanceTimeoutMs: 60_000,
  restartDelayMs: { initial: 1000, max: 30_000 },
  recentFailures: 100,
  retries: 5,
  maxBytesPerPartition: 1024 * 1024,
};

export const customLogName = (configId: string): string => `custom:${configId}`;

export class KafkaIntake {
  readonly #options: KafkaIntakeOptions;
  readonly #sources = new Map<string, KafkaSource>();
  #queue: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: KafkaIntakeOptions) {
    this.#options = options;
  }

  /**
   * Makes the running consumers match `configs`: starts new ones, restarts those whose connection
   * changed, stops removed ones. Resolves once removed consumers have stopped (their accepted
   * records stored); starting ones connect in the background.
   */
  apply(configs: readonly BrokerConfig[]): Promise<void> {
    const run = this.#queue.then(() => this.#apply(configs));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Stops every consumer; what they accepted is stored before it resolves. */
  close(): Promise<void> {
    this.#closed = true;
    return this.apply([]);
  }

  /** Counters and connection state per configuration id (copies). */
  counts(): Record<string, KafkaConfigCounts> {
    const out: Record<string, KafkaConfigCounts> = {};
    for (const [id, source] of this.#sources) {
      const counts = source.counts;
      out[id] = { ...counts, lag: counts.lag.map((lag) => ({ ...lag })), recentFailures: [...counts.recentFailures] };
    }
    return out;
  }

  /** Refreshes every configuration's lag now (it is refreshed every `lagRefreshMs` anyway). */
  async refreshLag(): Promise<void> {
    await Promise.all([...this.#sources.values()].map((source) => source.refreshLag()));
  }

  /** Ends a configuration's Kafka thread as a crash would (fault injection for tests): a new one follows. */
  endThread(configId: string): Promise<boolean> {
    return this.#sources.get(configId)?.endThread() ?? Promise.resolve(false);
  }

  async #apply(configs: readonly BrokerConfig[]): Promise<void> {
    const wanted = new Map<string, BrokerConfig>();
    // After close() nothing starts again.
    if (!this.#closed) for (const config of configs) wanted.set(config.id, config);
    const stopping: Promise<void>[] = [];
    const starting: BrokerConfig[] = [];
    for (const [id, source] of this.#sources) {
      const config = wanted.get(id);
      if (config !== undefined && source.digest === connectionDigest(config)) {
        source.setParser(config);
        continue;
      }
      this.#sources.delete(id);
      stopping.push(source.stop());
      if (config !== undefined) starting.push(config);
    }
    for (const [id, config] of wanted) if (!this.#sources.has(id) && !starting.includes(config)) starting.push(config);
    // A restarted configuration's old consumer leaves the group before the new one joins it.
    await Promise.all(stopping);
    for (const config of starting) {
      const source = new KafkaSource(config, this.#sourceOptions(config.id));
      this.#sources.set(config.id, source);
      source.start();
    }
  }

  #sourceOptions(configId: string): ConstructorParameters<typeof KafkaSource>[1] {
    const options = this.#options;
    return {
      store: options.store,
      log: (options.logName ?? customLogName)(configId),
      failed: options.failed,
      logger: options.logger ?? silentLogger,
      clock: options.clock ?? systemClock,
      clientId: options.clientId ?? DEFAULTS.clientId,
      highWaterMark: options.highWaterMark ?? DEFAULTS.highWaterMark,
      lowWaterMark: options.lowWaterMark ?? DEFAULTS.lowWaterMark,
      backlogPollMs: options.backlogPollMs ?? DEFAULTS.backlogPollMs,
      lagRefreshMs: options.lagRefreshMs ?? DEFAULTS.lagRefreshMs,
      sessionTimeoutMs: options.sessionTimeoutMs ?? DEFAULTS.sessionTimeoutMs,
      rebalanceTimeoutMs: options.rebalanceTimeoutMs ?? DEFAULTS.rebalanceTimeoutMs,
      restartDelayMs: options.restartDelayMs ?? DEFAULTS.restartDelayMs,
      recentFailures: options.recentFailures ?? DEFAULTS.recentFailures,
      retries: options.retries ?? DEFAULTS.retries,
      maxBytesPerPartition: options.maxBytesPerPartition ?? DEFAULTS.maxBytesPerPartition,
    };
  }
}
