/**
 * A single-pass SQL lexer over binary strings. It knows enough SQL to see the structure an
 * injection needs and nothing of any one dialect's full grammar. It never allocates per character,
 * looks ahead only over whitespace, and stops after a fixed number of tokens, so it runs in time
 * linear in the part of the input it reads.
 *
 * Quote context: a value is spliced into a query either bare (`... id=VALUE`), inside a
 * single-quoted string or inside a double-quoted one. In a quote context the lexer starts inside an
 * already open string, so the first token is whatever the value leaves of that string.
 */
import { MAX_KEYWORD_LENGTH, WORD_CLASSES } from './sql-keywords.ts';

export type QuoteContext = 'none' | 'single' | 'double';

/**
 * Token kinds, one character each (they are the fingerprint alphabet):
 * `s` string, `1` number or literal, `n` bareword, `v` variable, `f` function call, `F` side-effect
 * function call, `E` statement keyword, `U` union, `B` order/group by, `k` clause keyword,
 * `&` boolean connective, `o` operator, `=` comparison or assignment, `(` `)` `,` `;`,
 * `c` comment, `X` a comment opened inside a comment (evasion), `?` anything else.
 */
export type SqlTokenKind =
  's' | '1' | 'n' | 'v' | 'f' | 'F' | 'E' | 'U' | 'B' | 'k' | '&' | 'o' | '=' | '(' | ')' | ',' | ';' | 'c' | 'X' | '?';

export interface SqlToken {
  kind: SqlTokenKind;
  text: string;
}

// Character classes, one byte per char code 0-255.
const SPACE = 1;
const DIGIT = 2;
const WORD_START = 4;
const WORD_PART = 8;
const CLASS = new Uint8Array(256);
for (const c of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]) CLASS[c] = SPACE;
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = DIGIT | WORD_PART;
for (let c = 0x41; c <= 0x5a; c++) CLASS[c] = WORD_START | WORD_PART;
for (let c = 0x61; c <= 0x7a; c++) CLASS[c] = WORD_START | WORD_PART;
for (let c = 0x80; c <= 0xff; c++) if (c !== 0xa0) CLASS[c] = WORD_START | WORD_PART;
CLASS[0x5f] = WORD_START | WORD_PART; // _
CLASS[0x24] = WORD_PART; // $
CLASS[0x2e] = WORD_PART; // . (qualified names: schema.table.column)

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

function cls(code: number): number {
  // Past the end (NaN) is nothing; codes above 255 are not meant to occur: letters, rather than fail.
  if (code < 256) return CLASS[code] ?? 0;
  return code > 255 ? WORD_START | WORD_PART : 0;
}

/** The lexer's state; reused across calls so the hot path allocates nothing per token. */
export class SqlLexer {
  input = '';
  pos = 0;
  /** Bounds of the last token in `input`. */
  start = 0;
  end = 0;
  /** The last `o` token can be unary (`-`, `+`, `~`, `!`, `not`). */
  unary = false;
  /**
   * The lower-cased first word of the last token when the lexer made that copy for its keyword
   * lookup (an undotted word of at most MAX_KEYWORD_LENGTH bytes), else ''.
   */
  lowerWord = '';
  private openString = 0;

  reset(input: string, context: QuoteContext): void {
    this.input = input;
    this.pos = 0;
    this.start = 0;
    this.end = 0;
    this.unary = false;
    this.openString = context === 'single' ? 0x27 : context === 'double' ? 0x22 : 0;
  }

  /** The next token's kind, or '' at the end of the input. */
  next(): SqlTokenKind | '' {
    const s = this.input;
    const len = s.length;
    if (this.openString !== 0) {
      const quote = this.openString;
      this.openString = 0;
      this.start = 0;
      this.pos = this.scanString(0, quote);
      this.end = this.pos;
      return 's';
    }
    while (this.pos < len) {
      const at = this.pos;
      const c = s.charCodeAt(at);
      const k = cls(c);
      if (k & SPACE) {
        this.pos++;
        continue;
      }
      this.start = at;
      this.unary = false;
      this.lowerWord = '';
      const kind = this.token(at, c, k);
      if (kind === '') continue; // whitespace-like construct (closed comment)
      this.end = this.pos;
      return kind;
    }
    this.start = this.end = len;
    return '';
  }

