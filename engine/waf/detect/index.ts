/**
 * Tokenizer-based injection detectors behind `@detectSQLi` and `@detectXSS`: our own design, in the
 * spirit of libinjection (tokenize, fold, compare with attack shapes) but not a port of it.
 *
 * Contract: inputs are binary strings (one char per byte). Both functions are total (never throw),
 * read each input a bounded number of times with a bounded number of tokens, and allocate little.
 * `detectSqli` reports the fingerprint that matched ('' when none did) for logging as TX:0.
 */
import { detectSqliIn } from './sqli.ts';
import { detectXssIn } from './xss.ts';

export function detectSqli(input: string): { matched: boolean; fingerprint: string } {
  try {
    return detectSqliIn(input);
  } catch {
    // Unreachable by construction; a detector must never take the request down with it.
    return { matched: false, fingerprint: '' };
  }
}

export function detectXss(input: string): boolean {
  try {
    return detectXssIn(input);
  } catch {
    return false;
  }
}
