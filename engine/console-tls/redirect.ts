import { isIP } from 'node:net';

/**
 * What plain HTTP gets when the console also speaks TLS: `loopback` serves it to clients on this
 * host (their traffic never crosses the network) and redirects everyone else to HTTPS; `redirect`
 * redirects every plain request.
 */
export type PlainHttpPolicy = 'loopback' | 'redirect';

const HOST_HEADER = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (plain === '::1') return true;
  return isIP(plain) === 4 && plain.startsWith('127.');
}

/**
 * Where a plain-HTTP request is sent instead (`https://<its Host><its path>`), or undefined when
 * it is served as it is. A Host header that is not a host name or address (with a port) gets no
 * redirect: `bad_host`, answered 400 by the caller, so the header cannot point a browser elsewhere.
 */
export function plainHttpRedirect(
  request: { encrypted: boolean; remoteAddress: string | undefined; host: string | undefined; url: string },
  policy: PlainHttpPolicy,
): { location: string } | 'bad_host' | undefined {
  if (request.encrypted) return undefined;
  if (policy === 'loopback' && isLoopbackAddress(request.remoteAddress)) return undefined;
  const host = request.host ?? '';
  if (!HOST_HEADER.test(host)) return 'bad_host';
  const path = request.url.startsWith('/') ? request.url : '/';
  return { location: `https://${host}${path}` };
}
