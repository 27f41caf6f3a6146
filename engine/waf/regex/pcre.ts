import {
  type ByteSet,
  DIGIT,
  HSPACE,
  POSIX_CLASSES,
  SPACE,
  VSPACE,
  WORD,
  addAll,
  asciiCaseClosure,
  complement,
  count,
  disjoint,
  emptySet,
  equals,
  isJsCaseClosed,
  rangeSet,
  setOf,
} from './byte-set.ts';
import { requiredLiterals } from './required-literals.ts';
import type { AltNode, BackrefNode, GroupKind, GroupNode, Node, QuantNode, SetNode } from './pcre-ast.ts';

export type { AltNode, AssertNode, BackrefNode, GroupKind, GroupNode, Node, QuantNode, SetNode } from './pcre-ast.ts';

/** PCRE compile options (the `PCRE_*` flags a host passes, not inline ones). */
export interface PcreOptions {
  /** PCRE_CASELESS */
  caseless?: boolean;
  /** PCRE_MULTILINE */
  multiline?: boolean;
  /** PCRE_DOTALL */
  dotall?: boolean;
  /** PCRE_DOLLAR_ENDONLY: `$` matches only at the very end, not before a final newline. */
  dollarEndOnly?: boolean;
  /** PCRE_EXTENDED */
  extended?: boolean;
}

export interface TranslatedRegex {
  /** JavaScript RegExp source: never needs the `u` flag, matches bytes of a binary string. */
  source: string;
  /** Some of `i` and `s`; never `u`, `m`, `g`, `y`. */
  flags: string;
  /**
   * JavaScript group index of each PCRE group: `groups[n]` for PCRE's `$n` (groups[0] = 0).
   * Differs from the identity only when atomic groups or possessive quantifiers needed helper
   * groups.
   */
  groups: readonly number[];
  /**
   * Strings of which every match contains at least one, ASCII letters lower-cased (see
   * required-literals.ts); undefined when no such list can be named (or the `i` flag is used).
   */
  required: readonly string[] | undefined;
}

// ---------------------------------------------------------------------------------------------
// AST
// ---------------------------------------------------------------------------------------------

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
  U: boolean;
}

// ---------------------------------------------------------------------------------------------
// Parser: PCRE (8-bit, non-UTF, as ModSecurity compiles it) to the AST
// ---------------------------------------------------------------------------------------------

class PcreSyntaxError extends Error {}

const NEWLINE = setOf(0x0a);
const ANY = rangeSet(0, 255);
const NOT_NEWLINE = complement(NEWLINE);

function isOctal(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '7';
}
function isHex(c: string | undefined): boolean {
  return c !== undefined && /^[0-9a-fA-F]$/.test(c);
}
function isAlnum(c: string): boolean {
  return /^[0-9A-Za-z]$/.test(c);
}

class Parser {
  private pos = 0;
  private groupCount = 0;
  readonly names = new Map<string, number>();
  readonly backrefs: BackrefNode[] = [];

  constructor(
    private readonly src: string,
    private readonly options: PcreOptions,
  ) {}

  get captureCount(): number {
    return this.groupCount;
  }

  parse(): AltNode {
    const flags: Flags = {
      i: this.options.caseless === true,
      m: this.options.multiline === true,
      s: this.options.dotall === true,
      x: this.options.extended === true,
      U: false,
    };
    if (this.src.startsWith('(*')) this.fail('start-of-pattern verbs like (*UTF) are not supported');
    const body = this.parseAlternation(flags);
    if (this.pos < this.src.length) this.fail('unmatched closing parenthesis');
    for (const ref of this.backrefs) {
      if (ref.name !== undefined) {
        const n = this.names.get(ref.name);
        if (n === undefined) this.fail(`reference to non-existent named group "${ref.name}"`);
        ref.index = n;
      }
      if (ref.index > this.groupCount) this.fail(`reference to non-existent group ${ref.index}`);
    }
    return body;
  }

