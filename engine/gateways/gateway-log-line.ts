/**
 * nginx's own access-log line for a protected request, as the plugin bundle has nginx send it to
 * the gateway log port: `access_log syslog:` (UDP, RFC 3164 header without host name, tag
 * `rampart`) in the `rampart_access` format below, JSON with nginx's `escape=json`, every value a
 * string. Client text (request line, user agent...) is escaped by nginx, so a line is one JSON
 * object whatever the client sent; the fields that carry numbers are checked here, not trusted.
 */

export const LOG_FORMAT_NAME = 'rampart_access';
export const LOG_TAG = 'rampart';
/** Changes when the fields change; lines of another version are refused (counted as malformed). */
export const LOG_LINE_VERSION = '1';
/** nginx sends one datagram per line; a UDP datagram holds at most this. */
export const MAX_DATAGRAM_BYTES = 65_535;

/** The line's JSON keys and the nginx variables behind them, in the order nginx writes them. */
const LINE_FIELDS = [
  ['rampart', LOG_LINE_VERSION],
  ['site', '$rampart_site'],
  ['id', '$request_id'],
  ['status', '$status'],
  ['bytes', '$body_bytes_sent'],
  ['time', '$request_time'],
  ['msec', '$msec'],
  ['guard', '$rampart_guard'],
  ['addr', '$remote_addr'],
  ['scheme', '$scheme'],
  ['host', '$host'],
  ['request', '$request'],
  ['user_agent', '$http_user_agent'],
  ['referrer', '$http_referer'],
  ['xff', '$http_x_forwarded_for'],
  ['real_ip', '$http_x_real_ip'],
] as const;

/**
 * The `log_format` directive (http {} level): one quoted piece per field, so the file reads as a
 * table. Nothing in it comes from people: the site id arrives through `$rampart_site`.
 */
export function nginxLogFormat(): string {
  const pieces = LINE_FIELDS.map(
    ([key, value], i) => `    '${i === 0 ? '{' : ''}"${key}":"${value}"${i === LINE_FIELDS.length - 1 ? '}' : ','}'`,
  );
  return `log_format ${LOG_FORMAT_NAME} escape=json\n${pieces.join('\n')};`;
}

/** One access-log line of nginx, checked. */
export interface GatewayLogLine {
  site: string;
  /** nginx's `$request_id`: the verdict request carried it as X-Rampart-Request-Id. */
  id: string;
  status: number;
  bodyBytesSent: number;
  requestTimeSeconds: number;
  /** When nginx wrote the line (its clock), epoch milliseconds; null when absent. */
  endMs: number | null;
  guard: string;
  addr: string;
  scheme: string;
  host: string;
  request: string;
  userAgent: string;
  referrer: string;
  xff: string;
  realIp: string;
}

type LineKey = (typeof LINE_FIELDS)[number][0];

export type LineParse = { ok: true; line: GatewayLogLine } | { ok: false; reason: string };

const PRI = /^<\d{1,3}>/;
const MARK = `${LOG_TAG}: `;
/** The RFC 3164 header (priority, time, host name when nginx adds one, tag) is shorter than this. */
const HEADER_MAX = 320;
const SITE_ID = /^[A-Za-z0-9_.-]{1,64}$/;
export const REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;
const STATUS = /^\d{1,3}$/;
const BYTES = /^\d{1,15}$/;
const SECONDS = /^\d{1,9}(\.\d{1,6})?$/;
const EPOCH_SECONDS = /^\d{1,12}(\.\d{1,6})?$/;

const fail = (reason: string): LineParse => ({ ok: false, reason });

/** A syslog datagram from nginx: the line, or why it is not one. Never throws. */
export function parseGatewayLogDatagram(datagram: Buffer): LineParse {
  if (datagram.length > MAX_DATAGRAM_BYTES) return fail('datagram too large');
  const text = datagram.toString('utf8');
  if (!PRI.test(text)) return fail('no syslog priority');
  const at = text.indexOf(MARK);
  if (at < 0 || at > HEADER_MAX) return fail(`no "${LOG_TAG}:" tag`);
  let value: unknown;
  try {
    value = JSON.parse(text.slice(at + MARK.length));
  } catch {
    return fail('message is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('message is not a JSON object');
  // Named reads, no own-property check: JSON.parse makes own properties only (a "__proto__" key
  // included), and Object.prototype has no string property of these names.
  const f = value as Partial<Record<LineKey, unknown>>;
  if (f.rampart !== LOG_LINE_VERSION) return fail('unknown line version');
  const site = f.site;
  if (typeof site !== 'string' || !SITE_ID.test(site)) return fail('site: not a site id');
  const id = f.id;
  if (typeof id !== 'string' || !REQUEST_ID.test(id)) return fail('id: not a request id');
  const status = f.status;
  if (typeof status !== 'string' || !STATUS.test(status)) return fail('status: not an HTTP status');
  const bytes = f.bytes;
  if (typeof bytes !== 'string' || !BYTES.test(bytes)) return fail('bytes: not a byte count');
  const time = f.time;
  if (typeof time !== 'string' || !SECONDS.test(time)) return fail('time: not a duration in seconds');
  const msec = f.msec ?? '';
  if (typeof msec !== 'string' || (msec !== '' && !EPOCH_SECONDS.test(msec))) return fail('msec: not a time');
  const { guard = '', addr = '', scheme = '', host = '', request = '', user_agent = '', referrer = '' } = f;
  const { xff = '', real_ip = '' } = f;
  const texts = { guard, addr, scheme, host, request, user_agent, referrer, xff, real_ip };
  for (const key in texts) {
    if (typeof texts[key as keyof typeof texts] !== 'string') return fail(`${key}: not a string`);
  }
  return {
    ok: true,
    line: {
      site,
      id,
      status: Number(status),
      bodyBytesSent: Number(bytes),
      requestTimeSeconds: Number(time),
      endMs: msec === '' ? null : Math.round(Number(msec) * 1000),
      guard: guard as string,
      addr: addr as string,
      scheme: scheme as string,
      host: host as string,
      request: request as string,
      userAgent: user_agent as string,
      referrer: referrer as string,
      xff: xff as string,
      realIp: real_ip as string,
    },
  };
}
