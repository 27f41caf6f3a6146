/**
 * Injection shapes: patterns over the start of a fingerprint. Each one states what an attack has to
 * do in that quote context: leave the data (a number or variable in a bare context, the rest of the
 * open string in a quoted one), optionally close parentheses, then add something that changes the
 * query, and stop the rest from mattering. Anchoring at the start is deliberate: a value whose
 * first tokens cannot continue a query (`/post/foo/24 union ...`) is not an injection into that
 * context, however much SQL it contains later.
 *
 * Written for this project from the attack classes (tautologies, UNION, stacked queries, side-effect
 * functions, comment truncation, string re-balancing); not a copy of libinjection's list.
 */

/** The tail of a statement keyword that makes it a statement rather than a word in a sentence. */
const STATEMENT = 'E(?:[^ns]|s[k,(]|n[k,(s]|n$|$)';

/** After a bare value: `1`, `@v`, possibly followed by closing parentheses. */
const BARE = '[1v]\\)*';
/** After a quoted value: the rest of the open string, possibly followed by closing parentheses. */
const QUOTED = 's\\)*';

function shapes(lead: string): string[] {
  return [
    // Tautology or contradiction: ` OR 1=1`, `' OR 'a'='a`, `' AND x=x`, `' OR x IS NOT NULL`.
    `${lead}&\\(*(?:[1sv][=o]|n=|no1)`,
    // Connective then a lone operand ending the query in a comment: `' OR 1 --`, `1 OR 1#`.
    `${lead}&\\(*[1sv]\\)*c`,
    // Connective or operator then a sub-query or a function call: `' AND (SELECT`, `' || sleep(`.
    `${lead}[&o=]\\(*(?:${STATEMENT}|[fF]\\()`,
    // UNION [ALL] SELECT.
    `${lead}U\\(*E`,
    // Stacked statement: `'; DROP TABLE`, `1; EXEC`.
    `${lead};\\(*(?:${STATEMENT}|c)`,
    // Column-count probing: `' ORDER BY 3`.
    `${lead}B1`,
  ];
}

const BARE_SHAPES = [
  ...shapes(BARE),
  // The whole value is a side-effect call: `sleep(20)`, `(select(sleep(5)))`.
  '\\(*(?:E\\(*)?F\\([1sv(fF]',
  // UNION after a bareword (quote-less string or column context).
  'n\\)*U\\(*E',
  // A stacked side-effect call: `1; sleep(5)`.
  `${BARE};\\(*F\\(`,
];

const QUOTED_SHAPES = [
  ...shapes(QUOTED),
  // A statement or side-effect call right after the string (MSSQL needs no separator): `')WAITFOR DELAY`.
  `${QUOTED}(?:${STATEMENT}|F\\()`,
  // Break out, chain operands with operators, re-open the string: `'+x+'`, `" | type x | "`.
  's(?:o[1nsv])+os$',
  // Empty comparison: `'='`, `a'='a`.
  's=s$',
  // Operators around a call of any name, right after the string: `'-alert(1)-'`, `'||f(x)||'`. A
  // sentence does not close a quote, then an operator, then a call with plain arguments that is
  // followed only by another operator, a comment or the end; or a call around a sub-query
  // (`' or exists(select 1)`).
  `${QUOTED}[o&]\\(*n\\((?:\\(*E|[1snv,]*\\)+(?:[o&]|c|$))`,
];

/**
 * Quoted shapes that are also how prose quotes a word (`use the 'or' operator`, `the 'end'--`):
 * they count only when the quote that breaks out follows a value character, as in `admin'--` or
 * `1' or '1`, not a space, as an opening quote in a sentence does.
 */
const QUOTED_WEAK_SHAPES = [
  // Connective then a lone operand left for the application's closing quote: `1' OR '1`.
  `${QUOTED}&\\(*[1sv]$`,
  // Connective, a lone truthy operand, another connective: `x' OR TRUE AND 'a'='a`, `1' or 1 and '1`.
  `${QUOTED}&\\(*1\\)*&`,
  // Truncation: `admin'--`, `admin'#`, or a comparison then truncation: `'=0--`.
  `${QUOTED}(?:[=o][1sv]\\)*)?c`,
  // A clause after the string: `x' HAVING 1=1`, `x' GROUP BY id--` (prose: `he said 'when 5 > 3'`).
  `${QUOTED}k\\(*[1sv][=o][1sv]`,
  `${QUOTED}B[1n](?:[,ck]|$)`,
  // A stacked call: `x'; if (1=1) waitfor ...`, `x'; sleep(5)`.
  `${QUOTED};\\(*[fF]\\(`,
];

const BARE_RE = new RegExp(`^(?:${BARE_SHAPES.join('|')})`);
const QUOTED_RE = new RegExp(`^(?:${QUOTED_SHAPES.join('|')})`);
const QUOTED_WEAK_RE = new RegExp(`^(?:${QUOTED_WEAK_SHAPES.join('|')})`);

export type ShapeContext = 'bare' | 'quoted' | 'quoted-after-value';

/**
 * Whether a fingerprint has an injection shape. `quoted-after-value`: taken in a quote context
 * where the breaking-out quote follows a non-space character.
 */
export function matchesShape(fingerprint: string, context: ShapeContext): boolean {
  if (fingerprint.includes('X')) return true;
  if (context === 'bare') return BARE_RE.test(fingerprint);
  return QUOTED_RE.test(fingerprint) || (context === 'quoted-after-value' && QUOTED_WEAK_RE.test(fingerprint));
}
