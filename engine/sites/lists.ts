import { BlockList, isIP } from 'node:net';
import { RampartError } from '#engine/shared';

/**
 * Path and IP lists as operators type them, one entry per line, compiled once for the hot path.
 * Invalid lines are refused with their line number, so the console can point at them.
 */
export interface IpMatcher {
  readonly empty: boolean;
  has(ip: string): boolean;
}

export interface PathMatcher {
  readonly empty: boolean;
  test(path: string): boolean;
}

/** Non-empty, trimmed lines with their 1-based line numbers. */
export function entries(lines: readonly string[]): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  lines.forEach((raw, i) => {
    const text = raw.trim();
    if (text !== '') out.push({ line: i + 1, text });
  });
  return out;
}

function lineError(field: string, line: number, message: string): RampartError {
  return new RampartError('VALIDATION_FAILED', `${field}: line ${line}: ${message}`, { field, params: { line } });
}

/** IPs and CIDRs, IPv4 and IPv6. `0.0.0.0/0` matches every IPv4 address, `::/0` every IPv6 one. */
export function compileIpList(lines: readonly string[], field: string): IpMatcher {
  const list = new BlockList();
  const items = entries(lines);
  for (const { line, text } of items) {
    const slash = text.indexOf('/');
    const address = slash === -1 ? text : text.slice(0, slash);
    const family = isIP(address);
    if (family === 0) throw lineError(field, line, `"${text}" is not an IP address or CIDR`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (slash === -1) {
      list.addAddress(address, type);
      continue;
    }
    const bitsText = text.slice(slash + 1);
    const bits = Number(bitsText);
    const max = family === 4 ? 32 : 128;
    if (!/^\d{1,3}$/.test(bitsText) || bits > max) throw lineError(field, line, `"${text}" has an invalid prefix length (0 to ${max})`);
    list.addSubnet(address, bits, type);
  }
  return {
    empty: items.length === 0,
    has(ip: string): boolean {
      const family = isIP(ip);
      if (family === 0) return false;
      return list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/** Edition B: each line is a regular expression over the request path; `/` alone means every path. */
export function compilePathRegexList(lines: readonly string[], field: string): PathMatcher {
  const items = entries(lines);
  if (items.some((e) => e.text === '/')) return { empty: false, test: () => true };
  const sources: string[] = [];
  for (const { line, text } of items) {
    try {
      new RegExp(text);
    } catch (error) {
      throw lineError(field, line, `"${text}" is not a valid regular expression (${(error as Error).message})`);
    }
    sources.push(`(?:${text})`);
  }
  if (sources.length === 0) return { empty: true, test: () => false };
  const union = new RegExp(sources.join('|'));
  return { empty: false, test: (path) => union.test(path) };
}

/**
 * Edition A: each line is a request path; `/` means every path, a path means exactly that path,
 * and a trailing `*` makes it a prefix (`/api/*`).
 */
export function compilePathList(lines: readonly string[], field: string): PathMatcher {
  const items = entries(lines);
  if (items.some((e) => e.text === '/')) return { empty: false, test: () => true };
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const { line, text } of items) {
    if (!text.startsWith('/')) throw lineError(field, line, `"${text}" must start with /`);
    if (text.endsWith('*')) prefixes.push(text.slice(0, -1));
    else exact.add(text);
  }
  return {
    empty: items.length === 0,
    test: (path) => exact.has(path) || prefixes.some((p) => path.startsWith(p)),
  };
}