  private token(at: number, c: number, k: number): SqlTokenKind | '' {
    const s = this.input;
    if (k & DIGIT || (c === 0x2e && cls(s.charCodeAt(at + 1)) & DIGIT)) {
      this.pos = this.scanNumber(at);
      return '1';
    }
    if (k & WORD_START) return this.word(at);
    const d = s.charCodeAt(at + 1);
    switch (c) {
      case 0x27: // '
      case 0x22: // "
        this.pos = this.scanString(at + 1, c);
        return 's';
      case 0x60: {
        // `identifier`
        const close = s.indexOf('`', at + 1);
        this.pos = close < 0 ? s.length : close + 1;
        return 'n';
      }
      case 0x40: {
        // @var, @@system_var
        let p = at + 1;
        if (s.charCodeAt(p) === 0x40) p++;
        while (p < s.length && cls(s.charCodeAt(p)) & WORD_PART) p++;
        this.pos = p;
        return 'v';
      }
      case 0x2d: // -
        if (d === 0x2d) return this.lineComment(at);
        return this.op(at + 1, true);
      case 0x23: // #
        // MySQL's comment, but `#1`, `#section`, `#ff0000` are numbers, anchors and colours.
        if (cls(d) & WORD_PART) {
          this.pos = at + 1;
          return '?';
        }
        return this.lineComment(at);
      case 0x2f: // /
        if (d === 0x2a) return this.blockComment(at);
        return this.op(at + 1, false);
      case 0x2a: // *
        if (d === 0x2f) {
          // The close of an executable comment whose opener was skipped.
          this.pos = at + 2;
          return '';
        }
        return this.op(at + 1, false);
      case 0x28:
        this.pos = at + 1;
        return '(';
      case 0x29:
        this.pos = at + 1;
        return ')';
      case 0x2c:
        this.pos = at + 1;
        return ',';
      case 0x3b:
        this.pos = at + 1;
        return ';';
      case 0x3d: // =
        this.pos = at + 1;
        return '=';
      case 0x3c: // < <= <> <=> <<
        if (d === 0x3c) return this.op(at + 2, false);
        this.pos = d === 0x3d ? (s.charCodeAt(at + 2) === 0x3e ? at + 3 : at + 2) : d === 0x3e ? at + 2 : at + 1;
        return '=';
      case 0x3e: // > >= >>
        if (d === 0x3e) return this.op(at + 2, false);
        this.pos = d === 0x3d ? at + 2 : at + 1;
        return '=';
      case 0x21: // ! !=
        if (d === 0x3d) {
          this.pos = at + 2;
          return '=';
        }
        return this.op(at + 1, true);
      case 0x3a: // :=
        if (d === 0x3d) {
          this.pos = at + 2;
          return '=';
        }
        this.pos = at + 1;
        return '?';
      case 0x7c: // | ||
        if (d === 0x7c) {
          this.pos = at + 2;
          return '&';
        }
        return this.op(at + 1, false);
      case 0x26: // & &&
        if (d === 0x26) {
          this.pos = at + 2;
          return '&';
        }
        return this.op(at + 1, false);
      case 0x2b: // +
      case 0x7e: // ~
        return this.op(at + 1, true);
      case 0x25: // %
      case 0x5e: // ^
      case 0x5c: // \ (only meaningful inside strings; outside it joins operands like one)
        return this.op(at + 1, false);
      default:
        this.pos = at + 1;
        return '?';
    }
  }

  private op(next: number, unary: boolean): 'o' {
    this.pos = next;
    this.unary = unary;
    return 'o';
  }

  /** Scans a string body from `from` (after the opening quote); returns the index after its end. */
  private scanString(from: number, quote: number): number {
    const s = this.input;
    const len = s.length;
    let p = from;
    while (p < len) {
      const c = s.charCodeAt(p);
      if (c === 0x5c) {
        p += 2; // backslash escape (MySQL's default)
        continue;
      }
      if (c === quote) {
        if (s.charCodeAt(p + 1) === quote) {
          p += 2; // doubled quote: an escaped one, the string goes on
          continue;
        }
        return p + 1;
      }
      p++;
    }
    return len;
  }

  private scanNumber(at: number): number {
    const s = this.input;
    let p = at;
    const c1 = s.charCodeAt(at + 1) | 0x20;
    if (s.charCodeAt(at) === 0x30 && (c1 === 0x78 || c1 === 0x62)) {
      // 0x1F, 0b101: hex and binary literals
      p += 2;
      while (p < s.length && isHex(s.charCodeAt(p))) p++;
      return p;
    }
    while (cls(s.charCodeAt(p)) & DIGIT) p++;
    if (s.charCodeAt(p) === 0x2e) {
      p++;
      while (cls(s.charCodeAt(p)) & DIGIT) p++;
    }
    const e = s.charCodeAt(p) | 0x20;
    if (e === 0x65) {
      let q = p + 1;
      const sign = s.charCodeAt(q);
      if (sign === 0x2b || sign === 0x2d) q++;
      if (cls(s.charCodeAt(q)) & DIGIT) {
        while (cls(s.charCodeAt(q)) & DIGIT) q++;
        p = q;
      }
    }
    return p;
  }

