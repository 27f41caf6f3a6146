import type { ModuleKey, Role } from '#engine/shared';

/**
 * The configuration document: everything the appliance is told, as one JSON file. Each slice is
 * plain data; the modules that own a slice give it behaviour. Bump SCHEMA_VERSION and add a
 * migration in migrations.ts whenever a stored shape changes.
 */
export const SCHEMA_VERSION = 1;

export interface AccountRecord {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** The tenant administrator made at first-run setup: never disabled, deleted or re-roled. */
  tenant: boolean;
  activated: boolean;
  enabled: boolean;
  passwordHash: string | null;
  createdAt: number;
  activatedAt: number | null;
  passwordChangedAt: number | null;
  lastSignInAt: number | null;
}

export type LinkPurpose = 'activate' | 'reset';

/** A single-use e-mailed link. Only the hash of its secret is stored. */
export interface LinkRecord {
  tokenHash: string;
  accountId: string;
  purpose: LinkPurpose;
  createdAt: number;
  expiresAt: number;
}

export interface PurchaseRecord {
  orderTime: number;
  orderNumber: string;
  product: string;
  expiresAt: number;
  status: string;
  remark: string;
}

/** What an imported, signature-checked licence file said. Absent while the install is a trial. */
export interface FormalLicenceRecord {
  enterpriseId: string;
  customerName: string;
  issuedAt: number;
  importedAt: number;
  modules: { module: ModuleKey; expiresAt: number }[];
  purchases: PurchaseRecord[];
}

export interface AuditRecord {
  at: number;
  actorId: string | null;
  action: string;
  targetId: string | null;
}

export interface ConfigDocument {
  schemaVersion: number;
  installation: { id: string; createdAt: number };
  accounts: AccountRecord[];
  links: LinkRecord[];
  licence: FormalLicenceRecord | null;
  audit: AuditRecord[];
}

export function emptyDocument(installationId: string, now: number): ConfigDocument {
  return {
    schemaVersion: SCHEMA_VERSION,
    installation: { id: installationId, createdAt: now },
    accounts: [],
    links: [],
    licence: null,
    audit: [],
  };
}
