/**
 * The request-side variables ModSecurity derives from the request line and headers, built once per
 * transaction: URI parts, query arguments, cookies. Values stay binary strings.
 */
import type { WafRequest } from '../types.ts';
import { parseUrlencoded, urlDecode } from './body/urlencoded.ts';

export type Entry = [string, string];

export interface RequestLineData {
  uri: string;
  uriRaw: string;
  queryString: string;
  filename: string;
  basename: string;
  requestLine: string;
  argsGet: Entry[];
  cookies: Entry[];
  urlencodedError: boolean;
}

/** `http://host/a?b` -> `/a?b`; origin form unchanged. */
function originForm(uri: string): string {
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/.exec(uri);
  if (!m) return uri;
  const rest = uri.slice(m[0].length);
  return rest === '' ? '/' : rest;
}

export function parseCookies(headers: readonly (readonly [string, string])[]): Entry[] {
  const out: Entry[] = [];
  for (const [name, value] of headers) {
    if (name.toLowerCase() !== 'cookie') continue;
    for (const piece of value.split(';')) {
      const p = piece.replace(/^[ \t]+/, '');
      if (p === '') continue;
      const eq = p.indexOf('=');
      out.push(eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)]);
    }
  }
  return out;
}

export function buildRequestLineData(req: WafRequest, separator: string, argumentsLimit: number): RequestLineData {
  const uri = originForm(req.uri);
  const q = uri.indexOf('?');
  const path = q < 0 ? uri : uri.slice(0, q);
  const queryString = q < 0 ? '' : uri.slice(q + 1);
  const filename = urlDecode(path, false).value;
  const slash = Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\'));
  const basename = slash < 0 ? filename : filename.slice(slash + 1);
  const parsed = parseUrlencoded(queryString, separator, argumentsLimit);
  return {
    uri,
    uriRaw: req.uri,
    queryString,
    filename,
    basename,
    requestLine: `${req.method} ${req.uri} ${req.protocol}`,
    argsGet: parsed.pairs,
    cookies: parseCookies(req.headers),
    urlencodedError: parsed.invalidEncoding,
  };
}
