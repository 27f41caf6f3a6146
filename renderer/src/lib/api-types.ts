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
