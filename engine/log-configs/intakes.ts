import { isIP } from 'node:net';
import type { ConfigSlice, LogConfigRecord } from '#engine/config-store';
import {
  issueServerCertificate,
  KafkaIntake,
  TlsIntake,
  type BrokerConfig,
  type KafkaStore,
  type PartitionLag,
} from '#engine/intake';
import type { LogRecord } from '#engine/log-store';
import { compileIpList } from '#engine/sites';
import { silentLogger, type Clock, type Logger } from '#engine/shared';
import {
  addIntelligence,
  failedRawRecord,
  type FailedRecord,
  type IngestCounts,
  type IntelLookup,
  type LogIngest,
} from './ingest.ts';
import { parseConfigOf, RAW_LOG, type LogConfigsService } from './log-configs-service.ts';

export interface TcpStatus {
  listening: boolean;
  /** Where senders connect (`host:port`, as the configuration's bundle says). */
  address: string;
  connectionsOpen: number;
  connectionsTotal: number;
  bytes: number;
  oversized: number;
  incomplete: number;
  invalidUtf8: number;
}

export interface KafkaStatus {
  state: string;
  lastError: string | null;
  lag: number | null;
  bytes: number;
}

/** The log store as the Kafka consumers write to it (records, offsets, flushes, backlog). */
export type IntakeLogStore = KafkaStore & { append(log: string, record: LogRecord): void };

export interface IntakesDeps {
  configs: LogConfigsService;
  ingest: LogIngest;
  /** Where the intake's own key and certificate are kept (made on first start). */
  store: ConfigSlice<'intake'>;
  /** Where BROKER configurations' records and their Kafka offsets go. */
  logStore: IntakeLogStore;
  /** `_intelligence_result` for configurations with the intelligence query on. */
  intel?: IntelLookup;
  clock: Clock;
  logger?: Logger;
  /** The TLS-TCP listener; port 0 turns it off. */
  tcp: { host: string; port: number };
  /** The host senders are told to reach (the listener's when it is not a wildcard). */
  advertisedHost: () => string;
  /**
   * The addresses (IPs or CIDR ranges) BROKER configurations may connect to; undefined: any. A
   * broker given by name must be `localhost` to pass a list (names are not resolved here).
   */
  kafkaBrokersAllowed?: readonly string[] | undefined;
}

/** Whether every broker of a configuration is allowed by the list (undefined: all are). */
export function brokersAllowed(brokers: readonly string[], allowed: readonly string[] | undefined): boolean {
  if (allowed === undefined) return true;
  const list = compileIpList(allowed, 'RAMPART_KAFKA_BROKERS_ALLOWED');
  return brokers.every((broker) => {
    const host = broker.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    return host === 'localhost' ? list.has('127.0.0.1') || list.has('::1') : list.has(host);
  });
}

const hostPort = ({ host, port }: { host: string; port: number }): string =>
  isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/**
 * The intakes of the custom log configurations: the TLS-TCP listener (spec 4.1) that hands each
 * sender's lines, by its certificate's configuration, to the ingestion; kept in step with the
 * configurations (`changed()` after every save: new CAs trusted, revoked bundles cut off).
 */
export class Intakes {
  readonly ingest: LogIngest;
  readonly #deps: IntakesDeps;
  #tls: TlsIntake | undefined;
  #tcpPort = 0;
  readonly #kafka: KafkaIntake;
  /** BROKER configurations not started: their brokers are outside RAMPART_KAFKA_BROKERS_ALLOWED. */
  readonly #refused = new Set<string>();

