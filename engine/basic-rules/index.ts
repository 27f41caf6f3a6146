/**
 * Basic application security rules (spec 2.5): which Core Rule Set runs (auto-detected, a
 * directory, an uploaded archive; a broken set never replaces a running one), each site's 12 groups
 * with their protection levels and its custom rules, and the WAF stage of the verdict pipeline with
 * the one-minute denial of a plugin-access client after a rule fired.
 */
export { RuleSetManager } from './rule-set-manager.ts';
export type { RuleSetStatus, RuleSetProblem, LoadedRuleSet, RuleSetManagerDeps } from './rule-set-manager.ts';
export type {
  RuleSetDownloadJob,
  RuleSetDownloadFailure,
  RuleSetDownloadFailureCode,
  RuleSetDownloadSettings,
} from './rule-set-manager.ts';
export { CRS_RELEASE_PINS, DEFAULT_CRS_VERSION, DEFAULT_CRS_DOWNLOAD_URL } from './crs-releases.ts';
export type { CrsPin, CrsPins } from './crs-releases.ts';
export { releaseContentSha256 } from './crs-digest.ts';
export { downloadRelease, checkReleaseContent } from './crs-fetch.ts';
export { crsArchiveName, crsDownloadUrl } from './crs-releases.ts';
export { BasicRulesService, GROUP_IDS, WAF_DENIAL_MS, MAX_CUSTOM_RULES } from './basic-rules-service.ts';
export type {
  BasicRulesServiceDeps,
  BasicRuleGroupView,
  GroupRuleView,
  CustomRuleView,
  OpenInspection,
  WafExclusionView,
  ContentTypesView,
  SecondOpinionView,
} from './basic-rules-service.ts';
export {
  CRS_CONTENT_TYPES,
  DEFAULT_ALLOWED_CONTENT_TYPES,
  contentTypePolicy,
  previewExclusion,
  proposeFor,
  suggestExclusions,
  SUGGESTION_THRESHOLDS,
  clearedBy,
  firedOn,
} from './exclusions.ts';
export type { ExclusionSpec, ExclusionPreview, ExclusionSuggestion, Fired } from './exclusions.ts';
