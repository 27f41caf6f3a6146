/**
 * Whole SQL statements sent as a value (`SELECT a FROM b WHERE c=1`, `UNION SELECT 1,2`,
 * `INSERT INTO t VALUES (1)`, `DROP TABLE t;`). A value that starts with a statement keyword is read
 * against a small grammar of the statements an attacker sends; a sentence that starts with the same
 * word (`select the best option from the list`, `drop table cloth`, `update your profile`) leaves
 * the grammar within a few tokens: three words in a row where SQL allows a name and an alias, no
 * `SET` after `UPDATE name`, no `VALUES` after `INSERT INTO name`.
 *
 * A statement that parses but is also a plausible search about SQL (`select count(*) from users`,
 * lower case, nothing after the table) counts only with a sign that a person did not type it as
 * prose: a keyword in capitals or mixed case (`SELECT`, `SeLeCt`, not `Select`), a comment used as
 * a space, or a clause that only a query has (WHERE, a terminating `;` or comment, a second
 * statement, LIMIT, UNION).
 *
 * Bounded: at most STATEMENT_TOKENS tokens are read, once and only as far as the grammar asks,
 * into reused arrays.
 */
import { SqlLexer } from './sql-tokenizer.ts';

export const STATEMENT_TOKENS = 40;

const lexer = new SqlLexer();
let source = '';
/** Tokens read so far (on demand: a sentence usually leaves the grammar within a few). */
const kinds: string[] = [];
const starts = new Int32Array(STATEMENT_TOKENS);
const ends = new Int32Array(STATEMENT_TOKENS);
/** Lower-cased text per token, computed when first asked for; null: not yet. */
const words: (string | null)[] = [];
let count = 0;
let done = false;
/** A keyword written in capitals or mixed case, or a comment, was seen (see the module comment). */
let shouted = false;

const WORD_KINDS = 'EUkBn&o1fF';

function reset(input: string): void {
  lexer.reset(input, 'none');
  source = input;
  count = 0;
  done = false;
  // A comment where a space would do (`SELECT/**/a`) is as telling as capitals.
  shouted = input.includes('/*');
}

/** Reads tokens until token `i` exists or the input (or the token budget) ends. */
function readTo(i: number): void {
  while (!done && count <= i) {
    if (count >= STATEMENT_TOKENS) {
      done = true;
      return;
    }
    const kind = lexer.next();
    if (kind === '') {
      done = true;
      return;
    }
    kinds[count] = kind;
    starts[count] = lexer.start;
    ends[count] = lexer.end;
    // The lexer's own lower-case copy when it made one (keywords and short words); else later.
    words[count] =
      lexer.lowerWord !== '' && lexer.end - lexer.start === lexer.lowerWord.length ? lexer.lowerWord : null;
    if (!shouted && (kind === 'E' || kind === 'U' || kind === 'k')) {
      // Upper-case letters after the first: `SELECT`, `SeLeCt` (prose writes `select`, `Select`).
      for (let p = lexer.start + 1; p < lexer.end; p++) {
        const c = source.charCodeAt(p);
        if (c >= 0x41 && c <= 0x5a) {
          shouted = true;
          break;
        }
      }
    }
    count++;
  }
}

function kindAt(i: number): string {
  if (i >= count) readTo(i);
  return i < count ? (kinds[i] ?? '') : '';
}

/** Lower-cased text of a word-like token (or `*`), '' for the others. */
function wordAt(i: number): string {
  const k = kindAt(i);
  if (k === '') return '';
  let word = words[i];
  if (word === null || word === undefined) {
    const start = starts[i] ?? 0;
    const end = ends[i] ?? 0;
    word = WORD_KINDS.includes(k) && end - start <= 24 ? source.slice(start, end).toLowerCase() : '';
    words[i] = word;
  }
  return word;
}

/** A name: bareword, `@var`, or a keyword-class word usable as a name (`user`, `database`). */
function isName(i: number): boolean {
  const k = kindAt(i);
  return k === 'n' || k === 'v' || (k === 'f' && wordAt(i) !== '') || (k === '1' && wordAt(i) === 'null');
}

