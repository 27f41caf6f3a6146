/**
 * SecLang lexing: physical lines to logical lines (comments, backslash-newline continuations), and
 * a logical line to words (bare, "double-quoted", 'single-quoted').
 *
 * Words follow Apache's directive arguments (`ap_getword_conf`), which is how ModSecurity v2 and
 * the Core Rule Set it ships for read them: a quoted word runs to the matching quote and turns
 * `\\` into `\` and `\<its quote>` into the quote; a bare word runs to the next blank and turns
 * `\\` into `\`. Every other backslash stays, for the operator (`\d`, `\/`, `\'` in "..."). So
 * CRS's `"@rx (?:^|[^\\\\])\\\\[c-z]"` is the regex `(?:^|[^\\])\\[c-z]`: one backslash.
 *
 * Continuations follow Apache's config reader: the backslash and the line break are removed and the
 * next line's indentation is kept, so `"id:1,\<newline>    phase:2"` reads `id:1,    phase:2` (the
 * action parser trims around commas). A comment is a line whose first non-blank character is `#`;
 * like ModSecurity v3 it ends at its own line break even when it ends with a backslash, so a
 * commented-out multi-line rule never swallows the directive after it.
 */
import { failure, type ProblemFailure } from '../problems.ts';

export interface LogicalLine {
  text: string;
  /** 1-based line where the logical line starts. */
  line: number;
}

export interface Word {
  /** The word with its outer quotes removed and its escapes (`\\`, `\"` or `\'` inside the quotes) resolved. */
  value: string;
  /** Which quote enclosed the whole word, if any. */
  quote: '"' | "'" | null;
  /** Offset of the word in the logical line (for messages). */
  offset: number;
}

export type LexResult = { ok: true; words: Word[] } | ProblemFailure;

/** Splits SecLang text into logical lines, dropping comments and blank lines. */
export function logicalLines(text: string): LogicalLine[] {
  const physical = text.split('\n');
  const out: LogicalLine[] = [];
  let current: string | null = null;
  let start = 0;
  for (let i = 0; i < physical.length; i++) {
    let raw = physical[i] ?? '';
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (current === null) {
      const trimmed = raw.trimStart();
      if (trimmed === '' || trimmed.startsWith('#')) continue;
      start = i + 1;
      current = '';
    }
    const continued = endsWithContinuation(raw);
    current += continued ? raw.slice(0, -1) : raw;
    if (!continued) {
      out.push({ text: current.trim(), line: start });
      current = null;
    }
  }
  // A continuation on the last line of the file simply ends the directive.
  if (current !== null && current.trim() !== '') out.push({ text: current.trim(), line: start });
  return out;
}

/** A trailing backslash continues the line unless it is itself escaped (`\\`). */
function endsWithContinuation(raw: string): boolean {
  let n = 0;
  for (let i = raw.length - 1; i >= 0 && raw[i] === '\\'; i--) n++;
  return n % 2 === 1;
}

const SPACE = /[ \t\f\v]/;

/**
 * Splits a logical line into words. A word that starts with a quote runs to the matching unescaped
 * quote; a bare word runs to the next blank, but a quote inside it (`TX:'/a b/'`) opens a section
 * that may hold blanks and is kept, quotes included, for the variable parser to read.
 */
export function splitWords(text: string): LexResult {
  const words: Word[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && SPACE.test(text[i] ?? '')) i++;
    if (i >= n) break;
    const start = i;
    const c = text[i];
    if (c === '"' || c === "'") {
      let value = '';
      i++;
      let closed = false;
      while (i < n) {
        const ch = text[i];
        if (ch === '\\' && (text[i + 1] === c || text[i + 1] === '\\')) {
          value += text[i + 1];
          i += 2;
          continue;
        }
        if (ch === c) {
          closed = true;
          i++;
          break;
        }
        value += ch;
        i++;
      }
      if (!closed) return unterminated(c, start);
      if (i < n && !SPACE.test(text[i] ?? '')) {
        return failure(
          'text_after_quote',
          { column: i + 1, text: snippet(text.slice(i)) },
          `unexpected text after the closing quote at column ${i + 1}: ${snippet(text.slice(i))}`,
        );
      }
      words.push({ value, quote: c, offset: start });
      continue;
    }
    let value = '';
    while (i < n && !SPACE.test(text[i] ?? '')) {
      const ch = text[i] ?? '';
      if (ch === "'" || ch === '"') {
        const close = findClosingQuote(text, i + 1, ch);
        if (close < 0) return unterminated(ch, i);
        value += unescapeBackslashes(text.slice(i, close + 1));
        i = close + 1;
        continue;
      }
      if (ch === '\\' && text[i + 1] === '\\') {
        value += '\\';
        i += 2;
        continue;
      }
      value += ch;
      i++;
    }
    words.push({ value, quote: null, offset: start });
  }
  return { ok: true, words };
}

function unterminated(quote: string, at: number): ProblemFailure {
  const kind = quote === '"' ? 'double' : 'single';
  return failure(
    'unterminated_quote',
    { quote: kind, column: at + 1 },
    `unterminated ${kind} quote (opened at column ${at + 1})`,
  );
}

/** `\\` to `\`, as Apache does throughout a bare word (a quoted section inside one included). */
function unescapeBackslashes(text: string): string {
  return text.includes('\\\\') ? text.replace(/\\\\/g, '\\') : text;
}

/** Index of the quote closing a section opened just before `from`, skipping `\<quote>` and `\\`; -1 if none. */
export function findClosingQuote(text: string, from: number, quote: string): number {
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\' && (text[i + 1] === quote || text[i + 1] === '\\')) {
      i++;
      continue;
    }
    if (ch === quote) return i;
  }
  return -1;
}

/** A short excerpt of source text for error messages. */
export function snippet(text: string, max = 40): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max)}...` : one;
}
