import type { CrawlerType, Edition } from '#engine/shared';
import type { CompiledSite, CompiledList } from '#engine/sites';
import { cookieValue, pathOf, type RequestFacts } from './request.ts';
import { header, resolveSourceIp } from './source-ip.ts';

/** guard_status values of spec 7, plus BLOCKLIST for B's block list (an extension, see README). */
export type GuardStatus =
  | 'TOKEN_MISS'
  | 'TOKEN_INVALID'
  | 'TOKEN_EXPIRED'
  | 'IGNORE'
  | 'PASS'
  | 'BOT'
  | 'REPUTATION'
  | 'BLOCKED_BY_WAF'
  | 'OWASP'
  | 'BLOCKLIST';

export type Action = 'pass' | 'block' | 'reload';

export type TokenCheck =
  | { kind: 'valid'; deviceId: string; bot: boolean; issuedAt?: number }
  | { kind: 'missing' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'expired'; deviceId: string };

/** The WAF stage's answer for one request: CRS and custom rules that fired, and whether to block. */
export interface WafOutcome {
  blocked: boolean;
  ruleIds: string[];
  categories: string[];
  score: number;
  /** Per match of a named rule, `id variable` (`942100 ARGS:q`): the access log's waf_triggered_targets. */
  targets?: string[];
  /** `missing`: the site's rule groups are on but no Core Rule Set is loaded, so none of them ran. */
  ruleSet?: 'missing';
  /**
   * The second opinion on an anomaly-score block, when the site has it on and the block was
   * borderline: `cleared 10 -> 0 (threshold 5): 942260 ARGS:q: no SQL -5; ...` (the access log's
   * waf_second_opinion).
   */
  secondOpinion?: string;
  /**
   * The tokenizer check of level-2 SQL and XSS matches in groups at level normal, on an
   * anomaly-score block: `cleared 5 -> 0 (threshold 5): 942260 ARGS:q: no SQL -5` (the access
   * log's waf_level_check).
   */
  levelCheck?: string;
}

/** What the browser probe's token says of the client, for the WAF's second opinion. */
export interface ProbeSignal {
  /** `browser`: a valid token from a browser the probe passed; `bot`: one it found automated. */
  result: 'browser' | 'bot' | 'none';
  /** How long ago the valid token was issued (ms); null without one. */
  tokenAgeMs: number | null;
}

export const NO_PROBE: ProbeSignal = Object.freeze({ result: 'none', tokenAgeMs: null });

export const NO_WAF_MATCH: WafOutcome = Object.freeze({ blocked: false, ruleIds: [], categories: [], score: 0 });

/** The pipeline's view of the services it consults; each is a fast, synchronous, in-memory lookup. */
export interface VerdictPorts {
  edition: Edition;
  now(): number;
  verifyToken(token: string, siteId: string, srcIp: string): TokenCheck;
  /** Device id from the identity cookie, or '' when absent or forged. */
  deviceOf(identityCookie: string): string;
  /**
   * Whether an event-based rule banned the client's IP or device on this site, or (with
   * `threatStore`) the threat store holds either.
   */
  isBanned(siteId: string, srcIp: string, deviceId: string, now: number, threatStore: boolean): boolean;
  /** The global IP lists every site shares: 'pass', 'block' or null. */
  globalList(srcIp: string): 'pass' | 'block' | null;
  botTypeOf(userAgent: string): CrawlerType | null;
  /** Basic application rules (WAF and custom rules) over the request. */
  inspect(request: RequestFacts, site: CompiledSite, srcIp: string, probe: ProbeSignal): WafOutcome;
  /** A plugin-access client is denied for a while after a basic rule fired on it. */
  wafDenied(siteId: string, srcIp: string, now: number): boolean;
}

export interface Verdict {
  /** What the gateway must do. Monitor mode and bypass access always pass. */
  action: Action;
  /** What the checks found, also in monitor mode. */
  guardStatus: GuardStatus;
  /** Status to answer the client with when the action is not pass. */
  status: number;
  srcIp: string;
  deviceId: string;
  listResult: 'pass' | 'block' | '';
  botType: CrawlerType | null;
  waf: WafOutcome;
}

function listMatches(list: CompiledList, path: string, ip: string): boolean {
  return (list.path !== null && list.path.test(path)) || (list.ip !== null && list.ip.has(ip));
}

function hasList(list: CompiledList): boolean {
  return list.path !== null || list.ip !== null;
}

/**
 * The request path of DESIGN.md section 3, as pure code: site run mode, lists, threat store, the
 * WAF (moved before the token so attacks without a token are named), token, the browser verdict the
 * token carries, anti-bot rules, then the decision by run mode.
 * Every stage can end the pipeline; the first finding wins.
 */
