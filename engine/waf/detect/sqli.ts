/**
 * SQL injection detection: fingerprint the value in each quote context it could have been spliced
 * into, and test each fingerprint against the injection shapes.
 */
import { matchesShape } from './sql-shapes.ts';
import { isSqlStatement } from './sql-statements.ts';
import { SqlLexer, type QuoteContext } from './sql-tokenizer.ts';

/** Fingerprint length kept; shapes are anchored and none needs more. */
export const FINGERPRINT_MAX = 12;
/** Raw tokens read per context at most (folding drops some), bounding the work on any input. */
export const TOKENS_MAX = 64;

const lexer = new SqlLexer();

/** Kinds after which an operator that can be unary is unary (and left out of the fingerprint). */
const UNARY_AFTER = 'o=&(,;kEUB';

/**
 * The folded fingerprint of `input` in a quote context: whitespace and closed comments dropped,
 * unary operators dropped, runs of operators and of strings folded into one.
 */
export function sqlFingerprint(input: string, context: QuoteContext): string {
  lexer.reset(input, context);
  let fp = '';
  let prev = '';
  for (let i = 0; i < TOKENS_MAX && fp.length < FINGERPRINT_MAX; i++) {
    const kind = lexer.next();
    if (kind === '') break;
    if (kind === 'o' && (prev === 'o' || (lexer.unary && (prev === '' || UNARY_AFTER.includes(prev))))) continue;
    if (kind === 's' && prev === 's') continue;
    fp += kind;
    prev = kind;
    if (kind === 'X') break;
  }
  return fp;
}

export interface SqliResult {
  matched: boolean;
  /** The fingerprint that matched, or '' when none did. */
  fingerprint: string;
}

/** Whether the quote that ends the value's first string in `context` follows a non-space byte. */
function breaksOutAfterValue(input: string, quote: string): boolean {
  const at = input.indexOf(quote);
  if (at <= 0) return at === 0;
  const c = input.charCodeAt(at - 1);
  return c > 0x20 && c !== 0xa0;
}

export function detectSqliIn(input: string): SqliResult {
  if (input.length === 0) return { matched: false, fingerprint: '' };
  let fp = sqlFingerprint(input, 'none');
  if (matchesShape(fp, 'bare')) return { matched: true, fingerprint: fp };
  // A value that opens with a statement keyword may be a whole statement (read by its grammar).
  if (opensWithStatement(fp) && isSqlStatement(input)) return { matched: true, fingerprint: fp };
  for (const [quote, context] of QUOTES) {
    if (!input.includes(quote)) continue;
    fp = sqlFingerprint(input, context);
    if (matchesShape(fp, breaksOutAfterValue(input, quote) ? 'quoted-after-value' : 'quoted')) {
      return { matched: true, fingerprint: fp };
    }
  }
  return { matched: false, fingerprint: '' };
}

/** The fingerprint opens with a statement keyword, or UNION, after any `(`. */
function opensWithStatement(fp: string): boolean {
  let i = 0;
  while (fp.charCodeAt(i) === 0x28) i++;
  const c = fp.charCodeAt(i);
  return c === 0x45 || c === 0x55; // E, U
}

const QUOTES: readonly (readonly [string, QuoteContext])[] = [
  ["'", 'single'],
  ['"', 'double'],
];
