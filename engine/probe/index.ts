/**
 * Probe: the browser probe script (ES3, IE 8+) and everything around it that is pure code.
 *
 * - `renderProbeScript` gives the script text for a site, in `reload` mode (the reload response:
 *   report, then reload) or `page` mode (included in pages: refresh the token at 70 % of its life
 *   and when a tab comes back after expiry, never reload). It reports automation signs by name, a
 *   fingerprint, an optional proof of work and, with web field extraction, the account and
 *   login_status; when the answer says blocked it shows the block page from the answer.
 * - `TokenService`: the token cookie (HMAC-SHA256, stateless, optional IP lock, carries the bot
 *   verdict; `verify` never throws and is on the verdict hot path) and the signed identity cookie.
 * - `ChallengeService`: stateless signed proof-of-work challenges, each accepted once.
 * - `assessReport` / `ProbeService.assessReport`: validate a report (zod, bounded), verify the
 *   work, judge: a strong sign makes a bot, two weak signs make suspicious, one weak sign is
 *   human. `detectionRecord` turns the result into a detection log record (spec 2.3 names, every
 *   string capped, at most 8 KB), and `reportResponse` into the JSON the probe expects back.
 * - `ProbeService.admitReport`: a token bucket per site and source address (default 30 reports a
 *   minute) that the report endpoint asks before anything else; `refusedReports` counts refused
 *   and rate-limited reports per site and reason, which are never written as records.
 * - `reloadPage`, `probeScriptTag`: the reload response body and the page-mode snippet.
 *
 * No I/O: the HTTP endpoints, cookies and the log write belong to the caller.
 */
export { renderProbeScript, scriptLiteral } from './render.ts';
export type { ProbeScriptOptions, AccountExtraction } from './render.ts';
export { TokenService, MAX_TOKEN_LENGTH } from './tokens.ts';
export type {
  IssueTokenInput,
  TokenServiceOptions,
  TokenCheck,
  TokenInvalidReason,
  DeviceIdCheck,
  DeviceIdentity,
} from './tokens.ts';
export { ChallengeService, MemoryUsedChallenges, MAX_DIFFICULTY, leadingZeroBits } from './challenge.ts';
export type { IssuedChallenge, SolutionCheck, UsedChallengeStore, ChallengeServiceOptions } from './challenge.ts';
export {
  assessReport,
  detectionRecord,
  reportResponse,
  ReportSchema,
  MAX_REPORT_BYTES,
  MAX_DETECTION_RECORD_BYTES,
  WEAK_SIGNS_FOR_SUSPICIOUS,
} from './report.ts';
export type {
  ProbeReport,
  Verdict,
  LoginStatus,
  AssessContext,
  Assessment,
  DetectionRecord,
  ReportResponse,
} from './report.ts';
export { SIGNS, SIGN_NAMES, BOT_TYPES, HEADLESS_UA_PATTERN, isSignName } from './signs.ts';
export type { SignName, ClientBotType } from './signs.ts';
export {
  reloadPage,
  probeScriptTag,
  inlineScriptTag,
  injectBeforeBodyEnd,
  DEFAULT_RELOAD_CONTENT,
  DEFAULT_BLOCK_CONTENT,
} from './pages.ts';
export type { ReloadPageInput } from './pages.ts';
export {
  ProbeService,
  ReportRateLimiter,
  RefusedReports,
  DEFAULT_REPORTS_PER_MINUTE,
  DEFAULT_REPORT_LIMIT_KEYS,
} from './probe-service.ts';
export type { ProbeServiceDeps, ReportAdmission, ReportRefusal, RefusedReportCounts } from './probe-service.ts';
