import {
  CUSTOM_RULE_LOCATIONS,
  userRegexIssue,
  userRegexIssueText,
  type CustomRuleLocation,
  type ErrorParams,
} from '#engine/shared';

/**
 * Custom basic rules (spec 2.5): an operator's regexes over named request locations. A user's regex
 * must not be able to stall the engine: patterns are checked by `userRegexIssue` (engine/shared),
 * which accepts only what V8's linear-time engine can run.
 */

export type CustomLocation = CustomRuleLocation;

export type ConditionLocation = Exclude<CustomLocation, 'all' | 'any'>;

export const CUSTOM_LOCATIONS: readonly CustomLocation[] = CUSTOM_RULE_LOCATIONS;

/** Locations whose condition pairs a name regex with a value regex. */
export const PAIR_LOCATIONS: ReadonlySet<ConditionLocation> = new Set(['param_value', 'header_value', 'cookie_value']);

/** The only locations a plugin-access site can check (the gateway forwards no more than that to a rule). */
export const PLUGIN_LOCATIONS: ReadonlySet<ConditionLocation> = new Set(['url', 'param_name']);

export const MAX_PATTERN_LENGTH = 1024;

export interface CustomCondition {
  location: ConditionLocation;
  name: string;
  pattern: string;
}

export interface CustomRuleSpec {
  id: string;
  location: CustomLocation;
  conditions: readonly CustomCondition[];
}

/** What a custom rule can look at, already decoded (parameter names and values URL-decoded). */
export interface CustomRequest {
  /** Path and query as the client sent them. */
  url: string;
  params: readonly (readonly [string, string])[];
  /** Header names as received (lower-case from Node) with their values. */
  headers: readonly (readonly [string, string])[];
  cookies: readonly (readonly [string, string])[];
  referer: string;
  userAgent: string;
  body: string;
  sourceIp: string;
}

/**
 * Why a pattern cannot be used, or null: the English sentence, and parameters the console words in
 * its own language (zod's code and bound for the length, the regex issue's reason and kind).
 */
export function patternIssue(pattern: string): { message: string; params: ErrorParams } | null {
  if (pattern.length === 0)
    return { message: 'must not be empty', params: { code: 'too_small', origin: 'string', minimum: 1 } };
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return {
      message: `must be at most ${MAX_PATTERN_LENGTH} characters`,
      params: { code: 'too_big', origin: 'string', maximum: MAX_PATTERN_LENGTH },
    };
  }
  const issue = userRegexIssue(pattern);
  return issue ? { message: userRegexIssueText(issue), params: issue } : null;
}

/** Why a pattern cannot be used, or null. */
export function patternProblem(pattern: string): string | null {
  return patternIssue(pattern)?.message ?? null;
}

interface CompiledCondition {
  location: ConditionLocation;
  name: RegExp | null;
  value: RegExp;
}

interface CompiledRule {
  id: string;
  every: boolean;
  conditions: CompiledCondition[];
}

export interface CustomRuleMatcher {
  readonly size: number;
  /** Ids of the rules that fire, in rule order. */
  match(request: CustomRequest): string[];
}

/** Compiles rules whose patterns passed `patternProblem`; a rule with a bad pattern is left out. */
export function compileCustomRules(rules: readonly CustomRuleSpec[]): CustomRuleMatcher {
  const compiled: CompiledRule[] = [];
  for (const rule of rules) {
    try {
      compiled.push({
        id: rule.id,
        every: rule.location === 'all',
        conditions: rule.conditions.map((c) => ({
          location: c.location,
          // A name regex names the whole name: `id` is the parameter id, not userid.
          name: PAIR_LOCATIONS.has(c.location) ? new RegExp(`^(?:${c.name === '' ? '.*' : c.name})$`) : null,
          value: new RegExp(c.pattern),
        })),
      });
    } catch {
      // Stored rules were validated on save; a pattern this V8 refuses is skipped, not fatal.
    }
  }
  return {
    size: compiled.length,
    match(request) {
      const fired: string[] = [];
      for (const rule of compiled) {
        if (rule.conditions.length === 0) continue;
        const hit = rule.every
          ? rule.conditions.every((c) => conditionMatches(c, request))
          : rule.conditions.some((c) => conditionMatches(c, request));
        if (hit) fired.push(rule.id);
      }
      return fired;
    },
  };
}

function conditionMatches(c: CompiledCondition, r: CustomRequest): boolean {
  switch (c.location) {
    case 'url':
      return c.value.test(r.url);
    case 'referer':
      return r.referer !== '' && c.value.test(r.referer);
    case 'user_agent':
      return c.value.test(r.userAgent);
    case 'body':
      return r.body !== '' && c.value.test(r.body);
    case 'source_ip':
      return c.value.test(r.sourceIp);
    case 'param_name':
      return anyName(r.params, c.value);
    case 'header_name':
      return anyName(r.headers, c.value);
    case 'cookie_name':
      return anyName(r.cookies, c.value);
    case 'param_value':
      return anyPair(r.params, c.name, c.value);
    case 'header_value':
      return anyPair(r.headers, c.name, c.value);
    case 'cookie_value':
      return anyPair(r.cookies, c.name, c.value);
  }
}

function anyName(pairs: CustomRequest['params'], value: RegExp): boolean {
  for (const [name] of pairs) if (value.test(name)) return true;
  return false;
}

function anyPair(pairs: CustomRequest['params'], name: RegExp | null, value: RegExp): boolean {
  for (const [n, v] of pairs) if ((name === null || name.test(n)) && value.test(v)) return true;
  return false;
}
