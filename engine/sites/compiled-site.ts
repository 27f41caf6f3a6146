import type {
  AccessMethod,
  ListMode,
  RunMode,
  SiteGlobalRecord,
  SiteRecord,
  XffMode,
  SourceIpMode,
} from '#engine/config-store';
import { isRampartError, problemsOf, validationFailed, type Edition, type FieldProblem } from '#engine/shared';
import { compileIpList, compilePathList, compilePathRegexList, type IpMatcher, type PathMatcher } from './lists.ts';

export interface CompiledList {
  /** Null when the list's switch is off or it has no entries. */
  path: PathMatcher | null;
  ip: IpMatcher | null;
}

/**
 * A site prepared for the verdict hot path: lists compiled to matchers, the effective token
 * settings of the edition resolved, header names lower-cased. Rebuilt only when the site or the
 * global configuration changes.
 */
export interface CompiledSite {
  id: string;
  name: string;
  domain: string;
  runMode: RunMode;
  accessMethod: AccessMethod;
  listMode: ListMode;
  checkList: CompiledList;
  passList: CompiledList;
  blockList: CompiledList;
  tokenCookieName: string;
  identityCookieName: string;
  tokenTtlSeconds: number;
  ipLock: boolean;
  blockStatus: number;
  blockContent: string;
  reloadStatus: number;
  reloadContent: string;
  browserFeatureDetection: boolean;
  queryThreatStore: boolean;
  hideServerInfo: boolean;
  sourceIp: { mode: SourceIpMode; xffMode: XffMode; trusted: IpMatcher; customHeader: string };
  antiBot: SiteRecord['antiBot'];
  powDifficulty: number;
  accountExtraction: SiteRecord['accountExtraction'];
}

/** Runs one compile step; a validation error's problems join `problems` instead of stopping the rest. */
function gather<T>(problems: FieldProblem[], fallback: T, compile: () => T): T {
  try {
    return compile();
  } catch (error) {
    if (!isRampartError(error) || error.code !== 'VALIDATION_FAILED') throw error;
    problems.push(...problemsOf(error));
    return fallback;
  }
}

const NO_PATHS: PathMatcher = { empty: true, test: () => false };
const NO_IPS: IpMatcher = { empty: true, has: () => false };

function compileList(
  list: SiteRecord['passList'],
  field: string,
  regexPaths: boolean,
  problems: FieldProblem[],
): CompiledList {
  const path = gather(problems, NO_PATHS, () =>
    regexPaths ? compilePathRegexList(list.paths, `${field}.paths`) : compilePathList(list.paths, `${field}.paths`),
  );
  const ip = gather(problems, NO_IPS, () => compileIpList(list.ips, `${field}.ips`));
  return {
    path: list.pathEnabled && !path.empty ? path : null,
    ip: list.ipEnabled && !ip.empty ? ip : null,
  };
}

/** Throws one VALIDATION_FAILED error naming every bad list entry (field and line). */
export function compileSite(site: SiteRecord, global: SiteGlobalRecord, edition: Edition): CompiledSite {
  const problems: FieldProblem[] = [];
  const checkList = compileList(site.checkList, 'checkList', false, problems);
  const passList = compileList(site.passList, 'passList', true, problems);
  const blockList = compileList(site.blockList, 'blockList', true, problems);
  const trusted = gather(problems, NO_IPS, () =>
    compileIpList(site.sourceIp.trustedSources, 'sourceIp.trustedSources'),
  );
  if (problems.length > 0) throw validationFailed(problems);
  const perSite = edition === 'A';
  return {
    id: site.id,
    name: site.name,
    domain: site.domain,
    runMode: site.runMode,
    accessMethod: site.accessMethod,
    listMode: site.listMode,
    checkList,
    passList,
    blockList,
    tokenCookieName: perSite ? site.tokenCookieName : global.tokenCookieName,
    identityCookieName: perSite ? site.identityCookieName : global.identityCookieName,
    tokenTtlSeconds: perSite ? site.tokenExpirySeconds : global.tokenExpirySeconds,
    ipLock: !perSite && global.ipLock,
    blockStatus: site.blockStatus,
    blockContent: site.blockContent,
    reloadStatus: site.reloadStatus,
    reloadContent: site.reloadContent,
    browserFeatureDetection: site.browserFeatureDetection,
    queryThreatStore: site.queryThreatStore,
    hideServerInfo: site.hideServerInfo,
    sourceIp: {
      mode: site.sourceIp.mode,
      xffMode: site.sourceIp.xffMode,
      trusted,
      customHeader: site.sourceIp.customHeader.toLowerCase(),
    },
    antiBot: site.antiBot,
    powDifficulty: site.powDifficulty,
    accountExtraction: site.accountExtraction,
  };
}
