/**
 * %{...} macros: `%{tx.anomaly_score}`, `%{MATCHED_VAR}`, `%{REQUEST_HEADERS.host}`, `%{rule.id}`.
 * Split once at compile time; expanded by the transaction.
 */
import type { Macro, MacroPart } from './rule.ts';
import { lowerKey, variableName } from './variable-name.ts';

const MACRO = /%\{([^}]+)\}/g;

export function compileMacro(source: string): Macro {
  if (source.indexOf('%{') < 0) return { source, parts: [source], constant: true };
  const parts: MacroPart[] = [];
  let last = 0;
  for (const m of source.matchAll(MACRO)) {
    const at = m.index;
    if (at > last) parts.push(source.slice(last, at));
    const body = (m[1] ?? '').trim();
    const dot = body.search(/[.:]/);
    parts.push(
      dot < 0
        ? { collection: variableName(body), key: undefined, selector: undefined }
        : literalPart(variableName(body.slice(0, dot)), body.slice(dot + 1)),
    );
    last = at + m[0].length;
  }
  if (last < source.length) parts.push(source.slice(last));
  return { source, parts, constant: false };
}

function literalPart(collection: string, key: string): MacroPart {
  return { collection, key, selector: { kind: 'literal', value: key, lower: lowerKey(key) } };
}
