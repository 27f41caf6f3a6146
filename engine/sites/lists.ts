import { BlockList, isIP } from 'node:net';
import {
  textIssue,
  textProblem,
  userRegexIssue,
  userRegexIssueText,
  validationFailed,
  type FieldProblem,
} from '#engine/shared';

/**
 * Path and IP lists as operators type them, one entry per line, compiled once for the hot path.
 * Invalid lines are refused with their line numbers, every bad line in one error, so the console can
 * mark them all at once.
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

/** `params` name the reason and its values, so the console says the problem in its own language. */
function lineProblem(
  field: string,
  line: number,
  message: string,
  params: Record<string, string | number> = {},
): FieldProblem {
  return { field, message: `${field}: line ${line}: ${message}`, params: { line, ...params } };
}

/** Lines that are not plain text (control or bidi characters) are problems whatever the list. */
function checkText(items: readonly { line: number; text: string }[], field: string, problems: FieldProblem[]): void {
  for (const { line, text } of items) {
    const issue = textIssue(text);
    if (issue) problems.push(lineProblem(field, line, textProblem(text) ?? '', { ...issue }));
  }
}

function throwIfAny(problems: readonly FieldProblem[]): void {
  if (problems.length > 0) throw validationFailed(problems);
}

/** IPs and CIDRs, IPv4 and IPv6. `0.0.0.0/0` matches every IPv4 address, `::/0` every IPv6 one. */
export function compileIpList(lines: readonly string[], field: string): IpMatcher {
  const list = new BlockList();
  const items = entries(lines);
  const problems: FieldProblem[] = [];
  for (const { line, text } of items) {
    const slash = text.indexOf('/');
    const address = slash === -1 ? text : text.slice(0, slash);
    const family = isIP(address);
    if (family === 0) {
      problems.push(
        lineProblem(field, line, `"${text}" is not an IP address or CIDR`, { reason: 'not_ip', value: text }),
      );
      continue;
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (slash === -1) {
      list.addAddress(address, type);
      continue;
    }
    const bitsText = text.slice(slash + 1);
    const bits = Number(bitsText);
    const max = family === 4 ? 32 : 128;
    if (!/^\d{1,3}$/.test(bitsText) || bits > max) {
      problems.push(
        lineProblem(field, line, `"${text}" has an invalid prefix length (0 to ${max})`, {
          reason: 'prefix_length',
          value: text,
          max,
        }),
      );
      continue;
    }
    list.addSubnet(address, bits, type);
  }
  throwIfAny(problems);
  return {
    empty: items.length === 0,
    has(ip: string): boolean {
      const family = isIP(ip);
      if (family === 0) return false;
      return list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/**
 * Edition B: each line is a regular expression over the request path; `/` alone means every path.
 * Each line is its own regex (a group or `\1` in one line never reaches another), accepted only if
 * V8's linear-time engine can run it, so no path can make a line backtrack for ever.
 */
export function compilePathRegexList(lines: readonly string[], field: string): PathMatcher {
  const items = entries(lines);
  const problems: FieldProblem[] = [];
  checkText(items, field, problems);
  const regexes: RegExp[] = [];
  for (const { line, text } of items) {
    if (text === '/') continue;
    const issue = userRegexIssue(text);
    if (issue)
      problems.push(lineProblem(field, line, `"${text}" ${userRegexIssueText(issue)}`, { ...issue, value: text }));
    else regexes.push(new RegExp(text));
  }
  throwIfAny(problems);
  if (items.some((e) => e.text === '/')) return { empty: false, test: () => true };
  if (regexes.length === 0) return { empty: true, test: () => false };
  return { empty: false, test: pathTest(regexes) };
}

/**
 * One regex for the hot path where joining the lines means the same as testing them one by one: when
 * the union is still linear-time (a `\1` or `\k<name>` that a lone line reads as a literal would be a
 * backreference in the union, which the linear engine refuses) and valid (no named group twice).
 */
function pathTest(regexes: readonly RegExp[]): (path: string) => boolean {
  const [only] = regexes;
  if (regexes.length === 1 && only) return (path) => only.test(path);
  const union = regexes.map((r) => `(?:${r.source})`).join('|');
  if (userRegexIssue(union) === null) {
    const joined = new RegExp(union);
    return (path) => joined.test(path);
  }
  return (path) => regexes.some((r) => r.test(path));
}

/**
 * Edition A: each line is a request path; `/` means every path, a path means exactly that path,
 * and a trailing `*` makes it a prefix (`/api/*`).
 */
export function compilePathList(lines: readonly string[], field: string): PathMatcher {
  const items = entries(lines);
  const problems: FieldProblem[] = [];
  checkText(items, field, problems);
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const { line, text } of items) {
    if (!text.startsWith('/'))
      problems.push(lineProblem(field, line, `"${text}" must start with /`, { reason: 'start_slash', value: text }));
    else if (text.endsWith('*')) prefixes.push(text.slice(0, -1));
    else exact.add(text);
  }
  throwIfAny(problems);
  if (items.some((e) => e.text === '/')) return { empty: false, test: () => true };
  return {
    empty: items.length === 0,
    test: (path) => exact.has(path) || prefixes.some((p) => path.startsWith(p)),
  };
}
