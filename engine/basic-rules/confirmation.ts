import { detectSqli, detectXss, type MatchedRule } from '#engine/waf';

/**
 * The tokenizer check of level-2 SQL injection and XSS matches (issue 18). CRS's level-2 rules of
 * these families are regexes that fire on prose with apostrophes, on words such as "select" or
 * "union" in a sentence and on rich-text markup; our tokenizers (engine/waf/detect) read the matched
 * value as SQL or HTML would. A match whose value holds no SQL, no script, no template or call
 * syntax (CODE_SYNTAX) and, for SQL, no fragment's SQL punctuation (SQL_SYNTAX) is not counted: its
 * points come off the anomaly score. A match on a capture (`TX:1`) is never checked.
 *
 * - At protection level `normal` it is part of the level: a group at normal runs its level-2 SQL
 *   and XSS rules with this check (basic-rules-service.ts). At strict and very strict every match
 *   counts as CRS wrote it.
 * - The second opinion (second-opinion.ts) applies it to every level-2-or-above match of these
 *   families that the level did not check already.
 */

/** What the check says of one match, as the access record words it. */
export interface TokenizerSignal {
  kind: 'tokenizer';
  /** The points taken off (negative), or 0 when the tokenizer confirmed the match. */
  points: number;
  /** `942260 ARGS:q: no SQL`, `941320 ARGS:bio: script confirmed`. */
  detail: string;
}

/** The CRS family a rule is checked in, from its tags; null for a family without a tokenizer. */
export type CheckedFamily = 'sqli' | 'xss';

export function familyOf(tags: readonly string[]): CheckedFamily | null {
  if (tags.includes('attack-sqli')) return 'sqli';
  if (tags.includes('attack-xss')) return 'xss';
  return null;
}

/**
 * The family a match is checked in, or null when it is not checked: no tokenizer for its family,
 * or it matched a capture (`TX:1`, CRS 4's chained 942130 / 942131 / 942521), a piece of the value
 * (`1`, `or`) that says nothing without the rest, so the match counts as CRS wrote it.
 */
export function checkedFamily(match: MatchedRule): CheckedFamily | null {
  return match.variable.startsWith('TX:') ? null : familyOf(match.tags);
}

const PARANOIA_TAG = 'paranoia-level/';

/** A rule's paranoia level from its tags (CRS tags every rule above level 1; untagged is level 1). */
export function ruleParanoia(tags: readonly string[]): number {
  for (const tag of tags) {
    if (tag.startsWith(PARANOIA_TAG)) {
      const level = Number(tag.slice(PARANOIA_TAG.length));
      if (Number.isInteger(level) && level >= 1) return level;
    }
  }
  return 1;
}

/** Points of a match, as CRS adds them by severity (critical 5, error 4, warning 3, notice 2). */
export const SEVERITY_POINTS: Readonly<Record<string, number>> = {
  CRITICAL: 5,
  '2': 5,
  ERROR: 4,
  '3': 4,
  WARNING: 3,
  '4': 3,
  NOTICE: 2,
  '5': 2,
};

/**
 * Template and expression syntax (`{{ }}`, `{% %}`, `${ }`, `#{ }`, `<% %>`), a call on a call's
 * result (`require('x').exec(`) and dunder names (`__class__`): server-side template injection and
 * JavaScript payloads that CRS's level-2 SQL and XSS regexes catch only in passing. Our tokenizers
 * rightly find no SQL or HTML in them, so a value that carries them is never cleared.
 */
