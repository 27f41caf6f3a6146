import { isIP } from 'node:net';
import type { CompiledSite } from '#engine/sites';
import type { Headers } from './request.ts';

/** A header's first value as a string. */
export function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `1.2.3.4`, `1.2.3.4:8080`, `[2001:db8::1]:443` or `2001:db8::1` to the bare address, or '' if none. */
export function cleanIp(raw: string): string {
  let text = raw.trim();
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    text = end === -1 ? '' : text.slice(1, end);
  } else if (text.indexOf(':') !== -1 && text.indexOf(':') === text.lastIndexOf(':')) {
    text = text.slice(0, text.indexOf(':'));
  }
  if (text.startsWith('::ffff:') && isIP(text.slice(7)) === 4) text = text.slice(7);
  return isIP(text) === 0 ? '' : text;
}

/** At most this many X-Forwarded-For entries are read, counted from the side the mode reads. */
const MAX_HOPS = 64;

/** The first `max` X-Forwarded-For entries from the left, each cleaned; garbage entries become ''. */
function fromLeft(value: string, max: number): string[] {
  const parts = value.split(',', max);
  const out = new Array<string>(parts.length);
  for (let i = 0; i < parts.length; i++) out[i] = cleanIp(parts[i] ?? '');
  return out;
}

/**
 * The last `max` X-Forwarded-For entries, rightmost first, each cleaned. Trusted proxies append at
 * the right, so the right end is the part a client cannot choose: the header is read from there, and
 * what a client prepends beyond the bound is never looked at.
 */
function fromRight(value: string, max: number): string[] {
  const out: string[] = [];
  let end = value.length;
  while (out.length < max) {
    const comma = value.lastIndexOf(',', end - 1);
    out.push(cleanIp(value.slice(comma + 1, end)));
    if (comma === -1) break;
    end = comma;
  }
  return out;
}

/**
 * The client's address by the site's source-IP mode (spec 2.1 "get source IP"). A header that is
 * absent or holds no valid address falls back to the address the gateway saw, never to garbage.
 *
 * X-Forwarded-For modes: leftmost takes the first valid entry (what the client claims: spoofable);
 * rightmost takes the last (the address the nearest proxy saw); filter starts from the peer and
 * walks left past every trusted forwarding node, so a client cannot spoof its way past the trusted
 * chain: an untrusted peer is itself the client.
 */
export function resolveSourceIp(site: CompiledSite, headers: Headers, remoteAddr: string): string {
  const peer = cleanIp(remoteAddr) || remoteAddr;
  const mode = site.sourceIp.mode;
  if (mode === 'default') return peer;
  if (mode === 'x_real_ip') return cleanIp(header(headers, 'x-real-ip') ?? '') || peer;
  if (mode === 'custom') return cleanIp(header(headers, site.sourceIp.customHeader) ?? '') || peer;
  const xff = header(headers, 'x-forwarded-for');
  if (!xff) return peer;
  switch (site.sourceIp.xffMode) {
    case 'leftmost':
      return fromLeft(xff, MAX_HOPS).find((ip) => ip !== '') ?? peer;
    case 'rightmost':
      return fromRight(xff, MAX_HOPS).find((ip) => ip !== '') ?? peer;
    case 'filter': {
      const trusted = site.sourceIp.trusted;
      if (!trusted.has(peer)) return peer;
      const hops = fromRight(xff, MAX_HOPS);
      for (const ip of hops) {
        if (ip === '') return peer; // a garbage hop breaks the chain of trust
        if (!trusted.has(ip)) return ip;
      }
      // Every hop read is trusted: the farthest one read is the best answer (as nginx's real_ip_recursive).
      return hops[hops.length - 1] || peer;
    }
  }
}
