/**
 * ModSecurity-style error-log lines, so CRS's own test runner (go-ftw) can read Rampart's log:
 * it looks for `[id "942100"]` per matched rule and for the X-CRS-Test marker rule's line.
 */
import type { MatchedRule } from '../types.ts';
import type { CompiledOperator, CompiledRule } from './rule.ts';

export interface LogLineInput {
  rule: CompiledRule;
  match: MatchedRule;
  operator: CompiledOperator | undefined;
  value: string;
  /** Status when the rule interrupted the transaction. */
  disruptive: number | undefined;
  host: string;
  uri: string;
  uniqueId: string;
}

/** Escapes a binary string for one log line: quotes and control bytes as \xNN. */
function esc(s: string): string {
  let out = '';
  const n = Math.min(s.length, 1024);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    out += c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x7f ? `\\x${c.toString(16).padStart(2, '0')}` : s[i];
  }
  return s.length > n ? out + '...' : out;
}

export function formatLogLine(x: LogLineInput): string {
  const op = x.operator;
  const head =
    x.disruptive !== undefined ? `Access denied with code ${x.disruptive} (phase ${x.rule.phase})` : 'Warning';
  const what = op
    ? `Matched "Operator \`${op.name}' with parameter \`${esc(op.argument)}' against variable \`${esc(x.match.variable)}' (Value: \`${esc(x.value)}' )`
    : 'Unconditional match in SecAction.';
  const tags = x.match.tags.map((t) => ` [tag "${esc(t)}"]`).join('');
  return (
    `ModSecurity: ${head}. ${what} [file "${x.rule.file}"] [line "${x.rule.line}"] [id "${x.rule.id}"] [rev "${esc(x.rule.rev)}"]` +
    ` [msg "${esc(x.match.message)}"] [data "${esc(x.match.data)}"] [severity "${esc(x.rule.severity)}"] [ver "${esc(x.rule.ver)}"]` +
    ` [maturity "${esc(x.rule.maturity)}"] [accuracy "${esc(x.rule.accuracy)}"]${tags} [hostname "${esc(x.host)}"] [uri "${esc(x.uri)}"]` +
    ` [unique_id "${x.uniqueId}"]`
  );
}
