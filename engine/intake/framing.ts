import { isUtf8 } from 'node:buffer';

/** The longest message accepted by default, in bytes (without its LF / CR). */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024;

/** How one connection's byte stream is cut into messages: decided from its first bytes. */
export type Framing = 'undecided' | 'lf' | 'octet-counted';

/**
 * What a decoder saw, besides the messages it returned. The intake passes one object per
 * configuration so that every connection of that configuration adds to the same counters.
 */
export interface FrameCounters {
  /** Messages returned (including those repaired from invalid UTF-8). */
  messages: number;
  /** Messages longer than the maximum: skipped to their end, never buffered. */
  oversized: number;
  /** Messages that held invalid UTF-8: delivered with U+FFFD in place of the bad bytes. */
  invalidUtf8: number;
  /** Empty lines (or zero-length frames): skipped. */
  empty: number;
  /** A message cut off by the connection's end, an idle timeout or a closed configuration: dropped. */
  incomplete: number;
  /** An octet-counted connection whose next frame did not start with a length: read as LF from there. */
  framingErrors: number;
}

export function newFrameCounters(): FrameCounters {
  return { messages: 0, oversized: 0, invalidUtf8: 0, empty: 0, incomplete: 0, framingErrors: 0 };
}

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** A frame length has at most this many digits (RFC 6587 sets no bound; 10 digits exceed any sane size). */
const MAX_LENGTH_DIGITS = 10;

const isDigit = (byte: number): boolean => byte >= DIGIT_0 && byte <= DIGIT_9;

/**
 * A streaming decoder for one connection. `push` takes the bytes as they arrive and returns the
 * messages they complete; memory held is bounded by the maximum message length whatever is sent.
 *
 * Framing is detected once, from the first bytes: `<non-zero digits><space>` is RFC 6587
 * octet counting; anything else (a syslog `<PRI>`, a timestamp, a JSON object) is LF-delimited.
 * A trailing CR is stripped; bytes are decoded as UTF-8 with replacement characters.
 */
export class FrameDecoder {
  readonly #max: number;
  readonly #counters: FrameCounters;
  #framing: Framing = 'undecided';
  /** Bytes of the message being assembled (LF mode, octet body, or an undecided header). */
  #pieces: Buffer[] = [];
  #held = 0;
  /** LF mode: discarding an over-long line up to its LF. */
  #discarding = false;
  /** Octet mode: the current frame's announced length still to read (-1: reading a header). */
  #remaining = -1;
  /** Octet mode: the current frame is over-long and being skipped. */
  #skipping = false;

  constructor(counters: FrameCounters = newFrameCounters(), maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES) {
    this.#counters = counters;
    this.#max = maxMessageBytes;
  }

  get framing(): Framing {
    return this.#framing;
  }

  /** True when part of a message is held: what an idle timeout or a close would drop. */
  get partial(): boolean {
    return this.#held > 0 || this.#remaining > 0 || this.#discarding;
  }

  push(chunk: Buffer): string[] {
    const out: string[] = [];
    let data = chunk;
    if (this.#framing === 'undecided') {
      const joined = this.#held > 0 ? Buffer.concat([...this.#pieces, chunk]) : chunk;
      const decided = detect(joined);
      if (decided === 'undecided') {
        this.#pieces = [joined];
        this.#held = joined.length;
        return out;
      }
      this.#framing = decided;
      this.#pieces = [];
      this.#held = 0;
      data = joined;
    }
    if (this.#framing === 'octet-counted') this.#octet(data, 0, out);
    else this.#lf(data, 0, out);
    return out;
  }

  /**
   * The connection ended. `clean`: the sender closed it (an LF-mode line without its LF is then
   * complete); otherwise (a timeout, a reset, a closed configuration) a partial message is dropped.
   * Either way, a cut-off message is counted.
   */
  end(clean: boolean): string[] {
    const out: string[] = [];
    const lastLine = clean && this.#framing !== 'octet-counted' && this.#held > 0 && !this.#discarding;
    if (lastLine) this.#emit(Buffer.concat(this.#pieces), out);
    else if (this.partial) this.#counters.incomplete += 1;
    this.#pieces = [];
    this.#held = 0;
    this.#discarding = false;
    this.#remaining = -1;
    this.#skipping = false;
    return out;
  }

  #lf(data: Buffer, start: number, out: string[]): void {
    let from = start;
    while (from < data.length) {
      const at = data.indexOf(LF, from);
      if (at === -1) {
        this.#hold(data.subarray(from));
        return;
      }
      if (this.#discarding) {
        this.#discarding = false;
      } else if (this.#held > 0) {
        this.#pieces.push(data.subarray(from, at));
        this.#emit(Buffer.concat(this.#pieces), out);
        this.#pieces = [];
        this.#held = 0;
      } else {
        this.#emit(data.subarray(from, at), out);
      }
      from = at + 1;
    }
  }

