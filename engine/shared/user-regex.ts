import { setFlagsFromString } from 'node:v8';

/**
 * Regular expressions an operator types (custom rules, edition B's path lists) must not be able to
 * stall the engine. A pattern is accepted only if V8's linear-time engine can compile it (the `l`
 * flag refuses backreferences and lookarounds); it then runs on the ordinary backtracking engine,
 * fast on everyday input, and V8 moves a run to the linear-time engine once it backtracks too much.
 * `(a+)+$` over 50 KB takes about 20 ms that way instead of never finishing. Measured alternatives:
 * the linear engine for every run is 3 to 10 times slower on everyday input; a time bound needs a
 * worker thread per check; RE2 needs a native addon.
 */
setFlagsFromString('--enable-experimental-regexp-engine');
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

/** Why `pattern` cannot be used, as a reason the console translates (`error`: V8's own words). */
export type UserRegexIssue = { reason: 'regex_invalid'; error: string } | { reason: 'not_linear' };

/** Why `pattern` cannot be used as an operator's regex, or null. */
export function userRegexIssue(pattern: string, flags = ''): UserRegexIssue | null {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    return { reason: 'regex_invalid', error: reason(error) };
  }
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
