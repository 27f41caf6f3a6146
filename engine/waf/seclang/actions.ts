/**
 * Action lists: `id:1,phase:2,t:none,msg:'a, b',setvar:'tx.x=+%{tx.y}',chain`. Commas inside
 * single quotes do not split. Names are matched case-insensitively and come out in the canonical
 * spelling of the table below (`skipAfter`, `logdata`, `multiMatch`), so the engine compares exact
 * strings. A value keeps its text as written apart from the surrounding single quotes and blanks,
 * and, inside the quotes, the escapes `\'` and `\\`.
 */
import type { ParsedAction } from '../types.ts';
import { failure, type ProblemFailure } from '../problems.ts';

type Arity = 'none' | 'required' | 'optional';

/** Every action of ModSecurity v3 and what it takes. */
const ACTION_TABLE: readonly (readonly [string, Arity])[] = [
  ['accuracy', 'required'],
  ['allow', 'optional'],
  ['append', 'required'],
  ['auditlog', 'none'],
  ['block', 'none'],
  ['capture', 'none'],
  ['chain', 'none'],
  ['ctl', 'required'],
  ['deny', 'none'],
  ['deprecatevar', 'required'],
  ['drop', 'none'],
  ['exec', 'required'],
  ['expirevar', 'required'],
  ['id', 'required'],
  ['initcol', 'required'],
  ['log', 'none'],
  ['logdata', 'required'],
  ['maturity', 'required'],
  ['msg', 'required'],
  ['multiMatch', 'none'],
  ['noauditlog', 'none'],
  ['nolog', 'none'],
  ['pass', 'none'],
  ['pause', 'required'],
  ['phase', 'required'],
  ['prepend', 'required'],
  ['proxy', 'required'],
  ['redirect', 'required'],
  ['rev', 'required'],
  ['sanitiseArg', 'required'],
  ['sanitiseMatched', 'none'],
  ['sanitiseMatchedBytes', 'optional'],
  ['sanitiseRequestHeader', 'required'],
  ['sanitiseResponseHeader', 'required'],
  ['setenv', 'required'],
  ['setrsc', 'required'],
  ['setsid', 'required'],
  ['setuid', 'required'],
  ['setvar', 'required'],
  ['severity', 'required'],
  ['skip', 'required'],
  ['skipAfter', 'required'],
  ['status', 'required'],
  ['t', 'required'],
  ['tag', 'required'],
  ['ver', 'required'],
  ['xmlns', 'required'],
];

const ACTIONS = new Map(ACTION_TABLE.map(([name, arity]) => [name.toLowerCase(), { name, arity }]));

/** Canonical action names (`skipAfter`, `t`, ...). */
export const ACTION_NAMES: readonly string[] = ACTION_TABLE.map(([name]) => name);

export type ActionsResult = { ok: true; actions: ParsedAction[] } | ProblemFailure;

/** Parses a comma-separated action list (the text between the quotes of the actions argument). */
export function parseActions(text: string): ActionsResult {
  const actions: ParsedAction[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && /\s/.test(text[i] ?? '')) i++;
    if (i >= n) break;
    if (text[i] === ',') {
      // Tolerated like ModSecurity: an empty element (`a,,b` or a trailing comma).
      i++;
      continue;
    }
    const nameStart = i;
    while (i < n && text[i] !== ':' && text[i] !== ',') i++;
    const rawName = text.slice(nameStart, i).trim();
    const def = ACTIONS.get(rawName.toLowerCase());
    if (!def) return failure('unknown_action', { action: rawName }, `unknown action ${JSON.stringify(rawName)}`);
    let value: string | undefined;
    if (text[i] === ':') {
      i++;
      while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
      if (text[i] === "'") {
        let v = '';
        let closed = false;
        i++;
        while (i < n) {
          const ch = text[i];
          // ModSecurity v2's quoted values: `\'` and `\\` are escapes, any other backslash stays.
          if (ch === '\\' && (text[i + 1] === "'" || text[i + 1] === '\\')) {
            v += text[i + 1];
            i += 2;
            continue;
          }
          if (ch === "'") {
            closed = true;
            i++;
            break;
          }
          v += ch;
          i++;
        }
        if (!closed) {
          return failure(
            'unterminated_action_quote',
            { action: def.name },
            `unterminated single quote in the value of ${def.name}`,
          );
        }
        while (i < n && /\s/.test(text[i] ?? '')) i++;
        if (i < n && text[i] !== ',') {
          return failure(
            'action_text_after_quote',
            { action: def.name, text: text.slice(i, i + 20) },
            `unexpected text after the quoted value of ${def.name}: ${JSON.stringify(text.slice(i, i + 20))}`,
          );
        }
        value = v;
      } else {
        const start = i;
        while (i < n && text[i] !== ',') i++;
        value = text.slice(start, i).trim();
      }
    }
    if (def.arity === 'required' && (value === undefined || value === '')) {
      return failure(
        'action_value_missing',
        { action: def.name },
        `action ${def.name} needs a value (${def.name}:...)`,
      );
    }
    if (def.arity === 'none' && value !== undefined) {
      return failure(
        'action_value_unexpected',
        { action: def.name, value },
        `action ${def.name} takes no value (got ${JSON.stringify(value)})`,
      );
    }
    actions.push(value === undefined ? { name: def.name } : { name: def.name, value });
    if (text[i] === ',') i++;
  }
  return { ok: true, actions };
}

/** The first value of an action in a list (`id`, `msg`, `phase`), or undefined. */
export function actionValue(actions: readonly ParsedAction[], name: string): string | undefined {
  return actions.find((a) => a.name === name)?.value;
}

/** Whether a list holds an action (`chain`, `nolog`). */
export function hasAction(actions: readonly ParsedAction[], name: string): boolean {
  return actions.some((a) => a.name === name);
}
