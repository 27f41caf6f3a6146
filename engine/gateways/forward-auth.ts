import { cleanIp, header, type Headers, type RequestFacts } from '#engine/verdict';

/**
 * How a gateway describes the original request on a verdict request, besides nginx's own
 * (X-Original-URI, X-Rampart-Remote-Addr, ...: the bare `/_rampart/verdict`, unchanged):
 *
 * - `forward-auth`: Caddy `forward_auth`, Traefik `ForwardAuth` and the HAProxy recipe, asking
 *   `/_rampart/verdict?gw=caddy` (or `traefik`, `haproxy`, `forward-auth`). The original request is
 *   in X-Forwarded-Method, X-Forwarded-Uri, X-Forwarded-Host, X-Forwarded-Proto and X-Forwarded-For.
 * - `envoy`: Envoy `ext_authz` with an HTTP service whose `path_prefix` is ENVOY_PREFIX: the check
 *   request carries the original method, and the original path and query after the prefix.
 *
 * Both read any 2xx as "allow" and copy any other answer (status, headers, body) to the client, so
 * their reload and block answers are the pages themselves, not nginx's empty 401 / 403.
 */
export type VerdictConvention = { kind: 'nginx' } | { kind: 'forward-auth' } | { kind: 'envoy'; uri: string };

export const VERDICT_PATH = '/_rampart/verdict';
/** Envoy's `http_service.path_prefix`: the check request's path is this followed by the original one. */
export const ENVOY_PREFIX = '/_rampart/verdict/envoy';

const FORWARD_AUTH_NAMES = new Set(['caddy', 'traefik', 'haproxy', 'forward-auth']);

/** The convention of a verdict request URL, or undefined when the URL is not a verdict route. */
export function verdictConvention(url: string): VerdictConvention | undefined {
  if (url === VERDICT_PATH) return { kind: 'nginx' };
  if (url.startsWith(`${VERDICT_PATH}?`)) {
    const gw = new URLSearchParams(url.slice(VERDICT_PATH.length + 1)).get('gw');
    if (gw === null) return { kind: 'nginx' };
    return FORWARD_AUTH_NAMES.has(gw) ? { kind: 'forward-auth' } : undefined;
  }
  if (url.startsWith(ENVOY_PREFIX)) {
    const rest = url.slice(ENVOY_PREFIX.length);
    if (rest === '' || rest.startsWith('?')) return { kind: 'envoy', uri: `/${rest}` };
    if (rest.startsWith('/')) return { kind: 'envoy', uri: rest };
  }
  return undefined;
}

/**
 * The address the gateway appended last to X-Forwarded-For: the peer it received the request from.
 * (Earlier entries came from the client or proxies before it, and say nothing a gateway checked.)
 */
export function lastForwardedFor(headers: Headers): string | undefined {
  const raw = headers['x-forwarded-for'];
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (value === undefined) return undefined;
  const last = cleanIp(value.slice(value.lastIndexOf(',') + 1));
  return last === '' ? undefined : last;
}

/**
 * The original request of a forward-auth or Envoy verdict request. The client's address, scheme and
 * host (X-Forwarded-For, -Proto, -Host) are believed only from a trusted gateway (`trusted`: the
 * gateway trust of the browser routes); from any other peer, even one with the Access Key, the
 * client is the peer itself. Method and URI are what is being asked about, so they are read always.
 */
export function conventionFacts(
  convention: Exclude<VerdictConvention, { kind: 'nginx' }>,
  headers: Headers,
  method: string,
  peer: string,
  trusted: boolean,
  body: Buffer | undefined,
): RequestFacts {
  const forwardAuth = convention.kind === 'forward-auth';
  const host = header(headers, 'host') ?? '';
  return {
    method: forwardAuth ? (header(headers, 'x-forwarded-method') ?? method) : method,
    scheme: (trusted ? header(headers, 'x-forwarded-proto') : undefined) ?? 'http',
    host: (trusted ? header(headers, 'x-forwarded-host') : undefined) ?? host,
    uri: forwardAuth ? (header(headers, 'x-forwarded-uri') ?? '/') : convention.uri,
    protocol: 'HTTP/1.1',
    remoteAddr: (trusted ? lastForwardedFor(headers) : undefined) ?? peer,
    headers,
    requestId: header(headers, 'x-request-id') ?? '',
    ...(body && body.length > 0 ? { body } : {}),
  };
}

/**
 * The status of a reload or block answer to a forward-auth gateway: the site's, unless it is a 2xx,
 * which these gateways read as "allow"; then 403, so that a site configured to answer 200 still stops
 * the request there.
 */
export const conventionStatus = (configured: number): number => (configured < 300 ? 403 : configured);
