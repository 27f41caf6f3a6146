/**
 * Regular expressions an operator types (custom rules, edition B's path lists) must not be able to
 * stall the engine. A pattern is accepted only if V8's linear-time engine can compile it (the `l`
 * flag refuses backreferences and lookarounds); it then runs on the ordinary backtracking engine,
 * fast on everyday input, and V8 moves a run to the linear-time engine once it backtracks too much.
 * `(a+)+$` over 50 KB takes about 20 ms that way instead of never finishing. Measured alternatives:
 * the linear engine for every run is 3 to 10 times slower on everyday input; a time bound needs a
 * worker thread per check; RE2 needs a native addon.
 *
 * The flags are set when this module loads in Node, before the engine compiles any regex: V8 gives
 * the backtracking fallback only to regexes compiled after the flag is set. They are reached through
 * `process.getBuiltinModule`, not a static `node:v8` import, because the console bundles this module
 * (the site shape, through the API contracts): in a browser there is no V8 flag to set, so only the
 * pattern's validity is checked there, and the engine's refusal of a pattern that is not linear-time
 * reaches the form as its field problem.
 */
const LINEAR_ENGINE = enableLinearEngine();

/** Sets V8's linear-time regex flags when running in Node; false where there is no such engine (a browser). */
function enableLinearEngine(): boolean {
  const host = (globalThis as { process?: NodeJS.Process }).process;
  if (typeof host?.versions?.node !== 'string') return false;
  const v8 = host.getBuiltinModule('node:v8');
  v8.setFlagsFromString('--enable-experimental-regexp-engine');
  v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  return true;
}

/**
 * V8's syntax errors (irregexp's `RegExpError` texts, Node 20) by a stable code the console words in
 * its own language. A message not in this table (a later V8's) is `other`; the issue's `error` keeps
 * V8's words for it.
 */
const V8_REGEX_ERRORS = {
  'Unterminated group': 'unterminated_group',
  "Unmatched ')'": 'unmatched_paren',
  '\\ at end of pattern': 'escape_at_end',
  'Invalid property name': 'invalid_property_name',
  'Invalid escape': 'invalid_escape',
  'Invalid decimal escape': 'invalid_decimal_escape',
  'Invalid Unicode escape': 'invalid_unicode_escape',
  'Nothing to repeat': 'nothing_to_repeat',
  'Lone quantifier brackets': 'lone_quantifier_brackets',
  'Incomplete quantifier': 'incomplete_quantifier',
  'Invalid quantifier': 'invalid_quantifier',
  'Invalid group': 'invalid_group',
  'Multiple dashes in flag group': 'multiple_flag_dashes',
  'Repeated flag in flag group': 'repeated_flag',
  'Invalid flag group': 'invalid_flag_group',
  'Too many captures': 'too_many_captures',
  'Invalid capture group name': 'invalid_group_name',
  'Duplicate capture group name': 'duplicate_group_name',
  'Invalid named reference': 'invalid_named_reference',
  'Invalid named capture referenced': 'unknown_group_name',
  'Invalid class escape': 'invalid_class_escape',
  'Invalid character class': 'invalid_character_class',
  'Unterminated character class': 'unterminated_character_class',
  'numbers out of order in {} quantifier': 'quantifier_out_of_order',
  'Invalid property name in character class': 'invalid_class_property_name',
  'Range out of order in character class': 'class_range_out_of_order',
  'Invalid set operation in character class': 'invalid_class_set_operation',
  'Invalid character in character class': 'invalid_class_character',
  'Negated character class may contain strings': 'negated_class_strings',
  'Regular expression too large': 'too_large',
  'Stack overflow': 'too_deep',
  'Maximum call stack size exceeded': 'too_deep',
} as const;

/** A V8 regex syntax error as a code; `other` for a text this table does not know. */
export type RegexErrorKind = (typeof V8_REGEX_ERRORS)[keyof typeof V8_REGEX_ERRORS] | 'invalid_flags' | 'other';

/** Every code `regexErrorKind` can return, `other` last. */
export const REGEX_ERROR_KINDS: readonly RegexErrorKind[] = [
  ...new Set(Object.values(V8_REGEX_ERRORS)),
  'invalid_flags',
  'other',
];

/** The code of V8's error text (the part after the pattern, as `error` holds it). */
export function regexErrorKind(error: string): RegexErrorKind {
  if (Object.hasOwn(V8_REGEX_ERRORS, error)) return V8_REGEX_ERRORS[error as keyof typeof V8_REGEX_ERRORS];
  return error.startsWith('Invalid flags supplied to RegExp constructor') ? 'invalid_flags' : 'other';
}

/**
 * Why `pattern` cannot be used, as a reason the console translates: `kind` names V8's error, `error`
 * holds V8's own words (shown only for a kind the console does not know).
 */
export type UserRegexIssue =
  { reason: 'regex_invalid'; kind: RegexErrorKind; error: string } | { reason: 'not_linear' };

/** Why `pattern` cannot be used as an operator's regex, or null. */
export function userRegexIssue(pattern: string, flags = ''): UserRegexIssue | null {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    const text = reason(error);
    return { reason: 'regex_invalid', kind: regexErrorKind(text), error: text };
  }
  if (!LINEAR_ENGINE) return null;
  try {
    new RegExp(pattern, `${flags}l`);
  } catch {
    return { reason: 'not_linear' };
  }
  return null;
}

/** An issue as the English sentence logs and API clients read. */
export function userRegexIssueText(issue: UserRegexIssue): string {
  return issue.reason === 'regex_invalid'
    ? `is not a valid regular expression (${issue.error})`
    : 'uses a construct that cannot run in linear time (backreferences and lookarounds are not allowed)';
}

/** Why `pattern` cannot be used, as that sentence, or null. */
export function userRegexProblem(pattern: string, flags = ''): string | null {
  const issue = userRegexIssue(pattern, flags);
  return issue ? userRegexIssueText(issue) : null;
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const colon = message.lastIndexOf(': ');
  return colon === -1 ? message : message.slice(colon + 2);
}
