/**
 * Variable names as the engine compares them: upper-case and, for the names ModSecurity knows,
 * the very string constant of the variable table. The transaction dispatches on names with
 * `switch`; V8 compares internalised constants by identity, other strings character by character,
 * which made name dispatch a visible share of every rule.
 */
import { VARIABLES } from '#engine/waf/seclang';

const CANONICAL = new Map<string, string>([...VARIABLES.keys()].map((k) => [k, k]));

export function variableName(written: string): string {
  const upper = written.toUpperCase();
  return CANONICAL.get(upper) ?? upper;
}

const KEYS = new Map<string, string>();

/**
 * A collection key lower-cased, one string object per content: keys written in rules (`TX:foo`,
 * `setvar:tx.foo`, `%{tx.foo}`) then meet in the transaction's maps by identity, which V8 checks
 * before comparing characters.
 */
export function lowerKey(key: string): string {
  const lower = key.toLowerCase();
  let shared = KEYS.get(lower);
  if (shared === undefined) {
    shared = lower;
    KEYS.set(lower, shared);
  }
  return shared;
}