  /** LF mode: keep a line's start, unless it already exceeds the maximum (one byte of slack for a CR). */
  #hold(piece: Buffer): void {
    if (this.#discarding || piece.length === 0) return;
    if (this.#held + piece.length > this.#max + 1) {
      this.#counters.oversized += 1;
      this.#discarding = true;
      this.#pieces = [];
      this.#held = 0;
      return;
    }
    // A copy: the socket's chunk is not kept alive for a few bytes of it.
    this.#pieces.push(Buffer.from(piece));
    this.#held += piece.length;
  }

  #octet(data: Buffer, start: number, out: string[]): void {
    let at = start;
    while (at < data.length) {
      if (this.#remaining > 0) {
        const take = Math.min(this.#remaining, data.length - at);
        const piece = data.subarray(at, at + take);
        this.#remaining -= take;
        at += take;
        if (!this.#skipping) {
          // A frame whole in this chunk is decoded in place; the start of a longer one is copied so
          // that the socket's chunk is not kept alive for it.
          this.#pieces.push(this.#held === 0 && this.#remaining === 0 ? piece : Buffer.from(piece));
          this.#held += take;
        }
        if (this.#remaining === 0) this.#frameDone(out);
        continue;
      }
      // Between frames: tolerate the LF (or CRLF) some senders add after each frame.
      const byte = data[at]!;
      if (this.#held === 0 && (byte === LF || byte === CR)) {
        at += 1;
        continue;
      }
      if (isDigit(byte) && !(this.#held === 0 && byte === DIGIT_0)) {
        if (this.#held >= MAX_LENGTH_DIGITS) {
          this.#toLf(data, at, out);
          return;
        }
        this.#pieces.push(Buffer.from([byte]));
        this.#held += 1;
        at += 1;
        continue;
      }
      if (byte === SPACE && this.#held > 0) {
        const length = Number(Buffer.concat(this.#pieces).toString('latin1'));
        this.#pieces = [];
        this.#held = 0;
        at += 1;
        if (length > this.#max) {
          this.#counters.oversized += 1;
          this.#skipping = true;
        }
        this.#remaining = length;
        if (length === 0) this.#frameDone(out);
        continue;
      }
      this.#toLf(data, at, out);
      return;
    }
  }

  #frameDone(out: string[]): void {
    if (this.#skipping) this.#skipping = false;
    else {
      let body = this.#pieces.length === 1 ? this.#pieces[0]! : Buffer.concat(this.#pieces);
      // A frame's own trailing LF / CRLF is not part of the message.
      if (body.length > 0 && body[body.length - 1] === LF) body = body.subarray(0, body.length - 1);
      this.#emit(body, out);
    }
    this.#pieces = [];
    this.#held = 0;
    this.#remaining = -1;
  }

  /** A frame that does not start with a length: the sender is not counting octets; read LF lines. */
  #toLf(data: Buffer, at: number, out: string[]): void {
    this.#counters.framingErrors += 1;
    this.#framing = 'lf';
    const header = this.#pieces;
    this.#pieces = [];
    this.#held = 0;
    this.#remaining = -1;
    for (const piece of header) this.#hold(piece);
    this.#lf(data, at, out);
  }

  #emit(line: Buffer, out: string[]): void {
    let end = line.length;
    if (end > 0 && line[end - 1] === CR) end -= 1;
    if (end === 0) {
      this.#counters.empty += 1;
      return;
    }
    if (end > this.#max) {
      this.#counters.oversized += 1;
      return;
    }
    const bytes = end === line.length ? line : line.subarray(0, end);
    if (!isUtf8(bytes)) this.#counters.invalidUtf8 += 1;
    this.#counters.messages += 1;
    out.push(bytes.toString('utf8'));
  }
}

/** The framing the first bytes show, or 'undecided' while they could still be a frame length. */
function detect(head: Buffer): Framing {
  if (head.length === 0) return 'undecided';
  const first = head[0]!;
  if (!isDigit(first) || first === DIGIT_0) return 'lf';
  for (let i = 1; i < head.length; i += 1) {
    const byte = head[i]!;
    if (byte === SPACE) return 'octet-counted';
    if (!isDigit(byte) || i >= MAX_LENGTH_DIGITS) return 'lf';
  }
  return 'undecided';
}
