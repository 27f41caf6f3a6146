import type { WafRequest, CustomRequest } from '#engine/waf';
import { cookieSpan, type RequestFacts } from '#engine/verdict';

/** Headers a gateway adds for Rampart itself; the rules must see the client's request only. */
function ownHeader(name: string): boolean {
  return name.startsWith('x-rampart-') || name.startsWith('x-original-');
}

/**
 * The client's headers as name/value pairs. nginx's auth_request subrequest blanks Content-Length
 * (it sends no body) and passes the client's value as X-Original-Content-Length: put it back, or the
 * protocol rules would see every POST without one.
 */
export function clientHeaders(facts: RequestFacts, ownCookie: string | null = null): [string, string][] {
  const out: [string, string][] = [];
  const headers = facts.headers;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || ownHeader(name)) continue;
    if (typeof value === 'string') out.push([name, value]);
    else for (const v of value) out.push([name, v]);
  }
  if (ownCookie !== null) dropOwnCookie(out, ownCookie);
  const original = headers['x-original-content-length'];
  if (typeof original === 'string' && original !== '' && headers['content-length'] === undefined) {
    out.push(['content-length', original]);
  }
  return out;
}

/** Text without the spaces and semicolons at either end (a loop: a regex would be quadratic on a long run of them). */
function trimSeparators(text: string): string {
  const separator = (code: number): boolean => code === 0x20 || code === 0x3b || code === 0x09;
  let start = 0;
  let end = text.length;
  while (start < end && separator(text.charCodeAt(start))) start++;
  while (end > start && separator(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

/**
 * Takes Rampart's own token cookie out of what the rules read, when the pipeline verified it: the
 * pair of the first Cookie header that the pipeline read (engine/verdict cookieSpan, cookieValue). Its
 * value is the token Rampart signed, random text in which CRS's level-2 rules find SQL comment
 * sequences now and then (942440 on `--`), so a browser with a valid token was blocked by chance.
 * Other cookies of that name, and the cookie when the token did not verify, are read as any other.
 */
function dropOwnCookie(headers: [string, string][], name: string): void {
  const at = headers.findIndex(([header]) => header === 'cookie');
  if (at < 0) return;
  const cookie = headers[at]![1];
  const span = cookieSpan(cookie, name);
  if (span === null) return;
  const before = trimSeparators(cookie.slice(0, span[0]));
  const after = trimSeparators(cookie.slice(span[2] + 1));
  const rest = before === '' || after === '' ? before + after : `${before}; ${after}`;
  if (rest === '') headers.splice(at, 1);
  else headers[at] = ['cookie', rest];
}

export function wafRequest(facts: RequestFacts, srcIp: string, headers: [string, string][]): WafRequest {
  return {
    method: facts.method,
    uri: facts.uri,
    protocol: facts.protocol,
    headers,
    body: facts.body ?? null,
    ...(facts.bodyPartial === true ? { bodyPartial: true } : {}),
    remoteAddr: srcIp,
    remotePort: 0,
    serverAddr: '',
    serverPort: facts.scheme === 'https' ? 443 : 80,
  };
}

function decode(text: string): string {
  const plus = text.includes('+') ? text.replaceAll('+', ' ') : text;
  if (!plus.includes('%')) return plus;
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
}

/** name=value pairs of a query string or urlencoded body, decoded. At most `limit` pairs. */
export function formPairs(text: string, limit = 1000): [string, string][] {
  const out: [string, string][] = [];
  if (text === '') return out;
  for (const part of text.split('&', limit)) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    out.push(eq === -1 ? [decode(part), ''] : [decode(part.slice(0, eq)), decode(part.slice(eq + 1))]);
  }
  return out;
}

function cookiePairs(header: string | undefined): [string, string][] {
  const out: [string, string][] = [];
  if (!header) return out;
  for (const part of header.split(';', 200)) {
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim();
    if (name !== '') out.push([name, eq === -1 ? '' : part.slice(eq + 1).trim()]);
  }
  return out;
}

const one = (v: string | string[] | undefined): string => (typeof v === 'string' ? v : (v?.[0] ?? ''));

export function customRequest(facts: RequestFacts, srcIp: string, headers: [string, string][]): CustomRequest {
  const q = facts.uri.indexOf('?');
  const query = q === -1 ? '' : (facts.uri.slice(q + 1).split('#', 1)[0] ?? '');
  return {
    url: facts.uri,
    params: formPairs(query),
    headers,
    cookies: cookiePairs(one(facts.headers.cookie)),
    referer: one(facts.headers.referer),
    userAgent: one(facts.headers['user-agent']),
    body: facts.body ? facts.body.toString('utf8') : '',
    sourceIp: srcIp,
  };
}
