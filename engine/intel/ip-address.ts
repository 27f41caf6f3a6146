// Parses an address as text into numbers without allocating, and names the special-purpose ranges
// (RFC 6890 and friends) that need no database. The parser is strict: anything that is not a
// dotted quad or an RFC 4291 text form is garbage, so a hostile string never reaches a database.

/** 0 for garbage, otherwise the IP version. */
export type IpKind = 0 | 4 | 6;

/**
 * Scratch output of the last parse. One instance lives in each Intel; the hot path reads the
 * fields straight after parsing, before anything else can overwrite them.
 */
export class ParsedIp {
  kind: IpKind = 0;
  /** The IPv4 address as an unsigned 32-bit number (also for IPv4-mapped IPv6). */
  v4 = 0;
  /** The IPv6 address as eight 16-bit groups. */
  readonly groups = new Uint16Array(8);
}

/** Longest text form of an address we accept (IPv6 with embedded IPv4 and a zone id). */
export const MAX_IP_TEXT = 64;

/** Parses `text` into `out`; returns the kind. A zone id (`%eth0`) and brackets are ignored. */
export function parseIp(text: string, out: ParsedIp): IpKind {
  out.kind = 0;
  let end = text.length;
  if (end === 0 || end > MAX_IP_TEXT) return 0;
  let start = 0;
  if (text.charCodeAt(0) === 91 /* [ */) {
    if (text.charCodeAt(end - 1) !== 93 /* ] */) return 0;
    start = 1;
    end -= 1;
  }
  const zone = text.indexOf('%', start);
  if (zone !== -1 && zone < end) end = zone;
  const v4 = parseV4(text, start, end);
  if (v4 >= 0) {
    out.v4 = v4;
    out.kind = 4;
    return 4;
  }
  if (!parseV6(text, start, end, out.groups)) return 0;
  const g = out.groups;
  // IPv4-mapped (::ffff:a.b.c.d) is an IPv4 client seen through a dual-stack socket.
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    out.v4 = ((g[6] ?? 0) * 65536 + (g[7] ?? 0)) >>> 0;
    out.kind = 4;
    return 4;
  }
  out.kind = 6;
  return 6;
}

/** Dotted quad in text[start, end) as an unsigned number, or -1. Leading zeros are refused. */
function parseV4(text: string, start: number, end: number): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  let leadingZero = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 0) leadingZero = c === 48;
      else if (leadingZero) return -1;
      octet = octet * 10 + (c - 48);
      digits++;
      if (octet > 255) return -1;
    } else if (c === 46 /* . */) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else {
      return -1;
    }
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + octet;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** RFC 4291 section 2.2 text forms, including `::` and a trailing dotted quad. */
function parseV6(text: string, start: number, end: number, groups: Uint16Array): boolean {
  groups.fill(0);
  let count = 0; // groups written so far
  let gap = -1; // group index where `::` stands
  let i = start;
  if (end - start < 2) return false;
  if (text.charCodeAt(i) === 58 /* : */) {
    if (text.charCodeAt(i + 1) !== 58) return false;
    gap = 0;
    i += 2;
    if (i === end) return true; // "::"
  }
  while (i < end) {
    if (count === 8) return false;
    // A trailing IPv4 part takes the last two groups.
    let j = i;
    let hasDot = false;
    while (j < end) {
      const c = text.charCodeAt(j);
      if (c === 58) break;
      if (c === 46) hasDot = true;
      j++;
    }
    if (hasDot) {
      if (j !== end || count > 6) return false;
      const v4 = parseV4(text, i, end);
      if (v4 < 0) return false;
      groups[count++] = v4 >>> 16;
      groups[count++] = v4 & 0xffff;
      break;
    }
    const len = j - i;
    if (len === 0 || len > 4) return false;
    let value = 0;
    for (let k = i; k < j; k++) {
      const h = hexValue(text.charCodeAt(k));
      if (h < 0) return false;
      value = value * 16 + h;
    }
    groups[count++] = value;
    i = j;
    if (i === end) break;
    // At a colon: either a separator or the start of `::`.
    i++;
    if (i < end && text.charCodeAt(i) === 58) {
      if (gap !== -1) return false;
      gap = count;
      i++;
      if (i === end) break;
    } else if (i === end) {
      return false; // trailing single colon
    }
  }
  if (gap === -1) return count === 8;
  if (count === 8) return false; // `::` must stand for at least one group
  // Move the groups after the gap to the end.
  const tail = count - gap;
  for (let k = 0; k < tail; k++) {
    groups[7 - k] = groups[count - 1 - k] ?? 0;
    groups[count - 1 - k] = 0;
  }
  // Zero the stretch the gap stands for (already zero unless the move overlapped).
  for (let k = gap; k < 8 - tail; k++) groups[k] = 0;
  return true;
}

/** Classes an address has by its range alone. `public` means: ask the databases. */
export type RangeClass = 'loopback' | 'private' | 'link_local' | 'reserved' | 'public';

export function classifyV4(ip: number): RangeClass {
  const a = ip >>> 24;
  const b = (ip >>> 16) & 0xff;
  const c = (ip >>> 8) & 0xff;
  if (a === 127) return 'loopback';
  if (a === 10) return 'private';
  if (a === 172 && b >= 16 && b <= 31) return 'private';
  if (a === 192 && b === 168) return 'private';
  if (a === 100 && b >= 64 && b <= 127) return 'private'; // RFC 6598 shared (carrier-grade NAT)
  if (a === 169 && b === 254) return 'link_local';
  if (a === 0 || a >= 224) return 'reserved'; // "this network", multicast, 240/4, broadcast
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return 'reserved'; // IETF assignments, TEST-NET-1
  if (a === 198 && (b === 18 || b === 19)) return 'reserved'; // benchmarking
  if (a === 198 && b === 51 && c === 100) return 'reserved'; // TEST-NET-2
  if (a === 203 && b === 0 && c === 113) return 'reserved'; // TEST-NET-3
  return 'public';
}

export function classifyV6(g: Uint16Array): RangeClass {
  const g0 = g[0] ?? 0;
  if (g0 === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0 && g[6] === 0) {
    if (g[7] === 1) return 'loopback';
    return 'reserved'; // unspecified and the deprecated IPv4-compatible form
  }
  if ((g0 & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local';
  if ((g0 & 0xff00) === 0xff00) return 'reserved'; // multicast
  if (g0 === 0x2001 && g[1] === 0x0db8) return 'reserved'; // documentation
  if (g0 === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'reserved'; // discard-only
  return 'public';
}

/** Dotted text of an unsigned 32-bit address (used only on a cache miss). */
export function v4Text(ip: number): string {
  return `${ip >>> 24}.${(ip >>> 16) & 0xff}.${(ip >>> 8) & 0xff}.${ip & 0xff}`;
}
