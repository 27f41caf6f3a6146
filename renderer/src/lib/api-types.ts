/**
 * The shapes of the engine API (engine/api/schemas.ts and the route files) as the console uses them.
 * Kept by hand because the console must not import engine code; the e2e tests run against the real
 * engine, so a drift shows there.
 */
export type Role = 'administrator' | 'user' | 'guest';
export const ROLES: readonly Role[] = ['administrator', 'user', 'guest'];
export type Edition = 'A' | 'B';
export type ModuleKey = 'basic' | 'advanced';
export type Page = 'overview' | 'logs' | 'sites' | 'logConfig' | 'events' | 'rules' | 'enterprise';

export interface AccountView {
  id: string;
  email: string;
  name: string;
  role: Role;
  tenant: boolean;
  status: 'pending' | 'activated';
  enabled: boolean;
  createdAt: number;
  activatedAt: number | null;
  lastSignInAt: number | null;
  permissions: Page[];
}

export interface MenuItem {
  id: string;
  path: string;
  children?: MenuItem[];
}

export interface SessionView {
  account: AccountView;
  csrfToken: string;
  idleExpiresAt: number;
  absoluteExpiresAt: number;
  edition: Edition;
  version: string;
  smtpConfigured: boolean;
  navigation: MenuItem[];
}

export interface LinkDelivery {
  emailSent: boolean;
  /** Present only when the e-mail could not be sent: the administrator hands it over. */
  link: string | null;
  mailError: string | null;
  expiresAt: number;
}

export interface AccountList {
  items: AccountView[];
  nextCursor: string | null;
  total: number;
}

export interface LinkInfo {
  purpose: 'activate' | 'reset';
  email: string;
  expiresAt: number;
}

export type ModuleState = 'activated' | 'not_purchased' | 'expired';

export interface LicenceView {
  enterpriseId: string;
  customerName: string;
  versionType: 'trial' | 'formal';
  edition: Edition;
  trialEndsAt: number | null;
  importedAt: number | null;
  modules: { module: ModuleKey; state: ModuleState; expiresAt: number | null }[];
  vendorKeyConfigured: boolean;
}

export interface PurchaseRecord {
  orderTime: number;
  orderNumber: string;
  product: string;
  expiresAt: number;
  status: string;
  remark: string;
}

export interface SystemVersion {
  version: string;
  edition: Edition;
  node: string;
}

export type RunMode = 'pass' | 'monitor' | 'block';
export const RUN_MODES: readonly RunMode[] = ['pass', 'monitor', 'block'];
export type AccessMethod = 'plugin' | 'pluginless' | 'cname' | 'bypass';
/** The access methods each edition offers (the engine refuses the others). */
export const ACCESS_METHODS: Readonly<Record<Edition, readonly AccessMethod[]>> = {
  A: ['plugin', 'pluginless'],
  B: ['cname', 'plugin', 'bypass'],
};
export type ListMode = 'all' | 'only_listed' | 'except_listed';
export const LIST_MODES: readonly ListMode[] = ['all', 'only_listed', 'except_listed'];
export type SourceIpMode = 'default' | 'x_real_ip' | 'xff' | 'custom';
export const SOURCE_IP_MODES: readonly SourceIpMode[] = ['default', 'x_real_ip', 'xff', 'custom'];
export type XffMode = 'leftmost' | 'filter' | 'rightmost';
export const XFF_MODES: readonly XffMode[] = ['leftmost', 'filter', 'rightmost'];

/** A path list and an IP list, each with its switch; entries one per line. */
export interface SiteList {
  pathEnabled: boolean;
  paths: string[];
  ipEnabled: boolean;
  ips: string[];
}

export interface AntiBot {
  enabled: boolean;
  scanner: boolean;
  scriptTool: boolean;
  otherCrawler: boolean;
}

export interface AccountExtraction {
  enabled: boolean;
  loginPath: string;
  usernameSelector: string;
  successSelector: string;
  successText: string;
  failureSelector: string;
  failureText: string;
}

/** The body of POST /sites and PUT /sites/:id (engine/sites/site-input.ts); omitted fields take the engine's defaults. */
export interface SiteInput {
  name: string;
  domain: string;
  runMode: RunMode;
  accessMethod: AccessMethod;
  listMode: ListMode;
  checkList: SiteList;
  passList: SiteList;
  blockList: SiteList;
  tokenCookieName: string;
  identityCookieName: string;
  tokenExpirySeconds: number;
  blockStatus: number;
  blockContent?: string;
  reloadStatus: number;
  reloadContent?: string;
  browserFeatureDetection: boolean;
  queryThreatStore: boolean;
  hideServerInfo: boolean;
  sourceIp: { mode: SourceIpMode; xffMode: XffMode; trustedSources: string[]; customHeader: string };
  accountExtraction: AccountExtraction;
  miniProgramProtection: boolean;
  antiBot: AntiBot;
  powDifficulty: number;
}

export interface SiteStatus {
  connected: boolean;
  protection: boolean;
  lastHeartbeatAt: number | null;
  keeperVersion: string | null;
}

/** The host:port plugin bundles tell gateways to reach Rampart at. */
export interface GatewayAddressView {
  address: string;
  source: 'console' | 'environment' | 'detected';
  automatic: string;
  listening: string;
}

