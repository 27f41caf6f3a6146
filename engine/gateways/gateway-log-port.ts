import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import { capText, type Logger } from '#engine/shared';
import type { CompiledSite } from '#engine/sites';
import { resolveSourceIp, type IntelligenceResult } from '#engine/verdict';
import type { AccessMerge } from './access-merge.ts';
import { parseGatewayLogDatagram, type GatewayLogLine } from './gateway-log-line.ts';

/**
 * The gateway log port (UDP, RAMPART_GATEWAY_LOG_PORT, default 9082, on the gateway API's host):
 * nginx's access-log lines of protected requests, sent by the plugin bundle's `access_log syslog:`.
 * Each line completes the verdict's held record (`AccessMerge`) or, when none waits, is stored alone.
 * Only gateways are heard (the trust of the browser routes: RAMPART_GATEWAY_TRUSTED, default
 * loopback, and addresses that sent heartbeats) and only about existing sites. Anything else is
 * counted and dropped; a datagram never throws out of here.
 */

export const DEFAULT_GATEWAY_LOG_PORT = 9082;

export interface GatewayLogCounts {
  received: number;
  merged: number;
  /** Lines stored as records of their own: their verdict's record was gone (written, or never held). */
  alone: number;
  malformed: number;
  untrusted: number;
  unknownSite: number;
}

export interface GatewayLogPortOptions {
  isGateway: (peer: string) => boolean;
  site: (id: string) => CompiledSite | undefined;
  merge: AccessMerge;
  /** Stores a line whose verdict record is gone as an access record of its own. */
  alone: (site: CompiledSite, line: GatewayLogLine) => void;
  logger: Logger;
}

/** How often at most a kind of dropped datagram is logged. */
const WARN_EVERY_MS = 60_000;

export class GatewayLogPort {
  readonly counts: GatewayLogCounts = { received: 0, merged: 0, alone: 0, malformed: 0, untrusted: 0, unknownSite: 0 };
  readonly #options: GatewayLogPortOptions;
  readonly #lastWarning = new Map<string, number>();
  #socket: Socket | undefined;

  constructor(options: GatewayLogPortOptions) {
    this.#options = options;
  }

  /** Binds the UDP socket; rejects when the port cannot be had (in use, not permitted). */
  async listen(host: string, port: number): Promise<number> {
    const socket = createSocket({ type: isIP(host) === 6 ? 'udp6' : 'udp4' });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    // A receive error (rare for UDP) is logged; the socket goes on.
    socket.on('error', (error) => this.#options.logger.warn({ err: error }, 'gateway log port error'));
    socket.on('message', (datagram, remote) => this.receive(datagram, remote.address));
    this.#socket = socket;
    return socket.address().port;
  }

  /** One datagram from `peer`: merged, stored alone, or counted and dropped. */
  receive(datagram: Buffer, peer: string): void {
    this.counts.received++;
    const { isGateway, site: siteOf, merge, alone } = this.#options;
    if (!isGateway(peer)) {
      this.counts.untrusted++;
      this.#warn('untrusted', { peer }, 'access-log line from an address that is not a trusted gateway dropped');
      return;
    }
    const parsed = parseGatewayLogDatagram(datagram);
    if (!parsed.ok) {
      this.counts.malformed++;
      this.#warn('malformed', { peer, reason: parsed.reason }, 'malformed access-log line dropped');
      return;
    }
    const { line } = parsed;
    const site = siteOf(line.site);
    if (site === undefined) {
      this.counts.unknownSite++;
      this.#warn('unknownSite', { peer, site: line.site }, 'access-log line of an unknown site dropped');
      return;
    }
    if (merge.complete(line.id, site.id, line)) {
      this.counts.merged++;
      return;
    }
    try {
      alone(site, line);
      this.counts.alone++;
    } catch (error) {
      this.#options.logger.error({ err: error, site: site.id }, 'access-log line could not be stored');
    }
  }

  async close(): Promise<void> {
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  #warn(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    if (now - (this.#lastWarning.get(kind) ?? -Infinity) < WARN_EVERY_MS) return;
    this.#lastWarning.set(kind, now);
    this.#options.logger.warn({ ...fields, counts: { ...this.counts } }, message);
  }
}

/** Lines carry nginx's clock; one further than this from Rampart's is stored at Rampart's time. */
const CLOCK_SKEW_MAX_MS = 5 * 60_000;

/**
 * An access record from nginx's line alone (its verdict's record was written already, or the
 * engine restarted in between): the request as nginx saw it and the response, without the
 * verdict's findings (no action, list result or WAF fields). Its time is the request's start by
 * nginx's clock when that is close to `now`, else `now`.
 */
export function loneAccessRecord(
  site: CompiledSite,
  line: GatewayLogLine,
  now: number,
  intel: (srcIp: string, userAgent: string) => IntelligenceResult | null,
): Record<string, unknown> & { _timestamp: number } {
  const started = line.endMs === null ? null : Math.round(line.endMs - line.requestTimeSeconds * 1000);
  const time = started !== null && Math.abs(started - now) <= CLOCK_SKEW_MAX_MS ? started : now;
  const headers: Record<string, string> = {};
  if (line.xff !== '') headers['x-forwarded-for'] = line.xff;
  if (line.realIp !== '') headers['x-real-ip'] = line.realIp;
  const srcIp = resolveSourceIp(site, headers, line.addr);
  const userAgent = capText(line.userAgent);
  return {
    _timestamp: time,
    log_id: line.id,
    site_id: site.id,
    hostname: capText(line.host),
    scheme: capText(line.scheme),
    request: capText(line.request),
    src_ip: capText(srcIp),
    x_forwarded_for: capText(line.xff),
    user_agent: userAgent,
    referrer: capText(line.referrer),
    status: line.status,
    body_bytes_sent: line.bodyBytesSent,
    request_time: line.requestTimeSeconds,
    guard_status: capText(line.guard, 32),
    source_type: 'web',
    _intelligence_result: intel(srcIp, userAgent),
  };
}
