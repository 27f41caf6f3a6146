import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Headers } from '#engine/verdict';

/**
 * The verdict's own reader for HTTP/1.1 keep-alive connections.
 *
 * nginx asks for a verdict on every client request, over a pool of keep-alive connections, with a
 * small header-only GET. Node's HTTP server spends more on such a request (message and response
 * objects, streams, events, ticks) than the verdict itself does, so a connection whose requests are
 * plain verdict requests is read here: each head is cut at CRLFCRLF, checked against a strict
 * subset of HTTP/1.1, answered synchronously, and pipelined answers go out in one write.
 *
 * Anything outside that subset is not interpreted here: the connection is handed to Node's HTTP
 * server (with the bytes not yet answered), which then serves it to the end, verdicts included. That
 * covers other routes, chunked or large bodies, duplicate or folded headers, invalid characters, bare-LF line ends,
 * HTTP/1.0, Expect and Upgrade, so Node's parser keeps the final word on every malformed request.
 *
 * Two exceptions keep nginx's connections healthy: a verdict head larger than HEAD_LIMIT is read to
 * its end (keeping only its first HEAD_LIMIT bytes) and answered by `oversize` with a verdict, never
 * an error that nginx turns into 500; and a head still incomplete after `headTimeoutMs` (a whole
 * request after `requestTimeoutMs`) gets 408. Every answer after which this reader closes the
 * connection says `Connection: close`, so nginx never reuses a connection that is going away.
 */

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
/** A verdict request line (the head parser checks the same, strictly). */
const VERDICT_LINE = /^[A-Z]{1,16} \/_rampart\/verdict HTTP\/1\.1$/;
/**
 * The largest head read whole, here and by Node's server (its maxHeaderSize). nginx with its default
 * `large_client_header_buffers 4 8k` accepts client heads up to 32 KB; the verdict subrequest adds
 * X-Original-URI (up to 8 KB) and Rampart's own headers, so 64 KB holds every head it sends.
 */
export const HEAD_LIMIT = 64 * 1024;
/** An oversize verdict head is read (and dropped) up to this size; past it, it is answered at once. */
const OVERSIZE_READ_LIMIT = 1024 * 1024;
const MAX_HEADERS = 100;

export interface VerdictAnswer {
  status: number;
  /** X-Rampart-Guard of an answered verdict. */
  guard?: string;
  /** A JSON error body instead. */
  json?: string;
}

export interface VerdictConnectionOptions {
  /** Answers one verdict request (never throws); `body` is the request body, if it has one. */
  answer(headers: Headers, method: string, peer: string, body: Buffer | undefined): VerdictAnswer;
  /** A body longer than this is left to Node's server (which keeps what the WAF inspects of it). */
  maxBodyBytes: number;
  /**
   * Answers a verdict request whose head is larger than HEAD_LIMIT (never throws): `headers` are the
   * complete header lines of its first HEAD_LIMIT bytes, `headBytes` its size as far as it was read.
   */
  oversize(headers: Headers, method: string, peer: string, headBytes: number): VerdictAnswer;
  /** Node's HTTP server takes the connection over, from `rest` on. */
  handOver(socket: Socket, rest: Buffer): void;
  keepAliveTimeoutMs: number;
  /** A request's head must be complete this long after its first byte. */
  headTimeoutMs: number;
  /** And the request with its body this long after its first byte. */
  requestTimeoutMs: number;
  /** Sockets being read here, so a shutdown can close them. */
  open: Set<Socket>;
}

interface ParsedHead {
  method: string;
  headers: Record<string, string>;
  close: boolean;
  /** Bytes of body that follow the head (Content-Length). */
  bodyLength: number;
}

/** A Content-Length this reader takes (larger bodies are Node's, which streams them). */
const DECIMAL = /^[0-9]{1,9}$/;
const isBlank = (code: number): boolean => code === 0x20 || code === 0x09;

