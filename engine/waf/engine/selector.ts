/**
 * Variable selectors as compiled: key selectors (`ARGS:foo`, `TX:/^header_name_/`, with the plain
 * literal a regex key needs), and targets written as text in ctl and SecRuleUpdateTarget
 * (`!ARGS:foo`, `&TX:/re/`).
 */
import type { VariableSelector } from '../types.ts';
import type { CompiledVariable, KeySelector } from './rule.ts';
import { lowerKey, variableName } from './variable-name.ts';

export function regexKey(source: string): KeySelector {
  return { kind: 'regex', re: new RegExp(source, 'i'), source, literal: keyLiteral(source) };
}

/**
 * The plain prefix of a key regex (after `^`), lower-cased, when every match must contain it:
 * `^header_name_` gives `header_name_`, `MULTIPART_HEADERS_CONTENT_TYPES_*` gives
 * `multipart_headers_content_types`. None with an alternation anywhere. The regex is
 * case-insensitive without the u flag, which folds ASCII letters only to ASCII, so a matching
 * key lower-cased contains the literal; the transaction skips other keys without running it.
 */
export function keyLiteral(source: string): string | undefined {
  if (source.includes('|')) return undefined;
  let i = source.startsWith('^') ? 1 : 0;
  const from = i;
  while (i < source.length && /[A-Za-z0-9_-]/.test(source[i] as string)) i++;
  let end = i;
  const next = source[i];
  if (next === '*' || next === '?' || next === '{' || next === '+') end--;
  return end - from >= 2 ? source.slice(from, end).toLowerCase() : undefined;
}

/** Parses a key selector: `foo`, `/regex/`, `'/regex/'`. Regex keys are case-insensitive as in ModSecurity. */
export function compileKey(key: VariableSelector['key']): KeySelector | undefined {
  if (key === undefined) return undefined;
  if (key.kind === 'regex') return regexKey(key.source);
  return { kind: 'literal', value: key.value, lower: lowerKey(key.value) };
}

/** Parses a target written in a ctl or SecRuleUpdateTarget: `ARGS:foo`, `!ARGS:/re/`, `REQUEST_COOKIES`. */
export function parseTarget(text: string): CompiledVariable & { exclude: boolean } {
  let t = text.trim();
  let exclude = false;
  let count = false;
  if (t.startsWith('!')) {
    exclude = true;
    t = t.slice(1);
  }
  if (t.startsWith('&')) {
    count = true;
    t = t.slice(1);
  }
  const colon = t.indexOf(':');
  const name = variableName(colon < 0 ? t : t.slice(0, colon));
  let rawKey = colon < 0 ? undefined : t.slice(colon + 1);
  if (rawKey !== undefined && rawKey.length >= 2 && rawKey.startsWith("'") && rawKey.endsWith("'")) {
    rawKey = rawKey.slice(1, -1);
  }
  let key: KeySelector | undefined;
  if (rawKey !== undefined && rawKey.length > 0) {
    key =
      rawKey.length >= 2 && rawKey.startsWith('/') && rawKey.endsWith('/')
        ? regexKey(rawKey.slice(1, -1))
        : { kind: 'literal', value: rawKey, lower: lowerKey(rawKey) };
  }
  return { name, key, count, exclude };
}
