/**
 * The operator table: every SecLang operator the WAF knows, keyed by lower-case name (aliases
 * included). Contract: `OPERATORS.get(name.toLowerCase())?.compile(argument, env)` compiles the
 * (macro-expanded) argument once, throwing an Error on a bad argument; the returned function is
 * called per value and must not allocate where avoidable. Operators that honour `capture` write
 * `state.captures` (0 = whole match); see each operator's doc comment.
 */
import type { OperatorDef } from '../types.ts';
import { beginsWith } from './begins-with.ts';
import { contains } from './contains.ts';
import { containsWord } from './contains-word.ts';
import { detectSqli } from './detect-sqli.ts';
import { detectXss } from './detect-xss.ts';
import { endsWith } from './ends-with.ts';
import { eq } from './eq.ts';
import { ge } from './ge.ts';
import { geoLookup } from './geo-lookup.ts';
import { gt } from './gt.ts';
import { ipMatch } from './ip-match.ts';
import { ipMatchF, ipMatchFromFile } from './ip-match-from-file.ts';
import { le } from './le.ts';
import { lt } from './lt.ts';
import { noMatch } from './no-match.ts';
import { pm } from './pm.ts';
import { pmf, pmFromFile } from './pm-from-file.ts';
import { rbl } from './rbl.ts';
import { rx } from './rx.ts';
import { streq } from './streq.ts';
import { strmatch } from './strmatch.ts';
import { unconditionalMatch } from './unconditional-match.ts';
import { validateByteRange } from './validate-byte-range.ts';
import { validateUrlEncoding } from './validate-url-encoding.ts';
import { validateUtf8Encoding } from './validate-utf8-encoding.ts';
import { within } from './within.ts';

const ALL: readonly OperatorDef[] = [
  beginsWith,
  contains,
  containsWord,
  detectSqli,
  detectXss,
  endsWith,
  eq,
  ge,
  geoLookup,
  gt,
  ipMatch,
  ipMatchFromFile,
  ipMatchF,
  le,
  lt,
  noMatch,
  pm,
  pmFromFile,
  pmf,
  rbl,
  rx,
  streq,
  strmatch,
  unconditionalMatch,
  validateByteRange,
  validateUrlEncoding,
  validateUtf8Encoding,
  within,
];

export { PhraseMatcher } from './aho-corasick.ts';

export const OPERATORS: ReadonlyMap<string, OperatorDef> = new Map(ALL.map((op) => [op.name.toLowerCase(), op]));