let dateSecond = -1;
let dateHeader = '';

/** `Date: ...\r\n`, formatted once a second. */
function date(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateHeader = `Date: ${new Date(now).toUTCString()}\r\n`;
  }
  return dateHeader;
}

/** RFC 9110 token characters, by character code. */
const TOKEN = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
  TOKEN[c.charCodeAt(0)] = 1;

/**
 * The head of one request (without its final CRLFCRLF, read as latin1 like Node does) as header
 * fields with lower-case names, or null when it is not a plain verdict request this reader answers
 * (Node's server must see it instead). One pass over the characters: token names, values without
 * control characters other than HTAB, CRLF line ends, no repeated names.
 */
function parseVerdictHead(head: string): ParsedHead | null {
  const length = head.length;
  const lineEnd = head.indexOf('\r\n');
  const requestLine = lineEnd === -1 ? head : head.slice(0, lineEnd);
  if (!VERDICT_LINE.test(requestLine)) return null;
  const method = requestLine.slice(0, requestLine.indexOf(' '));
  const headers: Record<string, string> = {};
  let close = false;
  let bodyLength = 0;
  let count = 0;
  let pos = lineEnd === -1 ? length : lineEnd + 2;
  while (pos < length) {
    if (++count > MAX_HEADERS) return null;
    let i = pos;
    while (i < length && TOKEN[head.charCodeAt(i)] === 1) i++;
    if (i === pos || i >= length || head.charCodeAt(i) !== 0x3a) return null;
    const name = head.slice(pos, i).toLowerCase();
    i++;
    while (i < length && isBlank(head.charCodeAt(i))) i++;
    const valueStart = i;
    let valueEnd = i;
    for (; i < length; i++) {
      const c = head.charCodeAt(i);
      if (c === 0x0d) break;
      if ((c < 0x20 && c !== 0x09) || c === 0x7f) return null;
      if (c !== 0x20 && c !== 0x09) valueEnd = i + 1;
    }
    if (i < length && head.charCodeAt(i + 1) !== 0x0a) return null;
    // A name the object already answers for (a repeat, or one of Object's own) is Node's to handle.
    if (headers[name] !== undefined || name === '__proto__') return null;
    const value = head.slice(valueStart, valueEnd);
    switch (name) {
      case 'content-length':
        if (!DECIMAL.test(value)) return null;
        bodyLength = Number(value);
        break;
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
        return null;
      case 'connection': {
        const token = value.toLowerCase();
        if (token === 'close') close = true;
        else if (token !== 'keep-alive') return null;
        break;
      }
    }
    headers[name] = value;
    pos = i + 2;
  }
  return { method, headers, close, bodyLength };
}

/**
 * The header fields of the complete lines in the first bytes of an oversize head, leniently: lines
 * that are not `token: value` without control characters are skipped, the first of repeated names
 * wins. They only name the site and describe the request for its access record (nginx sends the
 * proxy_set_header fields, Rampart's own, before the client's).
 */
function prefixHeaders(prefix: string): Record<string, string> {
  const headers = Object.create(null) as Record<string, string>;
  const lines = prefix.split('\r\n');
  lines.pop(); // the last line may be cut short
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n] ?? '';
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    let valid = true;
    for (let i = 0; i < colon && valid; i++) valid = TOKEN[line.charCodeAt(i)] === 1;
    for (let i = colon + 1; i < line.length && valid; i++) {
      const c = line.charCodeAt(i);
      valid = !((c < 0x20 && c !== 0x09) || c === 0x7f);
    }
    const name = line.slice(0, colon).toLowerCase();
    if (valid && headers[name] === undefined) headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** True when a line of `data` from `from` on ends with a bare LF (a head that Node refuses). */
function hasBareLf(data: Buffer, start: number, from: number): boolean {
  for (let i = data.indexOf(0x0a, from); i !== -1; i = data.indexOf(0x0a, i + 1)) {
    if (i === start || data[i - 1] !== 0x0d) return true;
  }
  return false;
}

