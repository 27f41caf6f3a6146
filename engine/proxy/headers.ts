import type { IncomingHttpHeaders } from 'node:http';

/** Hop-by-hop headers (RFC 9110 7.6.1) and those a proxy must not pass on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/** Header names a Connection header lists as hop-by-hop too. */
function connectionListed(headers: Readonly<Record<string, string | string[] | undefined>>): Set<string> | null {
  const value = headers.connection;
  if (value === undefined) return null;
  const names = new Set<string>();
  for (const part of (Array.isArray(value) ? value.join(',') : value).split(',')) {
    const name = part.trim().toLowerCase();
    if (name !== '') names.add(name);
  }
  return names;
}

export interface ForwardFacts {
  /** The address the client connected from. */
  peer: string;
  /** The client's address as the site's source-IP setting resolves it. */
  srcIp: string;
  scheme: 'http' | 'https';
  host: string;
}

/**
 * The headers sent to the origin: the client's, without hop-by-hop ones, `Expect` (the proxy
 * has read the body's start already) and Rampart's own `X-Rampart-*` (a client must not pass
 * them on), with `X-Forwarded-For` extended by the peer, `X-Forwarded-Proto` / `-Host` and
 * `X-Real-IP` set.
 */
export function originRequestHeaders(
  headers: IncomingHttpHeaders,
  facts: ForwardFacts,
): Record<string, string | string[]> {
  const listed = connectionListed(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed?.has(name) === true) continue;
    if (name === 'expect' || name.startsWith('x-rampart-')) continue;
    if (name === 'x-forwarded-for' || name === 'x-forwarded-proto' || name === 'x-forwarded-host') continue;
    if (name === 'x-real-ip') continue;
    out[name] = value;
  }
  const before = headers['x-forwarded-for'];
  const prior = Array.isArray(before) ? before.join(', ') : before;
  out['x-forwarded-for'] = prior !== undefined && prior.trim() !== '' ? `${prior}, ${facts.peer}` : facts.peer;
  out['x-forwarded-proto'] = facts.scheme;
  if (facts.host !== '') out['x-forwarded-host'] = facts.host;
  out['x-real-ip'] = facts.srcIp;
  return out;
}

/** Server-identifying response headers, dropped when the site hides server information. */
const SERVER_INFO = new Set(['server', 'x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version']);

/**
 * The origin's response headers for the client: without hop-by-hop ones (and, when the site
 * hides server information, without `Server` and `X-Powered-By`). `Content-Length` stays: the
 * body is passed on unchanged.
 */
export function clientResponseHeaders(
  headers: Record<string, string | string[] | undefined>,
  hideServerInfo: boolean,
): Record<string, string | string[]> {
  const listed = connectionListed(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed?.has(name) === true) continue;
    if (hideServerInfo && SERVER_INFO.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** Headers as the WAF reads them: name and value pairs, repeated headers one pair each. */
export function headerPairs(headers: Record<string, string | string[] | undefined>): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) pairs.push([name, v]);
    else pairs.push([name, value]);
  }
  return pairs;
}

/** The host name of a Host header or SNI name, lower-case, without port or trailing dot. */
export function hostName(value: string | undefined): string {
  if (value === undefined) return '';
  let host = value.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  if (colon !== -1) host = host.slice(0, colon);
  return host.endsWith('.') ? host.slice(0, -1) : host;
}
