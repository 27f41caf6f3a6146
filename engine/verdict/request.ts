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

/** One cookie's value from a Cookie header, without parsing the others. '' when absent. */
export function cookieValue(cookieHeader: string | undefined, name: string): string {
  if (!cookieHeader) return '';
  let from = 0;
  const length = cookieHeader.length;
  while (from < length) {
    while (from < length && (cookieHeader.charCodeAt(from) === 32 || cookieHeader.charCodeAt(from) === 59)) from++;
    const eq = cookieHeader.indexOf('=', from);
    if (eq === -1) return '';
    let end = cookieHeader.indexOf(';', eq);
    if (end === -1) end = length;
    if (eq - from === name.length && cookieHeader.startsWith(name, from)) {
      let value = cookieHeader.slice(eq + 1, end).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      return value;
    }
    from = end + 1;
  }
  return '';
}
