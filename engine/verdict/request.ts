/** Request headers with lower-case names, as Node delivers them. */
export type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** What a gateway tells us about one client request. */
export interface RequestFacts {
  method: string;
  scheme: string;
  host: string;
  /** Path and query as the client sent them. */
  uri: string;
  protocol: string;
  /** The address the gateway received the request from. */
  remoteAddr: string;
  headers: Headers;
  requestId: string;
  /** The request body when the gateway sends it (plug-in-less checks; nginx's auth_request sends none). */
  body?: Buffer;
  /** `body` is only the start of the request's body (the reverse proxy streams the rest on). */
  bodyPartial?: boolean;
}

/** The path part of a URI, without query or fragment. */
export function pathOf(uri: string): string {
  const q = uri.indexOf('?');
  const h = uri.indexOf('#');
  const end = q === -1 ? (h === -1 ? uri.length : h) : h === -1 ? q : Math.min(q, h);
  return uri.slice(0, end) || '/';
}

/**
 * Where the pair of a cookie's first occurrence in a Cookie header starts and ends (`[start, end)`,
 * end at the `;` or the header's end), without parsing the others; null when absent.
 */
export function cookieSpan(cookieHeader: string | undefined, name: string): [number, number, number] | null {
  if (!cookieHeader) return null;
  let from = 0;
  const length = cookieHeader.length;
  while (from < length) {
    while (from < length && (cookieHeader.charCodeAt(from) === 32 || cookieHeader.charCodeAt(from) === 59)) from++;
    const eq = cookieHeader.indexOf('=', from);
    if (eq === -1) return null;
    let end = cookieHeader.indexOf(';', eq);
    if (end === -1) end = length;
    if (eq - from === name.length && cookieHeader.startsWith(name, from)) return [from, eq, end];
    from = end + 1;
  }
  return null;
}

/** One cookie's value from a Cookie header, without parsing the others. '' when absent. */
export function cookieValue(cookieHeader: string | undefined, name: string): string {
  const span = cookieSpan(cookieHeader, name);
  if (span === null) return '';
  let value = cookieHeader!.slice(span[1] + 1, span[2]).trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
  return value;
}