  private fail(message: string, at = this.pos): never {
    throw new PcreSyntaxError(`${message} at offset ${at}`);
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  /** Parses alternatives until `)` or the end; `flags` is this group's option state (mutated by `(?i)`). */
  private parseAlternation(flags: Flags): AltNode {
    const alts: Node[][] = [[]];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === ')') break;
      if (c === '|') {
        this.pos++;
        alts.push([]);
        continue;
      }
      const seq = alts[alts.length - 1] as Node[];
      this.parseItem(flags, seq);
    }
    return { t: 'alt', alts };
  }

  private skipExtended(): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') this.pos++;
      else if (c === '#') {
        while (this.pos < this.src.length && this.src[this.pos] !== '\n') this.pos++;
      } else return;
    }
  }

  private parseItem(flags: Flags, seq: Node[]): void {
    if (flags.x) {
      this.skipExtended();
      const c = this.peek();
      if (c === undefined || c === '|' || c === ')') return;
    }
    const start = this.pos;
    const c = this.src[this.pos++] as string;
    switch (c) {
      case '\\': {
        const node = this.parseEscape(flags);
        if (Array.isArray(node)) seq.push(...node);
        else if (node) seq.push(node);
        return;
      }
      case '(': {
        const node = this.parseGroup(flags);
        if (node) seq.push(node);
        return;
      }
      case '[':
        seq.push(this.parseClass(flags));
        return;
      case '.':
        seq.push({ t: 'set', set: flags.s ? ANY : NOT_NEWLINE, caseless: false });
        return;
      case '^':
        seq.push({ t: 'assert', src: flags.m ? '(?:^|(?<=\\n)(?=[\\s\\S]))' : '^', endOnly: false });
        return;
      case '$':
        if (flags.m) seq.push({ t: 'assert', src: '(?=\\n|$)', endOnly: false });
        else if (this.options.dollarEndOnly) seq.push({ t: 'assert', src: '$', endOnly: true });
        else seq.push({ t: 'assert', src: '(?=\\n?$)', endOnly: false });
        return;
      case '*':
      case '+':
      case '?':
        this.applyQuantifier(seq, c === '+' ? 1 : 0, c === '?' ? 1 : Infinity, flags, start);
        return;
      case '{': {
        const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.src.slice(start));
        if (m) {
          this.pos = start + m[0].length;
          const min = Number(m[1]);
          const max = m[2] === undefined ? min : m[3] === '' || m[3] === undefined ? Infinity : Number(m[3]);
          if (min > 65535 || (max !== Infinity && max > 65535)) this.fail('number too big in {} quantifier', start);
          if (max < min) this.fail('numbers out of order in {} quantifier', start);
          this.applyQuantifier(seq, min, max, flags, start);
          return;
        }
        seq.push(this.literal(0x7b, flags));
        return;
      }
      default:
        seq.push(this.literal(c.charCodeAt(0), flags));
    }
  }

  private applyQuantifier(seq: Node[], min: number, max: number, flags: Flags, at: number): void {
    const body = seq.pop();
    if (body === undefined) this.fail('quantifier does not follow a repeatable item', at);
    if (body.t === 'quant') this.fail('nested quantifier (a quantifier directly after another)', at);
    let lazy = false;
    let possessive = false;
    if (this.peek() === '?') {
      lazy = true;
      this.pos++;
    } else if (this.peek() === '+') {
      possessive = true;
      this.pos++;
    }
    if (flags.U && !possessive) lazy = !lazy;
    seq.push({ t: 'quant', body, min, max, lazy, possessive });
  }

  private literal(code: number, flags: Flags): SetNode {
    return { t: 'set', set: flags.i ? asciiCaseClosure(setOf(code)) : setOf(code), caseless: flags.i };
  }

  private classNode(set: ByteSet, flags: Flags): SetNode {
    return { t: 'set', set, caseless: flags.i };
  }

  /** `\R`: PCRE's atomic (?>\r\n|\n|\x0b|\f|\r|\x85), written without a helper group. */
  private newlineSequence(): AltNode {
    const lit = (c: number): SetNode => ({ t: 'set', set: setOf(c), caseless: false });
    return {
      t: 'alt',
      alts: [
        [lit(0x0d), lit(0x0a)],
        [{ t: 'set', set: setOf(0x0a, 0x0b, 0x0c, 0x85), caseless: false }],
        [lit(0x0d), { t: 'group', kind: 'notAhead', index: 0, body: { t: 'alt', alts: [[lit(0x0a)]] } }],
      ],
    };
  }

  /** Class escapes shared by both contexts; undefined when `c` is not one. */
  private classEscape(c: string): ByteSet | undefined {
    switch (c) {
      case 'd':
        return DIGIT;
      case 'D':
        return complement(DIGIT);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement(SPACE);
      case 'h':
        return HSPACE;
      case 'H':
        return complement(HSPACE);
      case 'v':
        return VSPACE;
      case 'V':
        return complement(VSPACE);
      default:
        return undefined;
    }
  }

  /** Escapes that denote one byte, in or out of a class. `this.pos` is after the letter. */
  private singleByteEscape(c: string, inClass: boolean): number | undefined {
    switch (c) {
      case 'a':
        return 0x07;
      case 'e':
        return 0x1b;
      case 'f':
        return 0x0c;
      case 'n':
        return 0x0a;
      case 'r':
        return 0x0d;
      case 't':
        return 0x09;
      case 'b':
        return inClass ? 0x08 : undefined;
      case 'x': {
        if (this.peek() === '{') {
          const m = /^\{([0-9a-fA-F]+)\}/.exec(this.src.slice(this.pos));
          if (!m) this.fail('malformed \\x{...} escape');
          this.pos += m[0].length;
          const v = parseInt(m[1] as string, 16);
          if (v > 0xff) this.fail('character value in \\x{} is too large (patterns match bytes, not UTF-8)');
          return v;
        }
        let digits = '';
        while (digits.length < 2 && isHex(this.peek())) digits += this.src[this.pos++];
        return digits === '' ? 0 : parseInt(digits, 16);
      }
      case 'o': {
        const m = /^\{([0-7]+)\}/.exec(this.src.slice(this.pos));
        if (!m) this.fail('malformed \\o{...} escape');
        this.pos += m[0].length;
        const v = parseInt(m[1] as string, 8);
        if (v > 0xff) this.fail('character value in \\o{} is too large');
        return v;
      }
      case 'c': {
        const x = this.src[this.pos++];
        if (x === undefined) this.fail('\\c at end of pattern');
        const code = x.toUpperCase().charCodeAt(0);
        if (code > 0x7f) this.fail('\\c must be followed by an ASCII character');
        return code ^ 0x40;
      }
      case '0': {
        let digits = '';
        while (digits.length < 2 && isOctal(this.peek())) digits += this.src[this.pos++];
        return digits === '' ? 0 : parseInt(digits, 8);
      }
      default:
        return undefined;
    }
  }

  /** `\Q...\E` yields one node per byte, so that a following quantifier binds to the last one. */
  private parseEscape(flags: Flags): Node | Node[] | undefined {
    const escAt = this.pos - 1;
    const c = this.src[this.pos++];
    if (c === undefined) this.fail('\\ at end of pattern', escAt);
    const cls = this.classEscape(c);
    if (cls) return this.classNode(cls, flags);
    switch (c) {
      case 'b':
        return { t: 'assert', src: '\\b', endOnly: false };
      case 'B':
        return { t: 'assert', src: '\\B', endOnly: false };
      case 'A':
      case 'G': // Without a start offset, \G is the start of the subject.
        return { t: 'assert', src: '(?<![\\s\\S])', endOnly: false };
      case 'z':
        return { t: 'assert', src: '(?![\\s\\S])', endOnly: true };
      case 'Z':
        return { t: 'assert', src: '(?=\\n?(?![\\s\\S]))', endOnly: false };
      case 'N':
        return this.classNode(NOT_NEWLINE, flags);
      case 'R':
        return this.newlineSequence();
      case 'Q': {
        const end = this.src.indexOf('\\E', this.pos);
        const text = end < 0 ? this.src.slice(this.pos) : this.src.slice(this.pos, end);
        this.pos = end < 0 ? this.src.length : end + 2;
        return [...text].map((ch) => this.literal(ch.charCodeAt(0), flags));
      }
      case 'E':
        return undefined;
      case 'g': {
        const m = /^(?:\{(-?\d+)\}|(-?\d+)|\{([A-Za-z_]\w*)\})/.exec(this.src.slice(this.pos));
        if (!m) this.fail('malformed \\g reference', escAt);
        this.pos += m[0].length;
        if (m[3] !== undefined) return this.backref(0, flags, m[3]);
        const n = Number(m[1] ?? m[2]);
        const index = n < 0 ? this.groupCount + 1 + n : n;
        if (index <= 0) this.fail('invalid relative group reference', escAt);
        return this.backref(index, flags);
      }
      case 'k': {
        const m = /^(?:<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)'|\{([A-Za-z_]\w*)\})/.exec(this.src.slice(this.pos));
        if (!m) this.fail('malformed \\k reference', escAt);
        this.pos += m[0].length;
        return this.backref(0, flags, m[1] ?? m[2] ?? m[3]);
      }
      case 'K':
      case 'X':
      case 'C':
      case 'p':
      case 'P':
        return this.fail(`\\${c} is not supported`, escAt);
      default:
        break;
    }
    if (c >= '1' && c <= '9') {
      // PCRE: a backreference when below 10 or when that many groups are already open;
      // otherwise up to three octal digits.
      const m = /^\d+/.exec(this.src.slice(escAt + 1)) as RegExpExecArray;
      const n = Number(m[0]);
      if (n < 10 || n <= this.groupCount) {
        this.pos = escAt + 1 + m[0].length;
        return this.backref(n, flags);
      }
      if (c === '8' || c === '9') return this.literal(c.charCodeAt(0), flags);
      this.pos = escAt + 1;
      let digits = '';
      while (digits.length < 3 && isOctal(this.peek())) digits += this.src[this.pos++];
      return this.literal(parseInt(digits, 8) & 0xff, flags);
    }
    const byte = this.singleByteEscape(c, false);
    if (byte !== undefined) return this.literal(byte, flags);
    if (isAlnum(c)) this.fail(`unrecognized escape \\${c}`, escAt);
    return this.literal(c.charCodeAt(0), flags);
  }

  private backref(index: number, flags: Flags, name?: string): BackrefNode {
    const node: BackrefNode = { t: 'backref', index, caseless: flags.i };
    if (name !== undefined) node.name = name;
    this.backrefs.push(node);
    return node;
  }

  private parseClass(flags: Flags): SetNode {
    const openAt = this.pos - 1;
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.pos++;
    }
    const set = emptySet();
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('missing terminating ] for character class', openAt);
      if (c === ']' && !first) {
        this.pos++;
        break;
      }
      first = false;
      // POSIX class [:name:] / [:^name:]; `[` stays literal unless a terminator follows.
      if (c === '[' && this.posixEnd() >= 0) {
        const end = this.posixEnd();
        const kindChar = this.src[this.pos + 1];
        if (kindChar !== ':') this.fail('POSIX collating elements [.x.] and [=x=] are not supported');
        const body = this.src.slice(this.pos + 2, end);
        const negated = body.startsWith('^');
        const posix = POSIX_CLASSES.get(negated ? body.slice(1) : body);
        if (!posix) this.fail(`unknown POSIX class name [:${body}:]`);
        addAll(set, negated ? complement(posix) : posix);
        this.pos = end + 2;
        continue;
      }
      const low = this.classAtom();
      if (typeof low !== 'number') {
        addAll(set, low);
        continue;
      }
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        const save = this.pos;
        this.pos++;
        const high = this.classAtom();
        if (typeof high !== 'number') {
          // `[a-\d]`: PCRE takes the hyphen literally.
          set[low] = 1;
          set[0x2d] = 1;
          addAll(set, high);
          continue;
        }
        if (high < low) this.fail('range out of order in character class', save);
        for (let x = low; x <= high; x++) set[x] = 1;
        continue;
      }
      set[low] = 1;
    }
    const closed = flags.i ? asciiCaseClosure(set) : set;
    return { t: 'set', set: negate ? complement(closed) : closed, caseless: flags.i };
  }

  /**
   * At `[` inside a class: PCRE reads `[:`, `[.` or `[=` as POSIX syntax only when the matching
   * `:]` (`.]`, `=]`) comes before any `]`. Returns the offset of that terminator, or -1.
   */
  private posixEnd(): number {
    const term = this.src[this.pos + 1];
    if (term !== ':' && term !== '.' && term !== '=') return -1;
    for (let k = this.pos + 2; k < this.src.length; k++) {
      const ch = this.src[k];
      if (ch === '\\' && (this.src[k + 1] === ']' || this.src[k + 1] === '\\')) k++;
      else if (ch === ']') return -1;
      else if (ch === term && this.src[k + 1] === ']') return k;
    }
    return -1;
  }

  /** One member of a class: a byte, or a set for `\d` and friends. */
  private classAtom(): number | ByteSet {
    const c = this.src[this.pos++] as string;
    if (c !== '\\') return c.charCodeAt(0);
    const escAt = this.pos - 1;
    const e = this.src[this.pos++];
    if (e === undefined) this.fail('\\ at end of pattern', escAt);
    const cls = this.classEscape(e);
    if (cls) return cls;
    if (e === 'Q') {
      const end = this.src.indexOf('\\E', this.pos);
      const text = end < 0 ? this.src.slice(this.pos) : this.src.slice(this.pos, end);
      this.pos = end < 0 ? this.src.length : end + 2;
      const s = emptySet();
      for (const ch of text) s[ch.charCodeAt(0)] = 1;
      return s;
    }
    if (e === 'E') return emptySet();
    if (e >= '1' && e <= '7') {
      this.pos--;
      let digits = '';
      while (digits.length < 3 && isOctal(this.peek())) digits += this.src[this.pos++];
      return parseInt(digits, 8) & 0xff;
    }
    const byte = this.singleByteEscape(e, true);
    if (byte !== undefined) return byte;
    if (isAlnum(e)) this.fail(`unrecognized escape \\${e} in character class`, escAt);
    return e.charCodeAt(0);
  }

  private parseGroup(outer: Flags): Node | undefined {
    const openAt = this.pos - 1;
    let kind: GroupKind = 'capture';
    let name: string | undefined;
    const inner: Flags = { ...outer };
    if (this.peek() === '*') this.fail('backtracking control verbs (*...) are not supported', openAt);
    if (this.peek() === '?') {
      this.pos++;
      const rest = this.src.slice(this.pos);
      let m: RegExpExecArray | null;
      if (rest.startsWith('#')) {
        const end = this.src.indexOf(')', this.pos);
        if (end < 0) this.fail('missing ) after comment', openAt);
        this.pos = end + 1;
        return undefined;
      } else if (rest.startsWith(':')) {
        kind = 'group';
        this.pos++;
      } else if (rest.startsWith('=')) {
        kind = 'ahead';
        this.pos++;
      } else if (rest.startsWith('!')) {
        kind = 'notAhead';
        this.pos++;
      } else if (rest.startsWith('<=')) {
        kind = 'behind';
        this.pos += 2;
      } else if (rest.startsWith('<!')) {
        kind = 'notBehind';
        this.pos += 2;
      } else if (rest.startsWith('>')) {
        kind = 'atomic';
        this.pos++;
      } else if (rest.startsWith('|')) {
        this.pos++;
        const before = this.groupCount;
        const body = this.parseAlternation(inner);
        this.expect(')', openAt);
        if (this.groupCount !== before) {
          this.fail('branch reset groups (?|...) containing capturing groups are not supported', openAt);
        }
        return { t: 'group', kind: 'group', index: 0, body };
      } else if ((m = /^(?:P?<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')/.exec(rest))) {
        name = m[1] ?? m[2];
        this.pos += m[0].length;
      } else if ((m = /^P=([A-Za-z_]\w*)\)/.exec(rest))) {
        this.pos += m[0].length;
        return this.backref(0, outer, m[1]);
      } else if ((m = /^([imsxUJ]*)(?:-([imsxUJ]*))?([:)])/.exec(rest))) {
        this.pos += m[0].length;
        const target = m[3] === ')' ? outer : inner;
        for (const f of m[1] ?? '') this.setFlag(target, f, true);
        for (const f of m[2] ?? '') this.setFlag(target, f, false);
        if (m[3] === ')') return undefined; // applies to the rest of the enclosing group
        kind = 'group';
        // Option-setting group: falls through to parse its body with `inner`.
        const body = this.parseAlternation(inner);
        this.expect(')', openAt);
        return { t: 'group', kind, index: 0, body };
      } else {
        this.fail('unsupported group syntax (conditionals, recursion, callouts)', openAt);
      }
    }
    let index = 0;
    if (kind === 'capture') {
      index = ++this.groupCount;
      if (name !== undefined) {
        if (this.names.has(name)) this.fail(`duplicate group name "${name}"`, openAt);
        this.names.set(name, index);
      }
    }
    const body = this.parseAlternation(inner);
    this.expect(')', openAt);
    return { t: 'group', kind, index, body };
  }

  private setFlag(flags: Flags, f: string, on: boolean): void {
    if (f === 'i' || f === 'm' || f === 's' || f === 'x' || f === 'U') flags[f] = on;
    // J (duplicate names) changes nothing we translate.
  }

  private expect(ch: string, openAt: number): void {
    if (this.src[this.pos] !== ch) this.fail('missing closing parenthesis', openAt);
    this.pos++;
  }
}

