/**
 * Variable lists of SecRule (and of SecRuleUpdateTargetBy*, ctl:ruleRemoveTargetBy*): `ARGS|!ARGS:foo`,
 * `&TX:x`, `ARGS:/^id_/`, `TX:'/regex/'`, `XML:/*`. The table holds every variable name ModSecurity v3
 * knows; names are case-insensitive and come out upper-case.
 */
import type { VariableSelector } from '../types.ts';
import { failure, type ProblemFailure } from '../problems.ts';

/** Variables of ModSecurity v3; `true` marks collections (they take a `:key`). */
export const VARIABLES: ReadonlyMap<string, boolean> = new Map<string, boolean>([
  ['ARGS', true],
  ['ARGS_COMBINED_SIZE', false],
  ['ARGS_GET', true],
  ['ARGS_GET_NAMES', true],
  ['ARGS_NAMES', true],
  ['ARGS_POST', true],
  ['ARGS_POST_NAMES', true],
  ['AUTH_TYPE', false],
  ['DURATION', false],
  ['ENV', true],
  ['FILES', true],
  ['FILES_COMBINED_SIZE', false],
  ['FILES_NAMES', true],
  ['FILES_SIZES', true],
  ['FILES_TMP_CONTENT', true],
  ['FILES_TMPNAMES', true],
  ['FULL_REQUEST', false],
  ['FULL_REQUEST_LENGTH', false],
  ['GEO', true],
  ['GLOBAL', true],
  ['HIGHEST_SEVERITY', false],
  ['INBOUND_DATA_ERROR', false],
  ['IP', true],
  ['MATCHED_VAR', false],
  ['MATCHED_VAR_NAME', false],
  ['MATCHED_VARS', true],
  ['MATCHED_VARS_NAMES', true],
  ['MODSEC_BUILD', false],
  ['MSC_PCRE_LIMITS_EXCEEDED', false],
  ['MULTIPART_BOUNDARY_QUOTED', false],
  ['MULTIPART_BOUNDARY_WHITESPACE', false],
  ['MULTIPART_CRLF_LF_LINES', false],
  ['MULTIPART_DATA_AFTER', false],
  ['MULTIPART_DATA_BEFORE', false],
  ['MULTIPART_FILE_LIMIT_EXCEEDED', false],
  ['MULTIPART_FILENAME', true],
  ['MULTIPART_HEADER_FOLDING', false],
  ['MULTIPART_INVALID_HEADER_FOLDING', false],
  ['MULTIPART_INVALID_PART', false],
  ['MULTIPART_INVALID_QUOTING', false],
  ['MULTIPART_LF_LINE', false],
  ['MULTIPART_MISSING_SEMICOLON', false],
  ['MULTIPART_SEMICOLON_MISSING', false],
  ['MULTIPART_NAME', true],
  ['MULTIPART_PART_HEADERS', true],
  ['MULTIPART_STRICT_ERROR', false],
  ['MULTIPART_UNMATCHED_BOUNDARY', false],
  ['OUTBOUND_DATA_ERROR', false],
  ['PATH_INFO', false],
  ['QUERY_STRING', false],
  ['REMOTE_ADDR', false],
  ['REMOTE_HOST', false],
  ['REMOTE_PORT', false],
  ['REMOTE_USER', false],
  ['REQBODY_ERROR', false],
  ['REQBODY_ERROR_MSG', false],
  ['REQBODY_PROCESSOR', false],
  ['REQBODY_PROCESSOR_ERROR', false],
  ['REQBODY_PROCESSOR_ERROR_MSG', false],
  ['REQUEST_BASENAME', false],
  ['REQUEST_BODY', false],
  ['REQUEST_BODY_LENGTH', false],
  ['REQUEST_COOKIES', true],
  ['REQUEST_COOKIES_NAMES', true],
  ['REQUEST_FILENAME', false],
  ['REQUEST_HEADERS', true],
  ['REQUEST_HEADERS_NAMES', true],
  ['REQUEST_LINE', false],
  ['REQUEST_METHOD', false],
  ['REQUEST_PROTOCOL', false],
  ['REQUEST_URI', false],
  ['REQUEST_URI_RAW', false],
  ['RESOURCE', true],
  ['RESPONSE_BODY', false],
  ['RESPONSE_CONTENT_LENGTH', false],
  ['RESPONSE_CONTENT_TYPE', false],
  ['RESPONSE_HEADERS', true],
  ['RESPONSE_HEADERS_NAMES', true],
  ['RESPONSE_PROTOCOL', false],
  ['RESPONSE_STATUS', false],
  ['RULE', true],
  ['SERVER_ADDR', false],
  ['SERVER_NAME', false],
  ['SERVER_PORT', false],
  ['SESSION', true],
  ['SESSIONID', false],
  ['STATUS_LINE', false],
  ['TIME', false],
  ['TIME_DAY', false],
  ['TIME_EPOCH', false],
  ['TIME_HOUR', false],
  ['TIME_MIN', false],
  ['TIME_MON', false],
  ['TIME_SEC', false],
  ['TIME_WDAY', false],
  ['TIME_YEAR', false],
  ['TX', true],
  ['UNIQUE_ID', false],
  ['URLENCODED_ERROR', false],
  ['USER', true],
  ['USERID', false],
  ['WEBAPPID', false],
  ['WEBSERVER_ERROR_LOG', false],
  ['XML', true],
]);

