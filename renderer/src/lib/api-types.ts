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
export const ACCESS_METHODS: Readonly<Record<Edition, readonly AccessMethod[]>> = { A: ['plugin', 'pluginless'], B: ['cname', 'plugin', 'bypass'] };
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

export interface SiteView extends Required<SiteInput> {
  id: string;
  createdAt: number;
  updatedAt: number;
  status: SiteStatus;
}

/** Edition B's global site configuration. */
export interface SiteGlobalView {
  tokenCookieName: string;
  identityCookieName: string;
  tokenExpirySeconds: number;
  accessKey: string;
  ipLock: boolean;
}

export type SiteGlobalInput = Omit<SiteGlobalView, 'accessKey'>;
