/** Vocabulary several modules share. */
export const ROLES = ['administrator', 'user', 'guest'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Licensed modules. `basic` is basic application security; `advanced` is the risk-control security
 * module in edition A and the advanced security module in edition B.
 */
export const MODULES = ['basic', 'advanced'] as const;
export type ModuleKey = (typeof MODULES)[number];

export const EDITIONS = ['A', 'B'] as const;
export type Edition = (typeof EDITIONS)[number];

/**
 * Where a custom basic rule looks (spec 2.5): `all` / `any` combine conditions at the other
 * locations; the `_value` locations pair a name regex with a value regex.
 */
export const CUSTOM_RULE_LOCATIONS = [
  'all',
  'any',
  'url',
  'param_name',
  'header_name',
  'referer',
  'user_agent',
  'cookie_name',
  'body',
  'source_ip',
  'param_value',
  'header_value',
  'cookie_value',
] as const;
export type CustomRuleLocation = (typeof CUSTOM_RULE_LOCATIONS)[number];