// ---------------------------------------------------------------------------------------------
// Emitter
// ---------------------------------------------------------------------------------------------

const PLAIN_OUTSIDE = /^[A-Za-z0-9 !"#%&',\-/:;<=>@_`~]$/;
const PLAIN_INSIDE = /^[A-Za-z0-9 !"#$%&'()*+,./:;<=>?@_`{|}~]$/;

function hex2(c: number): string {
  return c.toString(16).padStart(2, '0');
}

function escapeChar(c: number, inClass: boolean): string {
  const ch = String.fromCharCode(c);
  if ((inClass ? PLAIN_INSIDE : PLAIN_OUTSIDE).test(ch)) return ch;
  if (c > 0x20 && c < 0x7f) return `\\${ch}`;
  return `\\x${hex2(c)}`;
}

function ranges(s: ByteSet): string {
  let out = '';
  for (let c = 0; c < 256; c++) {
    if (!s[c]) continue;
    let end = c;
    while (end + 1 < 256 && s[end + 1]) end++;
    out += escapeChar(c, true);
    if (end === c + 1) out += escapeChar(end, true);
    else if (end > c + 1) out += `-${escapeChar(end, true)}`;
    c = end;
  }
  return out;
}

interface EmitContext {
  /** JavaScript `i` flag in force: sets are case-closed and may be written with lower case only. */
  useI: boolean;
  /** JavaScript `s` flag in force. */
  useS: boolean;
  /** Next JavaScript group number. */
  nextGroup: number;
  groupMap: number[];
  inBehind: boolean;
}

class Emitter {
  constructor(private readonly ctx: EmitContext) {}

  private reduceForI(s: ByteSet): ByteSet {
    if (!this.ctx.useI) return s;
    const out = Uint8Array.from(s);
    for (let c = 0x41; c <= 0x5a; c++) if (s[c + 0x20]) out[c] = 0;
    return out;
  }

  set(s: ByteSet): string {
    const n = count(s);
    if (n === 256) return this.ctx.useS ? '.' : '[\\s\\S]';
    if (n === 255 && !s[0x0a]) return '[^\\n]';
    if (equals(s, DIGIT)) return '\\d';
    if (equals(s, WORD)) return '\\w';
    if (n === 256 - 10 && equals(s, complement(DIGIT))) return '\\D';
    if (equals(s, complement(WORD))) return '\\W';
    if (n > 128) return `[^${ranges(this.reduceForI(complement(s)))}]`;
    const reduced = this.reduceForI(s);
    if (count(reduced) === 1) return escapeChar(reduced.indexOf(1), false);
    return `[${ranges(reduced)}]`;
  }

  alt(node: AltNode): string {
    return node.alts.map((seq) => this.seq(seq)).join('|');
  }

  private seq(seq: Node[]): string {
    let out = '';
    for (let k = 0; k < seq.length; k++) out += this.node(seq[k] as Node, seq, k);
    return out;
  }

  private node(node: Node, seq: Node[], k: number): string {
    switch (node.t) {
      case 'set':
        return this.set(node.set);
      case 'assert':
        return node.src;
      case 'backref':
        return `(?:\\${this.ctx.groupMap[node.index] ?? node.index})`;
      case 'alt':
        return `(?:${this.alt(node)})`;
      case 'group':
        return this.group(node);
      case 'quant':
        return this.quant(node, seq, k);
    }
  }

  private group(node: GroupNode): string {
    switch (node.kind) {
      case 'capture': {
        this.ctx.groupMap[node.index] = this.ctx.nextGroup++;
        return `(${this.alt(node.body)})`;
      }
      case 'group':
        return `(?:${this.alt(node.body)})`;
      case 'ahead':
        return `(?=${this.alt(node.body)})`;
      case 'notAhead':
        return `(?!${this.alt(node.body)})`;
      case 'behind':
      case 'notBehind': {
        const was = this.ctx.inBehind;
        this.ctx.inBehind = true;
        const body = this.alt(node.body);
        this.ctx.inBehind = was;
        return `(?<${node.kind === 'behind' ? '=' : '!'}${body})`;
      }
      case 'atomic':
        return this.atomic(() => this.alt(node.body));
    }
  }

  /** (?>X) as (?=(X))\n: the lookahead commits to X's first match, the backreference consumes it. */
  private atomic(body: () => string): string {
    if (this.ctx.inBehind) {
      throw new PcreSyntaxError('atomic groups and possessive quantifiers inside a lookbehind are not supported');
    }
    const n = this.ctx.nextGroup++;
    return `(?=(${body()}))(?:\\${n})`;
  }

  private quant(node: QuantNode, seq: Node[], k: number): string {
    const suffix =
      (node.min === 0 && node.max === Infinity
        ? '*'
        : node.min === 1 && node.max === Infinity
          ? '+'
          : node.min === 0 && node.max === 1
            ? '?'
            : node.max === Infinity
              ? `{${node.min},}`
              : node.min === node.max
                ? `{${node.min}}`
                : `{${node.min},${node.max}}`) + (node.lazy ? '?' : '');
    if (node.possessive && !possessiveMatters(node, seq, k)) {
      return this.quantBody(node.body) + suffix;
    }
    if (node.possessive) return this.atomic(() => this.quantBody(node.body) + suffix);
    return this.quantBody(node.body) + suffix;
  }

  private quantBody(body: Node): string {
    const src = this.node(body, [], 0);
    // JavaScript refuses to repeat `^`, `$` and lookbehinds directly; PCRE allows it.
    return body.t === 'assert' ? `(?:${src})` : src;
  }
}

/** The bytes a node can start with, and whether it can match without consuming a byte. */
function firstSet(node: Node): { set: ByteSet; nullable: boolean; endOnly: boolean } | undefined {
  switch (node.t) {
    case 'set':
      return { set: node.set, nullable: false, endOnly: false };
    case 'assert':
      return node.endOnly ? { set: emptySet(), nullable: false, endOnly: true } : undefined;
    case 'quant': {
      if (node.min === 0) return undefined;
      const f = firstSet(node.body);
      return f;
    }
    case 'group':
      if (node.kind !== 'group' && node.kind !== 'capture' && node.kind !== 'atomic') return undefined;
      return firstSet(node.body);
    case 'alt': {
      const set = emptySet();
      let endOnly = true;
      for (const seq of node.alts) {
        const head = seq[0];
        if (head === undefined) return undefined;
        const f = firstSet(head);
        if (!f || f.nullable) return undefined;
        addAll(set, f.set);
        endOnly = endOnly && f.endOnly;
      }
      return { set, nullable: false, endOnly };
    }
    case 'backref':
      return undefined;
  }
}

/**
 * A possessive repeat of one byte class behaves exactly like the greedy one when whatever follows
 * cannot start with a byte of that class (`\s*+;`, `\?+$`): giving a byte back could never let the
 * rest match. Then no helper group is needed.
 */
function possessiveMatters(node: QuantNode, seq: Node[], k: number): boolean {
  if (node.body.t !== 'set') return true;
  const next = seq[k + 1];
  if (next === undefined) return true;
  const f = firstSet(next);
  if (!f || f.nullable) return true;
  return !disjoint(node.body.set, f.set);
}

/** Walks the AST and reports whether JavaScript's `i` flag can stand for all caseless scopes. */
function canUseIFlag(root: AltNode): { possible: boolean; anyCaseless: boolean } {
  let possible = true;
  let anyCaseless = false;
  const visit = (node: Node): void => {
    switch (node.t) {
      case 'set':
        if (node.caseless) anyCaseless = true;
        if (!isJsCaseClosed(node.set)) possible = false;
        return;
      case 'backref':
        if (node.caseless) anyCaseless = true;
        else possible = false;
        return;
      case 'assert':
        return;
      case 'alt':
        for (const seq of node.alts) for (const n of seq) visit(n);
        return;
      case 'group':
        visit(node.body);
        return;
      case 'quant':
        visit(node.body);
        return;
    }
  };
  visit(root);
  return { possible, anyCaseless };
}

function hasCaselessBackref(root: AltNode): boolean {
  let found = false;
  const visit = (node: Node): void => {
    if (node.t === 'backref' && node.caseless) found = true;
    else if (node.t === 'alt') for (const seq of node.alts) for (const n of seq) visit(n);
    else if (node.t === 'group' || node.t === 'quant') visit(node.body);
  };
  visit(root);
  return found;
}

/**
 * Translates a PCRE pattern (as ModSecurity compiles it: 8-bit, no UTF) into a JavaScript RegExp
 * source and flags that match the same bytes of a binary string (one char per byte).
 *
 * Throws an Error naming the construct and its offset when the pattern cannot be translated
 * (recursion, conditionals, verbs, `\p`, `\K`, `\X`, code points above 0xFF, branch reset groups
 * with captures, atomic groups inside lookbehinds, caseless backreferences in a pattern that is
 * only partly caseless).
 */
export function translatePcre(pattern: string, options: PcreOptions = {}): TranslatedRegex {
  try {
    const parser = new Parser(pattern, options);
    const root = parser.parse();
    const { possible, anyCaseless } = canUseIFlag(root);
    // Caseless letters are written as classes ([Aa]) rather than with the `i` flag: V8's linear-time
    // engine, which takes over from runaway backtracking (see backtrack-guard.ts), cannot run `i`.
    // The flag is kept only where it is needed for correctness: caseless backreferences.
    const useI = possible && anyCaseless && hasCaselessBackref(root);
    if (!useI && hasCaselessBackref(root)) {
      throw new PcreSyntaxError(
        'a caseless backreference in a pattern that is only partly caseless (or caseless on Latin-1 letters) cannot be translated',
      );
    }
    const useS = options.dotall === true;
    const groupMap: number[] = [0];
    for (let n = 1; n <= parser.captureCount; n++) groupMap[n] = n;
    const ctx: EmitContext = { useI, useS, nextGroup: 1, groupMap, inBehind: false };
    // First pass assigns JavaScript group numbers (helper groups shift later captures); the second
    // writes backreferences with the final numbers.
    new Emitter(ctx).alt(root);
    const finalMap = [...ctx.groupMap];
    const ctx2: EmitContext = { useI, useS, nextGroup: 1, groupMap: finalMap, inBehind: false };
    const source = new Emitter(ctx2).alt(root);
    const flags = (useI ? 'i' : '') + (useS ? 's' : '');
    return { source, flags, groups: finalMap, required: useI ? undefined : requiredLiterals(root) };
  } catch (e) {
    if (e instanceof PcreSyntaxError) {
      throw new Error(
        `Cannot translate PCRE pattern /${pattern.length > 80 ? `${pattern.slice(0, 80)}...` : pattern}/: ${e.message}`,
        {
          cause: e,
        },
      );
    }
    throw e;
  }
}