export interface ConnectionTestView {
  address: string;
  reachable: boolean;
  problem: 'refused' | 'timeout' | 'unresolved' | 'not_rampart' | 'unreachable' | null;
  detail: string | null;
  elapsedMs: number;
  heartbeat: { connected: boolean; lastHeartbeatAt: number | null; from: string | null; keeperVersion: string | null };
}

export interface SiteView extends Required<SiteInput> {
  id: string;
  createdAt: number;
  updatedAt: number;
  status: SiteStatus;
}

/** Edition B's global site configuration. The Access Key itself is read with `revealAccessKey` (administrators). */
export interface SiteGlobalView {
  tokenCookieName: string;
  identityCookieName: string;
  tokenExpirySeconds: number;
  ipLock: boolean;
  accessKeySet: boolean;
  /** Dots and the key's last 4 characters. */
  accessKeyMasked: string;
}

export type SiteGlobalInput = Omit<SiteGlobalView, 'accessKeySet' | 'accessKeyMasked'>;

// Basic application security rules (spec 2.5): the rule set, its 12 groups per site, custom rules.

export type ProtectionLevel = 'loose' | 'normal' | 'strict' | 'very_strict';
export const PROTECTION_LEVELS: readonly ProtectionLevel[] = ['loose', 'normal', 'strict', 'very_strict'];

export interface RuleSetProblem {
  file: string;
  line: number;
  message: string;
}

/** The Core Rule Set the engine runs: one for every site. */
export interface RuleSetStatus {
  state: 'loaded' | 'missing';
  source: 'configured' | 'detected' | 'uploaded' | null;
  dir: string | null;
  /** What the operator set; null means auto-detect (or an uploaded set). */
  configuredDir: string | null;
  version: string | null;
  /** Rules of the 12 groups, all levels. */
  ruleCount: number;
  loadedAt: number | null;
  /** Rules left out when loading; the rest of the set runs. */
  problems: RuleSetProblem[];
  /** The last failed load; the previous set kept running. */
  lastError: { message: string; file: string | null; line: number | null; at: number } | null;
  /** The last download of a CRS release since the engine started. */
  download: RuleSetDownloadJob | null;
}

export type RuleSetDownloadFailureCode =
  'unreachable' | 'untrusted' | 'http_status' | 'too_large' | 'truncated' | 'hash_mismatch' | 'bad_url' | 'refused';

/** "Get CRS": a release archive fetched, checked against its pinned SHA-256 and installed. */
export interface RuleSetDownloadJob {
  version: string;
  url: string;
  state: 'downloading' | 'installing' | 'installed' | 'failed';
  receivedBytes: number;
  totalBytes: number | null;
  startedAt: number;
  finishedAt: number | null;
  failure: { code: RuleSetDownloadFailureCode; message: string; params: Record<string, string | number> } | null;
}

export type GroupId = '001' | '002' | '003' | '004' | '005' | '006' | '007' | '008' | '009' | '010' | '011' | '012';
export const GROUP_IDS: readonly GroupId[] = [
  '001',
  '002',
  '003',
  '004',
  '005',
  '006',
  '007',
  '008',
  '009',
  '010',
  '011',
  '012',
];

export interface BasicRuleGroup {
  id: GroupId;
  /** The CRS file number, e.g. 944. */
  file: number;
  enabled: boolean;
  level: ProtectionLevel;
  enabledRuleCount: number;
  ruleCount: number;
}

export interface BasicRule {
  id: number;
  message: string;
  /** The lowest protection level (1 loose .. 4 very strict) that enables the rule. */
  level: 1 | 2 | 3 | 4;
  enabled: boolean;
}

export type CustomLocation =
  | 'all'
  | 'any'
  | 'url'
  | 'param_name'
  | 'header_name'
  | 'referer'
  | 'user_agent'
  | 'cookie_name'
  | 'body'
  | 'source_ip'
  | 'param_value'
  | 'header_value'
  | 'cookie_value';
export type ConditionLocation = Exclude<CustomLocation, 'all' | 'any'>;
export const CONDITION_LOCATIONS: readonly ConditionLocation[] = [
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
];
export const CUSTOM_LOCATIONS: readonly CustomLocation[] = ['all', 'any', ...CONDITION_LOCATIONS];
/** Locations whose regex comes with a name regex ('.*' = any name); several pairs allowed. */
export const PAIR_LOCATIONS: readonly ConditionLocation[] = ['param_value', 'header_value', 'cookie_value'];
/** The only locations a plugin-access site supports. */
export const PLUGIN_LOCATIONS: readonly CustomLocation[] = ['url', 'param_name'];
/** Conditions a name+value, all or any rule may hold. */
export const MAX_CONDITIONS = 20;

export interface CustomCondition {
  location: ConditionLocation;
  /** For name+value locations: a regex for the name, '.*' = any; '' otherwise. */
  name: string;
  pattern: string;
}

export interface CustomRuleInput {
  name: string;
  remark: string;
  enabled: boolean;
  location: CustomLocation;
  conditions: CustomCondition[];
}

export interface CustomRule extends CustomRuleInput {
  id: string;
  attackType: 'custom';
  direction: 'request';
  createdAt: number;
  updatedAt: number;
}
