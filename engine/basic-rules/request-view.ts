import type { WafRequest, CustomRequest } from '#engine/waf';
import type { RequestFacts } from '#engine/verdict';

/** Headers a gateway adds for Rampart itself; the rules must see the client's request only. */
function ownHeader(name: string): boolean {
  return name.startsWith('x-rampart-') || name.startsWith('x-original-');
}

/**
 * The client's headers as name/value pairs. nginx's auth_request subrequest blanks Content-Length
 * (it sends no body) and passes the client's value as X-Original-Content-Length: put it back, or the
 * protocol rules would see every POST without one.
 */
export function clientHeaders(facts: RequestFacts): [string, string][] {
  const out: [string, string][] = [];
  const headers = facts.headers;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || ownHeader(name)) continue;
    if (typeof value === 'string') out.push([name, value]);
    else for (const v of value) out.push([name, v]);
  }
  const original = headers['x-original-content-length'];
  if (typeof original === 'string' && original !== '' && headers['content-length'] === undefined) {
    out.push(['content-length', original]);
  }
  return out;
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
