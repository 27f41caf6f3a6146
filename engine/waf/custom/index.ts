/**
 * Custom basic rules: validation of an operator's patterns (linear-time capable JavaScript regexes)
 * and a matcher over a decoded request. Pure and synchronous.
 */
export {
  compileCustomRules,
  patternIssue,
  patternProblem,
  CUSTOM_LOCATIONS,
  PAIR_LOCATIONS,
  PLUGIN_LOCATIONS,
  MAX_PATTERN_LENGTH,
} from './custom-rules.ts';
export type {
  CustomLocation,
  ConditionLocation,
  CustomCondition,
  CustomRuleSpec,
  CustomRequest,
  CustomRuleMatcher,
} from './custom-rules.ts';
