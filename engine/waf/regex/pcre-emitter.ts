/**
 * The emitter: the AST back to JavaScript RegExp source that matches the same bytes without the
 * `u` flag. Byte sets as classes of \xHH ranges, atomic groups and possessive quantifiers as
 * lookahead-and-backreference helper groups (with PCRE's group numbers mapped to the shifted
 * JavaScript ones), caseless scopes as case-closed classes unless the `i` flag is in force.
 */
import { type ByteSet, DIGIT, WORD, complement, count, equals } from './byte-set.ts';
import type { AltNode, GroupNode, Node, QuantNode } from './pcre-ast.ts';
import { PcreSyntaxError } from './pcre-parser.ts';
import { possessiveMatters } from './pcre-analysis.ts';

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

export interface EmitContext {
  /** JavaScript `i` flag in force: sets are case-closed and may be written with lower case only. */
  useI: boolean;
  /** JavaScript `s` flag in force. */
  useS: boolean;
  /** Next JavaScript group number. */
  nextGroup: number;
  groupMap: number[];
  inBehind: boolean;
}

export class Emitter {
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
