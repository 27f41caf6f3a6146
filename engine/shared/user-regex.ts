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

/** Why `pattern` cannot be used, as a reason the console translates (`error`: V8's own words). */
export type UserRegexIssue = { reason: 'regex_invalid'; error: string } | { reason: 'not_linear' };

/** Why `pattern` cannot be used as an operator's regex, or null. */
export function userRegexIssue(pattern: string, flags = ''): UserRegexIssue | null {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    return { reason: 'regex_invalid', error: reason(error) };
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
