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