export type VariablesResult = { ok: true; variables: VariableSelector[] } | ProblemFailure;

/** Parses a `|`-separated variable list. `|` inside `/regex/` or quotes does not split. */
export function parseVariables(text: string): VariablesResult {
  const variables: VariableSelector[] = [];
  let i = 0;
  const n = text.length;
  if (text.trim() === '') return failure('missing_variables', {}, 'missing variables');
  while (i <= n) {
    let exclude = false;
    let count = false;
    while (i < n && (text[i] === '!' || text[i] === '&')) {
      if (text[i] === '!') exclude = true;
      else count = true;
      i++;
    }
    const nameStart = i;
    while (i < n && /[A-Za-z0-9_]/.test(text[i] ?? '')) i++;
    const rawName = text.slice(nameStart, i);
    if (rawName === '')
      return failure(
        'missing_variable_name',
        { text: text.slice(nameStart, nameStart + 20) },
        `missing variable name at ${JSON.stringify(text.slice(nameStart, nameStart + 20))}`,
      );
    const name = rawName.toUpperCase();
    const isCollection = VARIABLES.get(name);
    if (isCollection === undefined)
      return failure('unknown_variable', { variable: rawName }, `unknown variable ${rawName}`);
    const selector: VariableSelector = { name, count, exclude };
    if (text[i] === ':') {
      i++;
      const key = readKey(text, i, name);
      if (!key.ok) return key;
      if (!isCollection)
        return failure(
          'not_a_collection',
          { variable: name, key: text.slice(i, key.end) },
          `${name} is not a collection: it takes no key (${name}:${text.slice(i, key.end)})`,
        );
      selector.key = key.key;
      i = key.end;
    }
    if (i < n && text[i] !== '|')
      return failure(
        'variable_unexpected',
        { char: text[i] ?? '', variable: name },
        `unexpected ${JSON.stringify(text[i])} after variable ${name}`,
      );
    variables.push(selector);
    i++;
    if (i === n) return failure('variables_trailing_pipe', {}, 'variable list ends with |');
  }
  return { ok: true, variables };
}

type KeyResult = { ok: true; key: NonNullable<VariableSelector['key']>; end: number } | ProblemFailure;

function readKey(text: string, from: number, name: string): KeyResult {
  const first = text[from];
  // XML keys are XPath expressions (`XML:/*`), never regexes.
  if (name !== 'XML' && first === '/') {
    const close = closingSlash(text, from + 1);
    if (close < 0) return failure('unterminated_key_regex', { variable: name }, `unterminated /regex/ key of ${name}`);
    return { ok: true, key: { kind: 'regex', source: text.slice(from + 1, close) }, end: close + 1 };
  }
  if (first === "'" || first === '"') {
    // A quoted key is ModSecurity v2's quoted target value: `\\` and `\<quote>` are escapes, so CRS's
    // `TX:'/LEAKAGE\\\/ERRORS/'` (read by the lexer as Apache does, `\\/`) is the regex `LEAKAGE\/ERRORS`.
    let close = -1;
    let inner = '';
    for (let j = from + 1; j < text.length; j++) {
      if (text[j] === '\\' && (text[j + 1] === first || text[j + 1] === '\\')) {
        inner += text[j + 1];
        j++;
        continue;
      }
      if (text[j] === first) {
        close = j;
        break;
      }
      inner += text[j];
    }
    if (close < 0)
      return failure('unterminated_key_quote', { variable: name }, `unterminated quote in the key of ${name}`);
    if (name !== 'XML' && inner.length >= 2 && inner.startsWith('/') && inner.endsWith('/')) {
      return { ok: true, key: { kind: 'regex', source: inner.slice(1, -1) }, end: close + 1 };
    }
    return { ok: true, key: { kind: 'literal', value: inner }, end: close + 1 };
  }
  let end = from;
  while (end < text.length && text[end] !== '|') end++;
  const value = text.slice(from, end);
  if (value === '') return failure('empty_key', { variable: name }, `empty key after ${name}:`);
  return { ok: true, key: { kind: 'literal', value }, end };
}

/** The unescaped `/` closing a regex key; a backslash escapes the character after it. */
function closingSlash(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    if (text[j] === '\\') {
      j++;
      continue;
    }
    if (text[j] === '/') return j;
  }
  return -1;
}

/** The selector as SecLang writes it (`!ARGS:foo`, `&TX:/^a/`), for messages and MatchedRule.variable. */
export function formatVariable(v: VariableSelector): string {
  const prefix = `${v.exclude ? '!' : ''}${v.count ? '&' : ''}`;
  if (!v.key) return `${prefix}${v.name}`;
  return v.key.kind === 'regex' ? `${prefix}${v.name}:/${v.key.source}/` : `${prefix}${v.name}:${v.key.value}`;
}