const CODE_SYNTAX = /\{\{|\{%|\$\{|#\{|<%|\)\s*\.\s*[A-Za-z_$][\w$]*\s*\(|__[A-Za-z]\w*__/;

/**
 * SQL that a level-2 rule's match may hold only in part, so that the tokenizer, which reads a whole
 * statement or expression, does not see it: a hex literal, a PostgreSQL cast to a type, a comment
 * closing the value after a quote or a number, an inline comment glued to a word, a back-quoted
 * `schema`.`table`, a sub-select, time and file functions, system variables and catalogue names,
 * INTO OUTFILE, UNION / EXCEPT with a select list, and a statement after a semicolon. Each shape
 * asks for SQL punctuation next to the keyword, so prose ("select one (or more)", "Done; update me
 * later", "std::vector") does not carry it. Measured on the CRS regression cases' level-2 matches
 * the tokenizer does not confirm (CRS 3.3 and 4.25): 17 % of them carry one; on the benign corpus of
 * bench/eval, none.
 */
const SQL_SYNTAX = new RegExp(
  [
    String.raw`(?:^|[\s(,=])0x[0-9a-f]{6,}`,
    String.raw`::\s*(?:int|integer|bigint|text|varchar|char|numeric|bool|boolean|bytea|date|regclass|oid)\b`,
    String.raw`['";)]\s*(?:--|#)[^\n]{0,3}$`,
    String.raw`\b\d+\s*(?:--|#)\s*$`,
    String.raw`\w\/\*|\*\/\w|\/\*!`,
    String.raw`\`[^\`]+\`\s*\.\s*\``,
    String.raw`\(\s*select\s+(?:\*|null\b|\d|@@|[\w.]+\s*(?:,|\(|from\b))`,
    String.raw`\b(?:benchmark|pg_sleep|extractvalue|updatexml|load_file|lo_get|utl_inaddr\.\w+|dbms_pipe\.\w+)\s*\(`,
    String.raw`\bsleep\s*\(\s*\d+\s*\)`,
    String.raw`\bwaitfor\s+delay\s*'`,
    String.raw`@@[a-z_]{3,}`,
    String.raw`\b(?:xp_cmdshell|information_schema|sysobjects|syscolumns|msdasql|sqlite_master|pg_catalog|nvarchar)\b`,
    String.raw`\binto\s+(?:out|dump)file\b`,
    String.raw`\b(?:union|except|intersect)(?:\s+all|\s+distinct)?[\s\/*(]+(?:select\s*(?:\*|null\b|\d|@@|0x|char\s*\(|concat\s*\(|[\w.]+\s*,)|values\s*\()`,
    String.raw`;\s*(?:declare\s+@|drop\s+(?:table|database)\b|shutdown\b|exec(?:ute)?\s+(?:xp_|sp_|master\.)|insert\s+into\b|update\s+\w+\s+set\b|delete\s+from\b|select\s+(?:\*|null\b|\d|@@|[\w.]+\s*,))`,
  ].join('|'),
  'i',
);

/** The tokenizer's word on one match of a checked family: the points it takes off and why. */
export function checkMatch(match: MatchedRule, family: CheckedFamily, points: number): TokenizerSignal {
  const value = match.value;
  const found = (family === 'sqli' ? detectSqli(value).matched : detectXss(value))
    ? family === 'sqli'
      ? 'SQL'
      : 'script'
    : CODE_SYNTAX.test(value)
      ? 'template or call syntax'
      : family === 'sqli' && SQL_SYNTAX.test(value)
        ? 'SQL syntax'
        : null;
  return found === null
    ? {
        kind: 'tokenizer',
        points: -points,
        detail: `${match.id} ${match.variable}: no ${family === 'sqli' ? 'SQL' : 'script'}`,
      }
    : { kind: 'tokenizer', points: 0, detail: `${match.id} ${match.variable}: ${found} confirmed` };
}

/** What the level's check made of a blocked request. */
export interface LevelCheck {
  /** The anomaly score after the check. */
  score: number;
  /** Whether the request is still blocked (the score still reaches the threshold). */
  blocked: boolean;
  signals: TokenizerSignal[];
  /** The matches the check looked at (the second opinion does not check them again). */
  checked: ReadonlySet<MatchedRule>;
  /** The matches it took the points of. */
  cleared: readonly MatchedRule[];
}

/**
 * Checks the level-2 SQL and XSS matches of the groups `atNormal` names (CRS file numbers, `942`);
 * null when none of the matches is one of them.
 */
export function checkAtNormal(
  matched: readonly MatchedRule[],
  score: number,
  threshold: number,
  atNormal: ReadonlySet<string>,
): LevelCheck | null {
  let checked: Set<MatchedRule> | undefined;
  const signals: TokenizerSignal[] = [];
  const cleared: MatchedRule[] = [];
  for (const match of matched) {
    if (!atNormal.has(match.id.slice(0, 3))) continue;
    const points = SEVERITY_POINTS[match.severity.toUpperCase()];
    if (points === undefined || ruleParanoia(match.tags) < 2) continue;
    const family = checkedFamily(match);
    if (family === null) continue;
    const signal = checkMatch(match, family, points);
    score += signal.points;
    signals.push(signal);
    (checked ??= new Set()).add(match);
    if (signal.points < 0) cleared.push(match);
  }
  return checked === undefined ? null : { score, blocked: score >= threshold, signals, checked, cleared };
}

/** The access record's `waf_level_check`: `cleared 5 -> 0 (threshold 5): 942260 ARGS:q: no SQL -5`. */
export function levelCheckText(before: number, check: LevelCheck, threshold: number): string {
  const signals = check.signals.map((s) => `${s.detail}${s.points === 0 ? '' : ` ${s.points}`}`).join('; ');
  return `${check.blocked ? 'kept' : 'cleared'} ${before} -> ${check.score} (threshold ${threshold}): ${signals}`;
}
