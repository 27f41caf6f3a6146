import type { ConfigSlice } from '#engine/config-store';
import { issueServerCertificate, TlsIntake } from '#engine/intake';
import { silentLogger, type Clock, type Logger } from '#engine/shared';
import type { LogIngest } from './ingest.ts';
import type { LogConfigsService } from './log-configs-service.ts';

export interface TcpStatus {
  listening: boolean;
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

export interface IntakesDeps {
  configs: LogConfigsService;
  ingest: LogIngest;
  /** Where the intake's own key and certificate are kept (made on first start). */
  store: ConfigSlice<'intake'>;
  clock: Clock;
  logger?: Logger;
  /** The TLS-TCP listener; port 0 turns it off. */
  tcp: { host: string; port: number };
  /** The host senders are told to reach (the listener's when it is not a wildcard). */
  advertisedHost: () => string;
}

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

  constructor(deps: IntakesDeps) {
    this.#deps = deps;
    this.ingest = deps.ingest;
  }

  /** Opens the TLS listener. A port that cannot be had is logged; the engine runs on without it. */
  async start(): Promise<void> {
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
    await Promise.resolve();
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
      connectionsOpen: counts?.connectionsOpen ?? 0,
      connectionsTotal: counts?.connectionsTotal ?? 0,
      bytes: counts?.bytes ?? 0,
      oversized: counts?.oversized ?? 0,
      incomplete: counts?.incomplete ?? 0,
      invalidUtf8: counts?.invalidUtf8 ?? 0,
    };
  }

  /** A BROKER configuration's consumer: not built yet, so always stopped. */
  kafkaStatus(_configId: string): KafkaStatus {
    return { state: 'stopped', lastError: 'the Kafka intake is not built yet', lag: null, bytes: 0 };
  }

  async close(): Promise<void> {
    await this.#tls?.close();
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
