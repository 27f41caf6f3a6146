/**
 * The PCRE parser: a pattern as ModSecurity compiles it (8-bit, non-UTF, with the host's PCRE_*
 * options and inline flags) to the AST of pcre-ast.ts, with byte sets for every class, escape and
 * literal (caseless ones closed over ASCII case). Throws PcreSyntaxError for what it cannot read.
 */
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
  emptySet,
  rangeSet,
  setOf,
} from './byte-set.ts';
import type { AltNode, BackrefNode, GroupKind, Node, SetNode } from './pcre-ast.ts';

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

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
  U: boolean;
}

/** A construct the translation cannot handle; translatePcre reports it with the pattern. */
export class PcreSyntaxError extends Error {}

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

export class Parser {
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
