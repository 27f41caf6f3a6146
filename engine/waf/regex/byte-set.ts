/**
 * Sets of bytes (0 to 255), the unit every character class, escape and literal is reduced to
 * before it is written back out as JavaScript. Working on explicit byte sets is what lets the
 * translation be exact on binary strings: PCRE's C-locale `\s`, `\v`, `[:punct:]`, caseless
 * scopes and negated classes all become plain membership, whatever JavaScript's own
 * (Unicode-flavoured) meaning of the same escape is.
 */

export type ByteSet = Uint8Array;

export function emptySet(): ByteSet {
  return new Uint8Array(256);
}

export function setOf(...codes: number[]): ByteSet {
  const s = emptySet();
  for (const c of codes) s[c] = 1;
  return s;
}

export function rangeSet(from: number, to: number): ByteSet {
  const s = emptySet();
  for (let c = from; c <= to; c++) s[c] = 1;
  return s;
}

export function addAll(target: ByteSet, source: ByteSet): void {
  for (let c = 0; c < 256; c++) if (source[c]) target[c] = 1;
}

export function complement(s: ByteSet): ByteSet {
  const out = emptySet();
  for (let c = 0; c < 256; c++) out[c] = s[c] ? 0 : 1;
  return out;
}

export function count(s: ByteSet): number {
  let n = 0;
  for (let c = 0; c < 256; c++) n += s[c] ?? 0;
  return n;
}

export function equals(a: ByteSet, b: ByteSet): boolean {
  for (let c = 0; c < 256; c++) if (a[c] !== b[c]) return false;
  return true;
}

export function disjoint(a: ByteSet, b: ByteSet): boolean {
  for (let c = 0; c < 256; c++) if (a[c] && b[c]) return false;
  return true;
}

/** PCRE caseless matching with its default (C locale) tables folds ASCII letters only. */
export function asciiCaseClosure(s: ByteSet): ByteSet {
  const out = Uint8Array.from(s);
  for (let c = 0x41; c <= 0x5a; c++) {
    if (s[c] || s[c + 0x20]) {
      out[c] = 1;
      out[c + 0x20] = 1;
    }
  }
  return out;
}

/**
 * The partner JavaScript's non-Unicode `i` flag gives a byte (its Canonicalize on code units
 * 0 to 255), or -1. Beyond ASCII letters this pairs Latin-1 letters 0xC0-0xDE with 0xE0-0xFE,
 * which PCRE's C-locale tables do not: a set that separates such a pair cannot use the flag.
 */
export function jsCasePartner(c: number): number {
  if (c >= 0x41 && c <= 0x5a) return c + 0x20;
  if (c >= 0x61 && c <= 0x7a) return c - 0x20;
  if (c >= 0xc0 && c <= 0xde && c !== 0xd7) return c + 0x20;
  if (c >= 0xe0 && c <= 0xfe && c !== 0xf7) return c - 0x20;
  return -1;
}

/** True when JavaScript's `i` flag would not change which bytes the set matches. */
export function isJsCaseClosed(s: ByteSet): boolean {
  for (let c = 0; c < 256; c++) {
    const p = jsCasePartner(c);
    if (p >= 0 && s[c] !== s[p]) return false;
  }
  return true;
}

export const DIGIT = rangeSet(0x30, 0x39);
export const WORD = (() => {
  const s = rangeSet(0x30, 0x39);
  addAll(s, rangeSet(0x41, 0x5a));
  addAll(s, rangeSet(0x61, 0x7a));
  s[0x5f] = 1;
  return s;
})();
/** PCRE `\s` (since 8.34, and PCRE2): HT, LF, VT, FF, CR, space. Not NBSP in the C locale. */
export const SPACE = setOf(0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20);
/** PCRE `\h` in 8-bit non-UTF mode: HT, space, NBSP. */
export const HSPACE = setOf(0x09, 0x20, 0xa0);
/** PCRE `\v` in 8-bit non-UTF mode: LF, VT, FF, CR, NEL (not JavaScript's `\v`, which is VT only). */
export const VSPACE = setOf(0x0a, 0x0b, 0x0c, 0x0d, 0x85);

const alpha = (() => {
  const s = rangeSet(0x41, 0x5a);
  addAll(s, rangeSet(0x61, 0x7a));
  return s;
})();
const punct = (() => {
  const s = rangeSet(0x21, 0x2f);
  addAll(s, rangeSet(0x3a, 0x40));
  addAll(s, rangeSet(0x5b, 0x60));
  addAll(s, rangeSet(0x7b, 0x7e));
  return s;
})();
const alnum = (() => {
  const s = Uint8Array.from(alpha);
  addAll(s, DIGIT);
  return s;
})();
const xdigit = (() => {
  const s = Uint8Array.from(DIGIT);
  addAll(s, rangeSet(0x41, 0x46));
  addAll(s, rangeSet(0x61, 0x66));
  return s;
})();
const cntrl = (() => {
  const s = rangeSet(0x00, 0x1f);
  s[0x7f] = 1;
  return s;
})();

/** POSIX classes inside brackets (`[[:alpha:]]`), C locale. */
export const POSIX_CLASSES: ReadonlyMap<string, ByteSet> = new Map([
  ['alpha', alpha],
  ['digit', DIGIT],
  ['alnum', alnum],
  ['upper', rangeSet(0x41, 0x5a)],
  ['lower', rangeSet(0x61, 0x7a)],
  ['space', SPACE],
  ['blank', setOf(0x09, 0x20)],
  ['punct', punct],
  ['print', rangeSet(0x20, 0x7e)],
  ['graph', rangeSet(0x21, 0x7e)],
  ['cntrl', cntrl],
  ['xdigit', xdigit],
  ['word', WORD],
  ['ascii', rangeSet(0x00, 0x7f)],
]);