function response(answer: VerdictAnswer, head: boolean, close: boolean, keepAlive: string): string {
  const status = `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Unknown'}\r\n`;
  const connection = close ? 'Connection: close\r\n' : keepAlive;
  if (answer.json !== undefined) {
    // A HEAD request's answer has the headers of the GET answer and no body.
    return `${status}content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(answer.json)}\r\n${date()}${connection}\r\n${head ? '' : answer.json}`;
  }
  const length = answer.status === 204 ? '' : 'content-length: 0\r\n';
  return `${status}x-rampart-guard: ${answer.guard ?? ''}\r\n${length}${date()}${connection}\r\n`;
}

const timeoutAnswer = (): string =>
  `HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n${date()}Connection: close\r\n\r\n`;

/** The longest verdict request line (a 16-letter method) fits in this many bytes. */
const REQUEST_LINE_MAX = 64;

/**
 * Serves a new gateway connection: read here while its requests are plain verdicts, otherwise (from
 * the first request that is not) by Node's HTTP server.
 */
export function serveVerdictConnection(socket: Socket, options: VerdictConnectionOptions): void {
  const keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(options.keepAliveTimeoutMs / 1000)}\r\n`;
  const peer = socket.remoteAddress ?? '';
  let pending: Buffer | null = null;
  /** An oversize verdict head being read to its end: its first HEAD_LIMIT bytes, and the last 3 read. */
  let oversize: { prefix: string; method: string; bytes: number; tail: Buffer } | null = null;
  /** The deadline of the request being read (armed only while one is incomplete). */
  let deadline: NodeJS.Timeout | null = null;
  let requestStart = 0;

  /** An idle timeout or a socket error ends the connection. */
  const onEnd = (): void => {
    socket.destroy();
  };
  const onClose = (): void => {
    options.open.delete(socket);
  };
  const onDrain = (): void => {
    socket.resume();
  };
  const stopDeadline = (): void => {
    if (deadline !== null) clearTimeout(deadline);
    deadline = null;
  };
  const detach = (): void => {
    socket.removeListener('data', onData);
    socket.removeListener('timeout', onEnd);
    socket.removeListener('error', onEnd);
    socket.removeListener('close', onClose);
    socket.removeListener('drain', onDrain);
    socket.setTimeout(0);
    stopDeadline();
    options.open.delete(socket);
  };
  const giveUp = (rest: Buffer): void => {
    detach();
    if (socket.isPaused()) socket.resume();
    options.handOver(socket, rest);
  };

  /** Writes the answers so far, then hands the rest to Node's server. */
  const finish = (out: string, rest: Buffer): void => {
    if (out.length > 0) socket.write(out, 'latin1');
    giveUp(rest);
  };

  /** Writes `out`, whose last answer says `Connection: close`, and ends the connection. */
  const close = (out: string): void => {
    detach();
    socket.on('error', onEnd);
    socket.end(out, 'latin1');
    // A peer that does not close its side in time is cut off.
    setTimeout(onEnd, 2000).unref();
  };

  const onDeadline = (): void => {
    deadline = null;
    if (pending === null && oversize === null) return;
    const elapsed = Date.now() - requestStart;
    // A complete head may wait for its body until the request deadline.
    if (pending !== null && pending.indexOf(HEAD_END) !== -1 && elapsed < options.requestTimeoutMs) {
      deadline = setTimeout(onDeadline, options.requestTimeoutMs - elapsed);
      return;
    }
    pending = null;
    oversize = null;
    close(timeoutAnswer());
  };

  /** Answers the oversize head read so far with a verdict, and ends the connection. */
  const answerOversize = (out: string): void => {
    const head = oversize;
    if (head === null) return;
    oversize = null;
    const answer = options.oversize(prefixHeaders(head.prefix), head.method, peer, head.bytes);
    close(out + response(answer, head.method === 'HEAD', true, keepAlive));
  };

  function readOversize(chunk: Buffer): void {
    const head = oversize;
    if (head === null) return;
    const joined = Buffer.concat([head.tail, chunk]);
    const end = joined.indexOf(HEAD_END);
    if (end === -1 && head.bytes + chunk.length < OVERSIZE_READ_LIMIT) {
      head.bytes += chunk.length;
      head.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - 3)));
      return;
    }
    head.bytes += end === -1 ? chunk.length : end + HEAD_END.length - head.tail.length;
    answerOversize('');
  }

  function onData(chunk: Buffer): void {
    if (oversize !== null) return readOversize(chunk);
    const data: Buffer = pending === null ? chunk : Buffer.concat([pending, chunk]);
    const fresh = data.length - chunk.length;
    pending = null;
    let out = '';
    let offset = 0;
    while (offset < data.length) {
      const end = data.indexOf(HEAD_END, offset);
      const headBytes = end === -1 ? data.length - offset : end - offset;
      if (end === -1 || headBytes > HEAD_LIMIT) {
        // An incomplete head waits for more bytes, unless its request line shows it is not a
        // verdict request, a line ends in a bare LF, or it is already too large.
        const line = data.toString('latin1', offset, Math.min(data.length, offset + REQUEST_LINE_MAX));
        const lineEnd = line.indexOf('\r\n');
        const verdict = lineEnd !== -1 && VERDICT_LINE.test(line.slice(0, lineEnd));
        if (lineEnd === -1 ? line.length === REQUEST_LINE_MAX : !verdict) return finish(out, data.subarray(offset));
        if (hasBareLf(data, offset, Math.max(offset, fresh))) return finish(out, data.subarray(offset));
        if (headBytes > HEAD_LIMIT) {
          oversize = {
            prefix: data.toString('latin1', offset, offset + HEAD_LIMIT),
            method: line.slice(0, line.indexOf(' ')),
            bytes: headBytes + (end === -1 ? 0 : HEAD_END.length),
            tail: Buffer.from(data.subarray(Math.max(offset, data.length - 3))),
          };
          if (end !== -1) return answerOversize(out);
          if (out.length > 0) socket.write(out, 'latin1');
          if (deadline === null) {
            requestStart = Date.now();
            deadline = setTimeout(onDeadline, options.headTimeoutMs);
          }
          return;
        }
        pending = data.subarray(offset);
        break;
      }
      const head = parseVerdictHead(data.toString('latin1', offset, end));
      if (head === null || head.bodyLength > options.maxBodyBytes) return finish(out, data.subarray(offset));
      const bodyStart = end + HEAD_END.length;
      if (data.length - bodyStart < head.bodyLength) {
        // The body is still coming: the request is read again, whole, when it has arrived.
        pending = data.subarray(offset);
        break;
      }
      const body = head.bodyLength > 0 ? data.subarray(bodyStart, bodyStart + head.bodyLength) : undefined;
      out += response(
        options.answer(head.headers, head.method, peer, body),
        head.method === 'HEAD',
        head.close,
        keepAlive,
      );
      offset = bodyStart + head.bodyLength;
      if (head.close) return close(out);
    }
    // A request that is still incomplete has a deadline from its first byte; once one is answered,
    // the next one's clock starts.
    if (offset > 0 || pending === null) stopDeadline();
    if (pending !== null && deadline === null) {
      requestStart = Date.now();
      deadline = setTimeout(onDeadline, options.headTimeoutMs);
    }
    if (out.length > 0 && !socket.write(out, 'latin1')) socket.pause();
  }

  options.open.add(socket);
  socket.setNoDelay(true);
  socket.setTimeout(options.keepAliveTimeoutMs);
  socket.on('timeout', onEnd);
  socket.on('error', onEnd);
  socket.on('close', onClose);
  socket.on('drain', onDrain);
  socket.on('data', onData);
}
