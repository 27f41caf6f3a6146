/**
 * Shared building blocks every module may use: the error type and result, the clock, ids and
 * secrets, the logger interface, a bounded recently-used cache, a keep-the-last-N list and size caps for logged text. This module imports nothing from the rest of the engine.
 */
export { ERROR_CODES, RampartError, isRampartError, ok, err, problemsOf, validationFailed } from './errors.ts';
export type { ErrorCode, ErrorParams, FieldProblem, Result } from './errors.ts';
export { textIssue, textProblem, visibleText } from './text.ts';
export { userRegexIssue, userRegexIssueText, userRegexProblem } from './user-regex.ts';
export {
  PROTECTION_LEVELS,
  protectionLevelSchema,
  groupSettingSchema,
  customRuleInputSchema,
  CUSTOM_RULE_LIMITS,
  wafExclusionInputSchema,
  contentTypesInputSchema,
  exclusionTargetIssue,
  EXCLUSION_COLLECTIONS,
  WAF_EXCLUSION_LIMITS,
} from './rule-shape.ts';
export type { ProtectionLevelName, CustomRuleInput, WafExclusionInput, ContentTypesInput } from './rule-shape.ts';
export {
  filterSchema,
  filterSize,
  timeRangeSchema,
  RELATIVE_RANGES,
  FIELD_NAME_MAX,
  FILTER_VALUE_MAX,
  FILTER_DEPTH_MAX,
  FILTER_TERMS_MAX,
} from './log-query.ts';
export type { Filter, FilterTerm, TimeRange, RelativeRange } from './log-query.ts';
export { systemClock, ManualClock, SECOND, MINUTE, HOUR, DAY } from './clock.ts';
export type { Clock } from './clock.ts';
export { cryptoRandom, newId, newSecret, sha256, safeEqual } from './ids.ts';
export type { Random } from './ids.ts';
export { silentLogger } from './logger.ts';
export type { Logger } from './logger.ts';
export { ROLES, MODULES, EDITIONS, PAGES, CUSTOM_RULE_LOCATIONS, CRAWLER_TYPES } from './domain.ts';
export type { Role, ModuleKey, Edition, Page, CustomRuleLocation, CrawlerType } from './domain.ts';
export { Lru } from './lru.ts';
export { keepLast } from './keep-last.ts';
export { capText, capRecord, MAX_LOG_FIELD, TRUNCATED_MARK } from './bounded-text.ts';
export type { RecordCaps } from './bounded-text.ts';
export { parseJsonStrict, strictJsonBodyParser, type StrictJsonOptions } from './strict-json.ts';
export { HTTP_STATUS_OF, errorBody } from './http-errors.ts';
export type { ErrorBody } from './http-errors.ts';
export { issueParams, zodProblems } from './zod-problems.ts';
export {
  siteInputSchema,
  siteGlobalInputSchema,
  siteSettingsView,
  SITE_LIMITS,
  plainText,
  RUN_MODES,
  ACCESS_METHODS,
  LIST_MODES,
  SOURCE_IP_MODES,
  XFF_MODES,
  ORIGIN_PROTOCOLS,
  PLUGIN_MODES,
  ORIGIN_ADDRESS,
  DEFAULT_CNAME,
  cnameSchema,
} from './site-shape.ts';
export type { SiteInput, SiteSettings, SiteGlobalInput, CnameSettings } from './site-shape.ts';
export {
  LOG_CONFIG_LIMITS,
  LOG_TEMPLATE_TYPES,
  LOG_FIELD_TYPES,
  LOG_KEY_TARGETS,
  LOG_CONFIG_METHODS,
  LOG_CONFIG_KINDS,
  KAFKA_MECHANISMS,
  PREDEFINED_LOG_TIME_FORMAT,
  logFieldSchema,
  logTimeSchema,
  logKeyFieldsSchema,
  brokerInputSchema,
  logConfigInputSchema,
} from './log-config-shape.ts';
export type { LogFieldInput, LogTimeInput, BrokerInput, LogConfigInput, LogKeyTarget } from './log-config-shape.ts';
export {
  EVENT_LIMITS,
  RULE_LIMITS,
  EVENT_KINDS,
  WINDOWED_EVENT_KINDS,
  CONDITION_FILTERS,
  STRING_MATCH_MODES,
  COMPARATORS,
  WINDOW_UNITS,
  UNIT_SECONDS,
  CEP_CONTINUITY,
  RULE_ACTIONS,
  MIN_RULE_PRIORITY,
  eventConditionSchema,
  eventWindowSchema,
  eventInputSchema,
  ruleInputSchema,
  ruleNotifySchema,
  windowSeconds,
} from './event-shape.ts';
export type {
  EventKind,
  Comparator,
  WindowUnit,
  RuleAction,
  EventConditionInput,
  EventWindowInput,
  EventInput,
  RuleInput,
  RuleNotifyInput,
} from './event-shape.ts';
export { hash53, highBits, lowBits } from './hash.ts';
export { copyName } from './copy-name.ts';