/** Index after a balanced parenthesised group starting at `i` (a `(`), or -1. */
function skipGroup(i: number): number {
  let depth = 0;
  for (let j = i; kindAt(j) !== ''; j++) {
    const k = kindAt(j);
    if (k === '(') depth++;
    else if (k === ')') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

/** The select list read last had more than one item, a literal or `*` (a column list). */
let columnList = false;
/** ... or a call, a sub-query or a variable: something prose does not write. */
let codeOperand = false;
/** ... and every operand in it was a literal: `1,2,3`, `null,null` (probing a column count). */
let literalsOnly = true;

const UNARY = new Set(['-', '+', '~', '!', 'not']);

/** One operand of an expression at `i`: a name, a literal, `*`, a call, a group. Index after it, or -1. */
function operand(i: number): number {
  let j = i;
  while (kindAt(j) === 'o' && UNARY.has(wordAt(j)) && kindAt(j + 1) !== '') j++;
  const k = kindAt(j);
  if (k === 'f' || k === 'F' || (k === 'n' && kindAt(j + 1) === '(')) {
    codeOperand = true;
    literalsOnly = false;
    return kindAt(j + 1) === '(' ? skipGroup(j + 1) : -1;
  }
  if (k === '(') {
    codeOperand = true;
    literalsOnly = false;
    return skipGroup(j);
  }
  if (k === 'o' && j === i && wordAt(j) === '*') {
    columnList = true;
    literalsOnly = false;
    return j + 1;
  }
  if (k === 'v') {
    codeOperand = true;
    literalsOnly = false;
    return j + 1;
  }
  if (k === '1' || k === 's') {
    columnList = true;
    return j + 1;
  }
  literalsOnly = false;
  if (k === 'n') return j + 1;
  return -1;
}

/** An expression: operands joined by operators, comparisons, connectives. Index after it, or -1. */
function expression(i: number): number {
  let j = operand(i);
  while (j > 0) {
    const k = kindAt(j);
    if (k !== 'o' && k !== '=' && k !== '&') break;
    const next = operand(j + 1);
    if (next < 0) break;
    j = next;
  }
  return j;
}

/** A select list: items separated by commas, each an expression with an optional alias. */
function selectList(i: number): number {
  columnList = false;
  codeOperand = false;
  literalsOnly = true;
  let j = i;
  // SELECT DISTINCT / ALL / TOP n
  const w = wordAt(j);
  if (w === 'distinct' || w === 'all') j++;
  else if (w === 'top' && kindAt(j + 1) === '1') j += 2;
  let items = 0;
  for (;;) {
    j = expression(j);
    if (j < 0) return -1;
    items++;
    if (wordAt(j) === 'as') j++;
    if (kindAt(j) === 'n' || kindAt(j) === 's') j++; // alias
    if (kindAt(j) !== ',') break;
    j++;
  }
  if (items > 1) columnList = true;
  return j;
}

/** Words that open a noun phrase in English and never name a table: `from the list`, `from each row`. */
const DETERMINERS = new Set([
  'the',
  'an',
  'my',
  'your',
  'our',
  'their',
  'his',
  'her',
  'its',
  'each',
  'every',
  'this',
  'that',
  'these',
  'those',
  'some',
  'any',
]);

/** A table reference: a name (possibly qualified) or a sub-query, with an optional alias. */
function tableRef(i: number): number {
  let j = i;
  if (kindAt(j) === '(') j = skipGroup(j);
  else if (isName(j) && !DETERMINERS.has(wordAt(j))) j++;
  else return -1;
  if (j < 0) return -1;
  if (wordAt(j) === 'as') j++;
  if (kindAt(j) === 'n') j++;
  return j;
}

/**
 * What may follow a complete statement at `i`: the end (counts when `plain` is not enough: see the
 * module comment), or a clause, terminator, comment or union that only a query has.
 */
function tail(i: number, plainEnd: boolean): boolean {
  const k = kindAt(i);
  if (k === '') return plainEnd || shouted;
  if (k === ';' || k === 'c') return true;
  if (k === 'U') {
    // UNION [ALL] SELECT, not `the union office`.
    let j = i + 1;
    while (kindAt(j) === '(') j++;
    return wordAt(j) === 'select';
  }
  // ORDER BY 2, ORDER BY name DESC / , / LIMIT: not `order by phone`.
  if (k === 'B') {
    if (kindAt(i + 1) === '1') return true;
    const after = kindAt(i + 2);
    return isName(i + 1) && (ORDER_NEXT.has(wordAt(i + 2)) || after === ',' || after === ';' || after === 'c');
  }
  if (k === 'k') {
    const w = wordAt(i);
    return w === 'where' || w === 'limit' || w === 'join' || w === 'having' || w === 'into' || w === 'offset';
  }
  return false;
}

function select(i: number, afterUnion: boolean): boolean {
  const j = selectList(i);
  if (j < 0) return false;
  if (wordAt(j) === 'from') {
    const t = tableRef(j + 1);
    // After UNION any list FROM a table is a query, and so is a list of literals (`1,2,3 FROM
    // dual`); a list of names FROM a table is a search about SQL as often, so it needs `tail`'s signs.
    return t > 0 && tail(t, afterUnion || (literalsOnly && columnList));
  }
  // No FROM: `SELECT @@version`, `select version()`, `UNION SELECT 1,2,3` (not `select 2`).
  if (afterUnion) return (columnList || codeOperand) && tail(j, true);
  return codeOperand ? tail(j, true) : columnList && tail(j, false);
}

const ORDER_NEXT = new Set(['asc', 'desc', 'limit']);

const OBJECTS = new Set([
  'table',
  'database',
  'schema',
  'view',
  'index',
  'procedure',
  'function',
  'trigger',
  'user',
  'login',
]);
const ALTER_ACTIONS = new Set(['add', 'drop', 'modify', 'alter', 'rename', 'change', 'column']);

/** DROP / TRUNCATE / CREATE / ALTER an object. */
function ddl(verb: string, i: number): boolean {
  if (!OBJECTS.has(wordAt(i))) return false;
  let j = i + 1;
  if (wordAt(j) === 'if') {
    j++;
    if (wordAt(j) === 'not') j++;
    if (wordAt(j) !== 'exists') return false;
    j++;
  }
  if (!isName(j)) return false;
  j++;
  const k = kindAt(j);
  if (verb === 'create' && k === '(') return true;
  if (verb === 'alter' && ALTER_ACTIONS.has(wordAt(j))) return true;
  if (k === ',') return isName(j + 1);
  return tail(j, false);
}

/** Whether `input`, read from its start, is an SQL statement (see the module comment). */
export function isSqlStatement(input: string): boolean {
  reset(input);
  let i = 0;
  while (kindAt(i) === '(') i++;
  let k = kindAt(i);
  const union = k === 'U';
  if (union) {
    i++;
    while (kindAt(i) === '(') i++;
    k = kindAt(i);
  }
  if (k !== 'E') return false;
  const verb = wordAt(i);
  if (union) return verb === 'select' && select(i + 1, true);
  switch (verb) {
    case 'select':
      return select(i + 1, false);
    case 'insert': {
      // INSERT INTO name [(columns)] VALUES (...) | SELECT ...
      if (wordAt(i + 1) !== 'into' || !isName(i + 2)) return false;
      let j = i + 3;
      if (kindAt(j) === '(') j = skipGroup(j);
      if (j < 0) return false;
      return (wordAt(j) === 'values' && kindAt(j + 1) === '(') || wordAt(j) === 'select';
    }
    case 'update':
      // UPDATE name SET name =
      return isName(i + 1) && wordAt(i + 2) === 'set' && isName(i + 3) && kindAt(i + 4) === '=';
    case 'delete': {
      if (wordAt(i + 1) !== 'from') return false;
      const t = tableRef(i + 2);
      return t > 0 && tail(t, false);
    }
    case 'drop':
    case 'truncate':
    case 'create':
    case 'alter':
      return ddl(verb, i + 1);
    case 'exec':
    case 'execute': {
      // EXEC xp_cmdshell ..., EXEC master..xp_dirtree, EXEC sp_executesql
      const w = wordAt(i + 1);
      return kindAt(i + 1) === 'F' || /^(?:xp_|sp_|master\.)/.test(w);
    }
    case 'waitfor':
      return (wordAt(i + 1) === 'delay' || wordAt(i + 1) === 'time') && kindAt(i + 2) === 's';
    case 'declare':
      return kindAt(i + 1) === 'v';
    default:
      return false;
  }
}
