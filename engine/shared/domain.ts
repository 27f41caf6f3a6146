/** Vocabulary several modules share. */
export const ROLES = ['administrator', 'user', 'guest'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Licensed modules. `basic` is basic application security; `advanced` is the risk-control security
 * module in edition A and the advanced security module in edition B.
 */
export const MODULES = ['basic', 'advanced'] as const;
export type ModuleKey = (typeof MODULES)[number];

/** What a user agent says it is (the access log's bot_type): the intel module classifies, the verdict acts. */
export const CRAWLER_TYPES = ['scanner', 'search_engine', 'script_tool', 'other_crawler'] as const;
export type CrawlerType = (typeof CRAWLER_TYPES)[number];

export const EDITIONS = ['A', 'B'] as const;
export type Edition = (typeof EDITIONS)[number];

/** Console pages (spec 1.6), the unit that roles grant (engine/accounts says which role sees which). */
export const PAGES = ['overview', 'logs', 'sites', 'logConfig', 'events', 'rules', 'enterprise'] as const;
export type Page = (typeof PAGES)[number];

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
