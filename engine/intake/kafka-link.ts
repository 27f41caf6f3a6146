import type { LogParseConfig, ParseFailureCode } from '#engine/parse';

// What the engine's thread and a BROKER configuration's Kafka thread say to each other
// (docs/DESIGN.md 2b). The Kafka thread (kafka-worker.ts, KafkaReader) owns kafkajs and the
// parser; the engine's thread (KafkaSource) owns the store. Both sides import only this file of
// the other's.

export type SaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

/** How to reach a BROKER configuration's topic: what the Kafka thread is started with. */
export interface BrokerConnection {
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
  /**
   * Messages handed to this configuration and written (replayed ones excluded): counted with
   * their batch's write, as `stored` and `discarded` are, so received = stored + discarded.
   */
  received: number;
  /** Records parsed and stored. */
  stored: number;
  /** Messages that did not parse or had no value, written to the raw log: the last ones kept in `recentFailures`. */
  discarded: number;
  /** Bytes of message values received (and written). */
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

/** The counts of what is written: kept by the engine's thread, which writes (KafkaSource). */
export type WrittenCounts = Pick<KafkaConfigCounts, 'received' | 'stored' | 'discarded' | 'bytes' | 'recentFailures'>;

/** The rest: kept by the Kafka thread, which reads (KafkaReader), and reported to the engine's. */
export type ReaderCounts = Omit<KafkaConfigCounts, keyof WrittenCounts>;

export const newWrittenCounts = (): WrittenCounts => ({
  received: 0,
  stored: 0,
  discarded: 0,
  bytes: 0,
  recentFailures: [],
});

export const newReaderCounts = (): ReaderCounts => ({
  state: 'connecting',
  lastError: null,
  lastErrorAt: null,
  replaySkipped: 0,
  commitFailures: 0,
  restarts: 0,
  paused: false,
  lag: [],
  totalLag: null,
  lagAt: null,
});

/** The reader's settings (KafkaIntakeOptions with the defaults filled in). */
export interface ReaderSettings {
  clientId: string;
  highWaterMark: number;
  lowWaterMark: number;
  backlogPollMs: number;
  lagRefreshMs: number;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  restartDelayMs: { initial: number; max: number };
  recentFailures: number;
  retries: number;
  /** The most a fetch brings of one partition. */
  maxBytesPerPartition: number;
}

/** What a Kafka thread is started with (its `workerData`). */
export interface ReaderStart {
  connection: BrokerConnection;
  parse: LogParseConfig;
  settings: ReaderSettings;
  /** The engine clock's lead over `Date.now()` when the thread starts (a test's clock may differ). */
  clockSkewMs: number;
  /** Its counters so far: a thread started after one that ended goes on counting from them. */
  counts: ReaderCounts;
  /** Whether records travel with their values encoded (not when the engine changes them first). */
  encode: boolean;
}

/** A line that did not parse, in a batch: it goes to the raw log with its reason. */
export interface FailedLine {
  /** How many of the batch's records come before it (the raw log keeps the topic's order). */
  at: number;
  logId: string;
  line: string;
  reason: string;
}

/**
 * One fetched batch of one partition, parsed: its records and failed lines are appended and `next`
 * (the partition's next offset) is staged in one synchronous run, so all are stored together.
 */
export interface ParsedBatch {
  /** The consumer's launch it was read by: after a failed write the host refuses those before the next. */
  launch: number;
  topic: string;
  partition: number;
  now: number;
  /** Parsed records in offset order (`log_id` `<topic>-<partition>-<offset>`). */
  records: Record<string, unknown>[];
  /**
   * Each record's values encoded for the store (EncodedValues), or null for none; empty when the
   * reader does not encode (the engine changes the records before storing).
   */
  encoded: (string | null)[];
  failed: FailedLine[];
  next: number;
  /** Messages it holds (replays excluded), and the bytes of their values: counted once written. */
  received: number;
  bytes: number;
  /** Its messages that did not parse or had no value, counted once written (`failed` has those with a value). */
  discarded: number;
  /** The last of those (at most `recentFailures`), with their reasons. */
  discards: KafkaFailure[];
}

/** Requests the Kafka thread makes of the engine's thread (each answered by a `reply`). */
export type HostCall =
  { method: 'storedNext'; partition: number } | { method: 'store'; batch: ParsedBatch } | { method: 'backlog' };

/** Requests the engine's thread makes of the Kafka thread. */
export type ReaderCall = { method: 'refreshLag' } | { method: 'stop' };

export type ToHost =
  | { t: 'call'; id: number; call: HostCall }
  | { t: 'reply'; id: number; error?: string }
  | { t: 'counts'; counts: ReaderCounts }
  | { t: 'log'; level: 'warn' | 'debug'; fields: Record<string, unknown>; message: string };

export type ToReader =
  | { t: 'call'; id: number; call: ReaderCall }
  | { t: 'reply'; id: number; value?: unknown; error?: string }
  | { t: 'parser'; parse: LogParseConfig; encode: boolean };

/**
 * One side's calls to the other thread that await their reply, by id: the Kafka thread's to the
 * engine's and the engine's to the Kafka thread.
 */
export class Calls<Call> {
  #next = 0;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly #send: (id: number, call: Call) => void;

  constructor(send: (id: number, call: Call) => void) {
    this.#send = send;
  }

  call<T>(call: Call): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const id = this.#next++;
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#send(id, call);
    });
  }

  /** Settles the call a reply answers; a reply to no waiting call is ignored. */
  answered(reply: { id: number; value?: unknown; error?: string }): void {
    const waiting = this.#pending.get(reply.id);
    this.#pending.delete(reply.id);
    if (reply.error === undefined) waiting?.resolve(reply.value);
    else waiting?.reject(new Error(reply.error));
  }

  /** Rejects every call still waiting: the other side is gone. */
  failAll(reason: string): void {
    for (const waiting of this.#pending.values()) waiting.reject(new Error(reason));
    this.#pending.clear();
  }
}

/** The meta name of a partition's next offset, stored in the batch of the records read before it. */
export const offsetMetaName = (configId: string, topic: string, partition: number): string =>
  `kafka\u0000${configId}\u0000${topic}\u0000${partition}`;

/** Consumer group of a configuration. */
export const groupIdOf = (configId: string): string => `rampart-${configId}`;

export const errorText = (error: unknown): string => {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message !== error.message
      ? `${error.message}: ${cause.message}`
      : error.message;
  }
  return String(error);
};
