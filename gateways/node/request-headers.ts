import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';

/**
 * The headers Rampart is sent about a client's request, as the nginx bundle's `engineHeaders` sets
 * them (engine/gateways/nginx-bundle.ts): the client's own headers (nginx passes them on), then the
 * request's method, URI, host, scheme, protocol, client address and a request id. A client cannot
 * set any of Rampart's names (`X-Rampart-*`, `X-Original-*`): they are dropped, then written here.
 */

/** Hop-by-hop headers and those this gateway writes itself, never taken from the client. */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'host',
  'x-request-id',
]);

/** Hop-by-hop headers of an answer, not copied to the client (the server writes its own framing). */
export const HOP_BY_HOP_ANSWER = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** An IPv4 address Node reports as IPv4-mapped IPv6 (`::ffff:192.0.2.1`) in its plain form, as nginx writes it. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * The client's address: the socket's, or with `forwardedHops` > 0 the address that many proxies
 * back in X-Forwarded-For (1: the last one added, by the proxy right in front of this gateway), as
 * Express's `trust proxy` reads a hop count. A value that is not an address is not believed.
 */
export function clientAddress(req: IncomingMessage, forwardedHops: number): string {
  const peer = plainAddress(req.socket.remoteAddress ?? '');
  if (forwardedHops <= 0) return peer;
  const header = req.headers['x-forwarded-for'];
  if (header === undefined) return peer;
  const chain = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  if (chain.length === 0) return peer;
  const candidate = plainAddress(chain[Math.max(0, chain.length - forwardedHops)] ?? '');
  return isIP(candidate) !== 0 ? candidate : peer;
}

/** nginx's `$host`: the Host header's name, lower case, without the port. */
function hostName(headers: IncomingHttpHeaders): string {
  const host = (headers.host ?? '').trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/** The request's URI as the client sent it (Express rewrites `req.url` under a mount path; `originalUrl` keeps it). */
export function requestUri(req: IncomingMessage): string {
  return (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
}

export interface EngineHeaderInput {
  siteId: string;
  remoteAddr: string;
  scheme: 'http' | 'https';
  requestId: string;
  /** The Access Key: the verdict and the heartbeat carry it, the browser routes do not. */
  accessKey?: string;
  /** Keep the client's Content-Length (a request whose body goes to Rampart: the probe's reports). */
  withBody?: boolean;
}

export function engineHeaders(req: IncomingMessage, input: EngineHeaderInput): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const name in req.headers) {
    if (NOT_FORWARDED.has(name) || name.startsWith('x-rampart-') || name.startsWith('x-original-')) continue;
    out[name] = req.headers[name];
  }
  out['x-rampart-site'] = input.siteId;
  if (input.accessKey !== undefined) out['x-rampart-key'] = input.accessKey;
  out['x-rampart-remote-addr'] = input.remoteAddr;
  out['x-rampart-scheme'] = input.scheme;
  out['x-rampart-protocol'] = `HTTP/${req.httpVersion}`;
  out['x-original-uri'] = requestUri(req);
  out['x-original-method'] = req.method ?? 'GET';
  const length = req.headers['content-length'];
  if (length !== undefined) {
    out['x-original-content-length'] = length;
    if (input.withBody === true) out['content-length'] = length;
  }
  out['x-request-id'] = input.requestId;
  out.host = hostName(req.headers);
  return out;
}
