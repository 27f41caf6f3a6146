import type { Socket } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { silentLogger, type Logger } from '#engine/shared';
import { certificateFingerprint } from './certificates.ts';
import { DEFAULT_MAX_MESSAGE_BYTES, FrameDecoder, newFrameCounters, type FrameCounters } from './framing.ts';

/** A TCP configuration as the intake needs it. */
export interface IntakeConfig {
  id: string;
}

/** The current TCP configurations: read at start and at every `reload()`. */
export interface IntakeConfigs {
  /** The configuration whose client certificate has this SHA-256 fingerprint (lower-case hex). */
  byFingerprint(fingerprint: string): IntakeConfig | undefined;
  /** The CA certificates (PEM) of all current TCP configurations: the only ones trusted. */
  cas(): string[];
}

/** Where decoded messages go. `write` must not throw; `backlog` is what is accepted but not yet stored. */
export interface IntakeSink {
  write(configId: string, lines: string[]): void;
  backlog(): number;
}

export interface TlsIntakeOptions {
  keyPem: string;
  certPem: string;
  configs: IntakeConfigs;
  sink: IntakeSink;
  logger?: Logger;
  maxMessageBytes?: number;
  /** Sockets pause when `sink.backlog()` exceeds this... */
  highWaterMark?: number;
  /** ...and resume when it is at or below this. */
  lowWaterMark?: number;
  /** While paused, how often the backlog is read (besides `drained()`). */
  backlogPollMs?: number;
  handshakeTimeoutMs?: number;
  idleTimeoutMs?: number;
  maxConnections?: number;
}

/** Per TCP configuration. */
export interface ConfigCounts extends FrameCounters {
  connectionsOpen: number;
  connectionsTotal: number;
  /** Bytes received (after TLS). */
  bytes: number;
  /** Connections closed for sending nothing for the idle timeout (a slow or stalled sender). */
  idleClosed: number;
  /** Connections closed because their configuration was deleted or its bundle regenerated. */
  revokedClosed: number;
}

/** Refused before a configuration is known. */
export interface RefusedCounts {
  /** The TLS handshake failed: no client certificate, one from an unknown CA, or a protocol error. */
  handshake: number;
  /** The handshake did not finish in time (a half-open or stalled client). */
  handshakeTimeout: number;
  /** A valid certificate no configuration has (any more). */
  unknownCertificate: number;
  /** Over the maximum number of concurrent connections. */
  overLimit: number;
}

export interface IntakeCounts {
  configs: Record<string, ConfigCounts>;
  refused: RefusedCounts;
  /** Connections open now, handshakes included. */
  connections: number;
  /** True while reading is paused for back-pressure. */
  paused: boolean;
}

interface Connection {
  socket: TLSSocket;
  fingerprint: string;
  configId: string;
  decoder: FrameDecoder;
  counts: ConfigCounts;
}

const DEFAULTS = {
  highWaterMark: 50_000,
  lowWaterMark: 10_000,
  backlogPollMs: 20,
  handshakeTimeoutMs: 10_000,
  idleTimeoutMs: 5 * 60_000,
  maxConnections: 10_000,
};

/**
 * The TLS-TCP log intake (spec 4.1): mutual TLS, the client certificate names the configuration,
 * messages framed by LF or octet counting go to the sink per configuration. Reading pauses while
 * the sink lags, so the senders' TCP windows close and nothing is dropped silently.
 */
export class TlsIntake {
  readonly #options: Required<Omit<TlsIntakeOptions, 'logger'>>;
  readonly #logger: Logger;
  readonly #server: Server;
  readonly #connections = new Set<Connection>();
  readonly #counts = new Map<string, ConfigCounts>();
  readonly #refused: RefusedCounts = { handshake: 0, handshakeTimeout: 0, unknownCertificate: 0, overLimit: 0 };
  /** Raw TCP sockets, handshakes included: what the connection limit counts. */
  readonly #sockets = new Set<Socket>();
  #paused = false;
  #poll: NodeJS.Timeout | undefined;
  /** Resumes so far: each starts with the next connection, so that no sender is always first. */
  #resumes = 0;