  constructor(deps: IntakesDeps) {
    this.#deps = deps;
    this.ingest = deps.ingest;
    this.#kafka = new KafkaIntake({
      store: deps.logStore,
      logger: deps.logger ?? silentLogger,
      clock: deps.clock,
      // A message that did not parse to the raw log (in the batch that stores its offset).
      failed: (configId, message) =>
        deps.logStore.append(
          RAW_LOG,
          failedRawRecord(configId, message.line, message.logId, message.now, message.reason),
        ),
    });
  }

  /**
   * Starts a Kafka consumer per BROKER configuration and opens the TLS listener. A port that cannot
   * be had is logged; the engine runs on without it.
   */
  async start(): Promise<void> {
    await this.#kafka.apply(this.#brokerConfigs());
    const { tcp } = this.#deps;
    if (tcp.port === 0) return;
    const server = await this.#serverCertificate();
    const configs = this.#deps.configs;
    const tls = new TlsIntake({
      keyPem: server.serverKeyPem,
      certPem: server.serverCertPem,
      configs: {
        byFingerprint: (fingerprint) => {
          const config = configs.list().find((c) => c.method === 'tcp' && c.certificate?.fingerprint === fingerprint);
          return config ? { id: config.id } : undefined;
        },
        cas: () =>
          configs.list().flatMap((c) => (c.method === 'tcp' && c.certificate ? [c.certificate.caCertPem] : [])),
      },
      sink: {
        write: (configId, lines) => this.ingest.write(configId, lines),
        backlog: () => this.ingest.backlog(),
      },
      logger: this.#deps.logger ?? silentLogger,
    });
    try {
      this.#tcpPort = await tls.listen(tcp.host, tcp.port);
      this.#tls = tls;
    } catch (error) {
      await tls.close().catch(() => undefined);
      (this.#deps.logger ?? silentLogger).error(
        { err: error, host: tcp.host, port: tcp.port },
        'TLS log intake (RAMPART_INTAKE_PORT) could not be opened: TCP log configurations receive nothing; free the port or choose another',
      );
    }
  }

  /** After a configuration was saved, copied, regenerated or deleted. */
  async changed(): Promise<void> {
    this.#tls?.reload();
    await this.#kafka.apply(this.#brokerConfigs());
  }

  /** What a configuration received: from its Kafka consumer for BROKER, from the ingestion for TCP. */
  counts(config: LogConfigRecord): IngestCounts {
    if (config.method !== 'broker') return this.ingest.counts(config.id);
    const kafka = this.#kafka.counts()[config.id];
    return {
      received: kafka?.received ?? 0,
      parsed: kafka?.stored ?? 0,
      discarded: kafka?.discarded ?? 0,
      orphaned: 0,
      lastReceivedAt: null,
    };
  }

  /** The newest failures of a configuration, newest first. */
  failed(config: LogConfigRecord): FailedRecord[] {
    if (config.method !== 'broker') return this.ingest.failed(config.id);
    return [...(this.#kafka.counts()[config.id]?.recentFailures ?? [])].reverse().map((f) => ({
      at: f.at,
      code: f.code,
      reason: f.reason,
      field: f.code === 'required_field_missing' ? String(f.params.field ?? '') || null : null,
      params: f.params,
      logId: f.logId,
      line: '',
    }));
  }

  #brokerConfigs(): BrokerConfig[] {
    const out: BrokerConfig[] = [];
    this.#refused.clear();
    for (const config of this.#deps.configs.list()) {
      if (config.method !== 'broker' || config.broker === null) continue;
      const brokers = config.broker.address
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean);
      if (!brokersAllowed(brokers, this.#deps.kafkaBrokersAllowed)) {
        this.#refused.add(config.id);
        continue;
      }
      // Only a configuration that compiles is read (its thread compiles it again).
      if (this.#deps.configs.parser(config.id) === undefined) continue;
      const intel = config.intelligence ? this.#deps.intel : undefined;
      const { broker } = config;
      const sasl = broker.account !== '' && broker.mechanism !== 'none';
      out.push({
        id: config.id,
        brokers,
        topic: broker.topic,
        ...(sasl
          ? {
              username: broker.account,
              password: broker.password,
              mechanism: broker.mechanism as Exclude<typeof broker.mechanism, 'none'>,
            }
          : {}),
        tls: broker.tls ? (broker.ca ? { ca: broker.ca } : true) : false,
        parse: parseConfigOf(config),
        ...(intel ? { enrich: (record: Record<string, unknown>) => addIntelligence(record, intel) } : {}),
      });
    }
    return out;
  }

  /** Where a TCP configuration's senders reach the intake (for its bundle). */
  tcpAddress(): { host: string; port: number } {
    const host = WILDCARDS.has(this.#deps.tcp.host) ? this.#deps.advertisedHost() : this.#deps.tcp.host;
    return { host, port: this.#tcpPort || this.#deps.tcp.port || 5514 };
  }

  tcpStatus(configId: string): TcpStatus {
    const counts = this.#tls?.counts().configs[configId];
    return {
      listening: this.#tls !== undefined,
      address: hostPort(this.tcpAddress()),
      connectionsOpen: counts?.connectionsOpen ?? 0,
      connectionsTotal: counts?.connectionsTotal ?? 0,
      bytes: counts?.bytes ?? 0,
      oversized: counts?.oversized ?? 0,
      incomplete: counts?.incomplete ?? 0,
      invalidUtf8: counts?.invalidUtf8 ?? 0,
    };
  }

  /** A BROKER configuration's consumer: its state, last error, lag and bytes. */
  kafkaStatus(configId: string): KafkaStatus {
    if (this.#refused.has(configId)) {
      return {
        state: 'stopped',
        lastError: 'its broker address is not allowed on this appliance (RAMPART_KAFKA_BROKERS_ALLOWED)',
        lag: null,
        bytes: 0,
      };
    }
    const counts = this.#kafka.counts()[configId];
    return {
      state: counts?.state ?? 'stopped',
      lastError: counts?.lastError ?? null,
      lag: counts?.totalLag ?? null,
      bytes: counts?.bytes ?? 0,
    };
  }

  /** Whether the TLS-TCP listener is open (false while its port is 0 or could not be had). */
  get tcpListening(): boolean {
    return this.#tls !== undefined;
  }

  /** A BROKER configuration's lag per partition, as of its consumer's last refresh (empty before one). */
  kafkaLag(configId: string): readonly PartitionLag[] {
    return this.#kafka.counts()[configId]?.lag ?? [];
  }

  /** Stops the listener and the consumers (before the log store closes: what they read is stored). */
  async close(): Promise<void> {
    await Promise.all([this.#tls?.close(), this.#kafka.close()]);
    this.#tls = undefined;
  }

  async #serverCertificate(): Promise<{ serverKeyPem: string; serverCertPem: string }> {
    const stored = this.#deps.store.data.intake;
    if (stored) return stored;
    const made = issueServerCertificate({
      hosts: [this.#deps.advertisedHost(), '127.0.0.1', 'localhost'].filter((h, i, all) => h && all.indexOf(h) === i),
      now: this.#deps.clock.now(),
    });
    const record = { serverKeyPem: made.keyPem, serverCertPem: made.certPem };
    await this.#deps.store.update((doc) => {
      doc.intake = record;
    });
    return record;
  }
}