export function decide(site: CompiledSite, request: RequestFacts, ports: VerdictPorts): Verdict {
  const srcIp = resolveSourceIp(site, request.headers, request.remoteAddr);
  const cookies = header(request.headers, 'cookie');
  const verdict: Verdict = {
    action: 'pass',
    guardStatus: 'PASS',
    status: 200,
    srcIp,
    deviceId: '',
    listResult: '',
    botType: null,
    waf: NO_WAF_MATCH,
  };

  if (site.runMode === 'pass') return finish(site, verdict, 'IGNORE');
  const pluginless = site.accessMethod === 'pluginless';
  const path = pathOf(request.uri);

  if (!pluginless) {
    if (site.listMode === 'only_listed' && !(hasList(site.checkList) && listMatches(site.checkList, path, srcIp))) {
      return finish(site, verdict, 'IGNORE');
    }
    if (site.listMode === 'except_listed' && listMatches(site.checkList, path, srcIp))
      return finish(site, verdict, 'IGNORE');
    if (listMatches(site.passList, path, srcIp)) {
      verdict.listResult = 'pass';
      return finish(site, verdict, 'IGNORE');
    }
    if (listMatches(site.blockList, path, srcIp)) {
      verdict.listResult = 'block';
      return finish(site, verdict, 'BLOCKLIST');
    }
    // Then the global lists all sites share (the pass list wins, as with a site's).
    const global = ports.globalList(srcIp);
    if (global !== null) {
      verdict.listResult = global;
      return finish(site, verdict, global === 'pass' ? 'IGNORE' : 'BLOCKLIST');
    }
  }

  // The token is read before the threat store so a ban can match its device; a valid token names
  // the device itself, and only without one is the (signed) identity cookie checked.
  const token = ports.verifyToken(cookieValue(cookies, site.tokenCookieName), site.id, srcIp);
  verdict.deviceId =
    token.kind === 'valid' || token.kind === 'expired'
      ? token.deviceId
      : ports.deviceOf(cookieValue(cookies, site.identityCookieName));

  // A rule's ban holds on its own site; the threat store is consulted by edition A's sites that
  // switch it on and by every edition B site (spec 2.1, 3).
  const threatStore = site.queryThreatStore || ports.edition === 'B';
  if (!pluginless && ports.isBanned(site.id, srcIp, verdict.deviceId, ports.now(), threatStore)) {
    return finish(site, verdict, 'REPUTATION');
  }
  if (site.accessMethod === 'plugin' && ports.wafDenied(site.id, srcIp, ports.now()))
    return finish(site, verdict, wafGuard(ports));

  // The basic rules run before the token check: attack tools rarely carry a token, and an operator
  // (and the overview's attack counters, and CRS's go-ftw) must see what they tried, not only that
  // they were sent to the reload page.
  verdict.waf = ports.inspect(request, site, srcIp, probeSignal(token, ports.now()));
  if (verdict.waf.blocked) return finish(site, verdict, wafGuard(ports));

  switch (token.kind) {
    case 'missing':
      return finish(site, verdict, 'TOKEN_MISS');
    case 'invalid':
      return finish(site, verdict, 'TOKEN_INVALID');
    case 'expired':
      return finish(site, verdict, 'TOKEN_EXPIRED');
    case 'valid':
      if (token.bot && site.browserFeatureDetection) return finish(site, verdict, 'BOT');
  }

  if (site.antiBot.enabled) {
    const bot = ports.botTypeOf(header(request.headers, 'user-agent') ?? '');
    verdict.botType = bot;
    if (
      (bot === 'scanner' && site.antiBot.scanner) ||
      (bot === 'script_tool' && site.antiBot.scriptTool) ||
      (bot === 'other_crawler' && site.antiBot.otherCrawler)
    ) {
      return finish(site, verdict, 'BOT');
    }
  }
  return finish(site, verdict, 'PASS');
}

function probeSignal(token: TokenCheck, now: number): ProbeSignal {
  if (token.kind !== 'valid') return NO_PROBE;
  return {
    result: token.bot ? 'bot' : 'browser',
    tokenAgeMs: token.issuedAt === undefined ? null : Math.max(0, now - token.issuedAt),
  };
}

const wafGuard = (ports: VerdictPorts): GuardStatus => (ports.edition === 'A' ? 'BLOCKED_BY_WAF' : 'OWASP');

/** The decision by run mode: only block mode acts, and bypass access never blocks. */
function finish(site: CompiledSite, verdict: Verdict, guard: GuardStatus): Verdict {
  verdict.guardStatus = guard;
  if (guard === 'PASS' || guard === 'IGNORE' || site.runMode !== 'block' || site.accessMethod === 'bypass') {
    verdict.action = 'pass';
    verdict.status = 200;
    return verdict;
  }
  if (guard === 'TOKEN_MISS' || guard === 'TOKEN_INVALID' || guard === 'TOKEN_EXPIRED') {
    verdict.action = 'reload';
    verdict.status = site.reloadStatus;
  } else {
    verdict.action = 'block';
    verdict.status = site.blockStatus;
  }
  return verdict;
}