  constructor(options: TlsIntakeOptions) {
    const o = options;
    this.#options = {
      keyPem: o.keyPem,
      certPem: o.certPem,
      configs: o.configs,
      sink: o.sink,
      maxMessageBytes: o.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      highWaterMark: o.highWaterMark ?? DEFAULTS.highWaterMark,
      lowWaterMark: o.lowWaterMark ?? DEFAULTS.lowWaterMark,
      backlogPollMs: o.backlogPollMs ?? DEFAULTS.backlogPollMs,
      handshakeTimeoutMs: o.handshakeTimeoutMs ?? DEFAULTS.handshakeTimeoutMs,
      idleTimeoutMs: o.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs,
      maxConnections: o.maxConnections ?? DEFAULTS.maxConnections,
    };
    this.#logger = options.logger ?? silentLogger;
    this.#server = createServer({
      key: options.keyPem,
      cert: options.certPem,
      ca: options.configs.cas(),
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: 'TLSv1.2',
      handshakeTimeout: this.#options.handshakeTimeoutMs,
    });
    this.#server.on('connection', (socket: Socket) => this.#onTcp(socket));
    this.#server.on('secureConnection', (socket: TLSSocket) => this.#onSecure(socket));
    this.#server.on('tlsClientError', (error: Error & { code?: string }, socket: TLSSocket) => {
      // With a listener here Node leaves the socket open (a handshake timeout would hold it forever).
      socket.destroy();
      if (error.code === 'ERR_TLS_HANDSHAKE_TIMEOUT') this.#refused.handshakeTimeout += 1;
      else this.#refused.handshake += 1;
      this.#logger.debug({ err: error.message, code: error.code }, 'log intake: TLS handshake refused');
    });
    this.#server.on('error', (error: Error) => this.#logger.error({ err: error.message }, 'log intake: server error'));
  }

  /** Listens; resolves with the port (useful with port 0). */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      this.#server.once('error', onError);
      this.#server.listen(port, host, () => {
        this.#server.off('error', onError);
        const address = this.#server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });
  }

  /**
   * Stops accepting and closes every connection. Messages already complete were written to the
   * sink as they arrived; a partial one is counted as incomplete.
   */
  async close(): Promise<void> {
    if (this.#poll !== undefined) clearInterval(this.#poll);
    this.#poll = undefined;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const connection of this.#connections) this.#finish(connection, false);
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  /**
   * The configurations changed: trust the current CAs only, and close connections whose
   * certificate no longer names the same configuration (deleted, or its bundle regenerated).
   */
  reload(): void {
    this.#server.setSecureContext({
      key: this.#options.keyPem,
      cert: this.#options.certPem,
      ca: this.#options.configs.cas(),
      minVersion: 'TLSv1.2',
    });
    for (const connection of this.#connections) {
      const config = this.#options.configs.byFingerprint(connection.fingerprint);
      if (config?.id === connection.configId) continue;
      connection.counts.revokedClosed += 1;
      this.#logger.warn(
        { configId: connection.configId },
        'log intake: connection closed, its certificate was revoked',
      );
      this.#finish(connection, false);
    }
  }

  /** The sink caught up: resume reading now rather than at the next poll. */
  drained(): void {
    this.#checkBacklog();
  }

  counts(): IntakeCounts {
    const configs: Record<string, ConfigCounts> = {};
    for (const [id, counts] of this.#counts) configs[id] = { ...counts };
    return { configs, refused: { ...this.#refused }, connections: this.#sockets.size, paused: this.#paused };
  }

  #onTcp(socket: Socket): void {
    if (this.#sockets.size >= this.#options.maxConnections) {
      this.#refused.overLimit += 1;
      socket.destroy();
      return;
    }
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    // The TLS socket reports errors; the raw socket's own (a reset mid-handshake) must not go unheard.
    socket.on('error', () => undefined);
  }

  #onSecure(socket: TLSSocket): void {
    socket.on('error', (error: Error) => this.#logger.debug({ err: error.message }, 'log intake: connection error'));
    const raw = socket.getPeerCertificate().raw as Buffer | undefined;
    const fingerprint = raw === undefined ? '' : certificateFingerprint(raw);
    const config = fingerprint === '' ? undefined : this.#options.configs.byFingerprint(fingerprint);
    if (config === undefined) {
      this.#refused.unknownCertificate += 1;
      this.#logger.warn({ fingerprint }, 'log intake: refused a certificate no configuration has');
      socket.destroy();
      return;
    }
    const counts = this.#countsOf(config.id);
    const connection: Connection = {
      socket,
      fingerprint,
      configId: config.id,
      decoder: new FrameDecoder(counts, this.#options.maxMessageBytes),
      counts,
    };
    this.#connections.add(connection);
    counts.connectionsOpen += 1;
    counts.connectionsTotal += 1;
    if (this.#paused) socket.pause();
    else socket.setTimeout(this.#options.idleTimeoutMs);
    socket.on('timeout', () => {
      counts.idleClosed += 1;
      this.#logger.debug({ configId: config.id }, 'log intake: idle connection closed');
      this.#finish(connection, false);
    });
    socket.on('data', (chunk: Buffer) => {
      counts.bytes += chunk.length;
      this.#deliver(connection, connection.decoder.push(chunk));
    });
    // The sender closed its side: a last line without its LF is complete.
    socket.on('end', () => this.#finish(connection, true));
    socket.on('close', () => this.#finish(connection, false));
  }

  /** Takes a connection out, once: what it completed goes to the sink, then the socket is destroyed. */
  #finish(connection: Connection, clean: boolean): void {
    if (!this.#connections.delete(connection)) return;
    connection.counts.connectionsOpen -= 1;
    this.#deliver(connection, connection.decoder.end(clean));
    connection.socket.destroy();
  }

  #deliver(connection: Connection, lines: string[]): void {
    if (lines.length === 0) return;
    try {
      this.#options.sink.write(connection.configId, lines);
    } catch (error) {
      this.#logger.error(
        {
          configId: connection.configId,
          err: error instanceof Error ? error.message : String(error),
          lost: lines.length,
        },
        'log intake: the sink refused messages; closing the connection',
      );
      this.#finish(connection, false);
      return;
    }
    if (!this.#paused && this.#options.sink.backlog() > this.#options.highWaterMark) this.#pause();
  }

  #pause(): void {
    this.#paused = true;
    // A paused connection is silent because of us: its idle timer stops until reading resumes.
    for (const connection of this.#connections) connection.socket.pause().setTimeout(0);
    this.#logger.debug({ backlog: this.#options.sink.backlog() }, 'log intake: paused, the store lags');
    this.#poll ??= setInterval(() => this.#checkBacklog(), this.#options.backlogPollMs);
  }

  #checkBacklog(): void {
    if (!this.#paused || this.#options.sink.backlog() > this.#options.lowWaterMark) return;
    this.#paused = false;
    if (this.#poll !== undefined) clearInterval(this.#poll);
    this.#poll = undefined;
    // The first connection resumed delivers first, and its lines may fill the backlog before the
    // others deliver any: always starting with the same one starved the others (a sender got a
    // fourteenth of its neighbour's share). Each resume starts one further along.
    const connections = [...this.#connections];
    const first = this.#resumes++ % Math.max(1, connections.length);
    for (let i = 0; i < connections.length; i++)
      connections[(first + i) % connections.length]!.socket.setTimeout(this.#options.idleTimeoutMs).resume();
    this.#logger.debug({}, 'log intake: resumed');
  }

  #countsOf(configId: string): ConfigCounts {
    let counts = this.#counts.get(configId);
    if (counts === undefined) {
      counts = {
        ...newFrameCounters(),
        connectionsOpen: 0,
        connectionsTotal: 0,
        bytes: 0,
        idleClosed: 0,
        revokedClosed: 0,
      };
      this.#counts.set(configId, counts);
    }
    return counts;
  }
}