  private word(at: number): SqlTokenKind {
    const s = this.input;
    const len = s.length;
    let p = at + 1;
    let dotted = false;
    while (p < len) {
      const c = s.charCodeAt(p);
      if (!(cls(c) & WORD_PART)) break;
      if (c === 0x2e) dotted = true;
      p++;
    }
    this.pos = p;
    const wlen = p - at;
    // N'...', X'...', B'...', E'...': prefixed string literals.
    if (wlen === 1 && s.charCodeAt(p) === 0x27 && 'nNxXbBeE'.includes(s[at] ?? '')) {
      this.pos = this.scanString(p + 1, 0x27);
      return 's';
    }
    if (dotted || wlen > MAX_KEYWORD_LENGTH) return 'n';
    const lower = s.slice(at, p).toLowerCase();
    this.lowerWord = lower;
    const cl = WORD_CLASSES.get(lower);
    if (cl === undefined) return 'n';
    switch (cl) {
      case 'f':
      case 'F':
        return s.charCodeAt(this.skipSpace(p)) === 0x28 ? cl : 'n';
      case 'U': {
        // UNION ALL / UNION DISTINCT fold into one token.
        const q = this.skipSpace(p);
        const w = this.peekWord(q);
        if (w === 'all' || w === 'distinct') this.pos = q + w.length;
        return 'U';
      }
      case 'B': {
        const q = this.skipSpace(p);
        if (this.peekWord(q) !== 'by') return 'n';
        this.pos = q + 2;
        return 'B';
      }
      case 'o':
        this.unary = wlen === 3; // `not`
        return 'o';
      default:
        return cl;
    }
  }

  /** The lower-case word of up to 8 letters at `at`, or ''. */
  private peekWord(at: number): string {
    const s = this.input;
    let p = at;
    while (p < s.length && p - at <= 8 && cls(s.charCodeAt(p)) & WORD_START) p++;
    if (p - at > 8 || cls(s.charCodeAt(p)) & WORD_PART) return '';
    return s.slice(at, p).toLowerCase();
  }

  /** Past whitespace and closed, plain block comments: attackers write comments for spaces (`union/**\/all`). */
  private skipSpace(at: number): number {
    const s = this.input;
    let p = at;
    for (;;) {
      while (p < s.length && cls(s.charCodeAt(p)) & SPACE) p++;
      if (s.charCodeAt(p) !== 0x2f || s.charCodeAt(p + 1) !== 0x2a || s.charCodeAt(p + 2) === 0x21) return p;
      const close = s.indexOf('*/', p + 2);
      if (close < 0) return p;
      // Moving forward only: each comment is passed once, so the look-ahead stays linear.
      p = close + 2;
    }
  }

  private lineComment(at: number): 'c' {
    const nl = this.input.indexOf('\n', at);
    this.pos = nl < 0 ? this.input.length : nl + 1;
    return 'c';
  }

  private blockComment(at: number): SqlTokenKind | '' {
    const s = this.input;
    const mark = s.charCodeAt(at + 2);
    if (mark === 0x21) {
      // MySQL executable comment /*!50000 ... */: its body is SQL. Skip the opener and version.
      let p = at + 3;
      while (cls(s.charCodeAt(p)) & DIGIT) p++;
      this.pos = p;
      return '';
    }
    const close = s.indexOf('*/', at + 2);
    if (close < 0) {
      this.pos = s.length;
      return 'c';
    }
    this.pos = close + 2;
    // A comment opener inside a comment: no dialect nests them this way; only evasion does.
    const nested = s.indexOf('/*', at + 2);
    if (nested >= 0 && nested < close) return 'X';
    return '';
  }
}

/** All tokens of `input` in a quote context (for tests and diagnostics; the detector streams). */
export function tokenizeSql(input: string, context: QuoteContext, maxTokens = 256): SqlToken[] {
  const lexer = new SqlLexer();
  lexer.reset(input, context);
  const out: SqlToken[] = [];
  for (let i = 0; i < maxTokens; i++) {
    const kind = lexer.next();
    if (kind === '') break;
    out.push({ kind, text: input.slice(lexer.start, lexer.end) });
  }
  return out;
}
