import { RampartError, newSecret } from '#engine/shared';
import {
  SCHEMA_VERSION,
  accessLogConfig,
  defaultSiteGlobal,
  defaultStorage,
  DEFAULT_AUDIT_RETENTION_DAYS,
  defaultAdminSettings,
  presetEvents,
  type ConfigDocument,
} from './document.ts';

/**
 * migrations[n] turns a version-n document into a version-(n+1) one. Each is pure and runs once,
 * at start-up, before anything reads the document; the result is written as a new generation, so
 * the previous one stays in the backup file.
 */
export type Migration = (doc: Record<string, unknown>) => Record<string, unknown>;
const migrations: Record<number, Migration> = {
  // 1 -> 2: sites, their global configuration, access log configurations and the signing secret.
  1: (doc) => ({
    ...doc,
    secrets: { tokenKey: newSecret() },
    sites: [],
    siteGlobal: defaultSiteGlobal(newSecret()),
    logConfigs: [],
  }),
  // 2 -> 3: the rule-set source and each site's basic rules.
  2: (doc) => ({ ...doc, ruleSet: { source: 'auto', dir: null }, basicRules: {} }),
  // 3 -> 4: the gateway address plugin bundles advertise, automatic until an operator sets one.
  3: (doc) => ({ ...doc, gateway: { advertisedAddress: '' } }),
  // 4 -> 5: how long each kind of log is kept (30 days each).
  4: (doc) => ({ ...doc, storage: defaultStorage() }),
  // 5 -> 6: log configurations of every kind (spec 2.2), and the TLS intake's own certificate.
  5: (doc) => ({
    ...doc,
    intake: null,
    logConfigs: (Array.isArray(doc.logConfigs) ? (doc.logConfigs as Record<string, unknown>[]) : []).map((c) => ({
      ...accessLogConfig(String(c.id), String(c.name), String(c.siteId), Number(c.createdAt) || 0),
      ...(c.keyFields && typeof c.keyFields === 'object' ? { keyFields: c.keyFields } : {}),
    })),
  }),
  // 6 -> 7: events (with the presets), event-based rules, the global IP lists, and the retention of
  // the probe-download log (as long as the detection log's).
  6: (doc) => {
    const storage = (doc.storage ?? defaultStorage()) as { retentionDays: Record<string, number> };
    return {
      ...doc,
      events: presetEvents(Date.now()),
      rules: [],
      ipLists: { pass: [], block: [] },
      storage: {
        ...storage,
        retentionDays: { ...storage.retentionDays, probe: storage.retentionDays.detection ?? 30 },
      },
    };
  },
  // 7 -> 8: the audit log's retention (a year).
  7: (doc) => {
    const storage = (doc.storage ?? defaultStorage()) as { retentionDays: Record<string, number> };
    return {
      ...doc,
      storage: { ...storage, retentionDays: { ...storage.retentionDays, audit: DEFAULT_AUDIT_RETENTION_DAYS } },
    };
  },
  // 8 -> 9: secrets sealed at rest (secret-box.ts). Nothing changes in the document's shape: the
  // store writes the migrated document at open, and every write seals the secrets.
  8: (doc) => doc,
  // 9 -> 10: the console's own TLS certificate (made at the next start), administration settings
  // made in the console, and each account's second factor (none yet).
  9: (doc) => {
    // A damaged list is refused rather than dropped: the accounts would be lost with it.
    if (doc.accounts !== undefined && !Array.isArray(doc.accounts)) {
      throw new RampartError('CONFIG_CORRUPT', "The configuration's accounts are not a list.");
    }
    return {
      ...doc,
      consoleTls: null,
      admin: defaultAdminSettings(),
      accounts: ((doc.accounts ?? []) as Record<string, unknown>[]).map((a) => ({ ...a, twoFactor: null })),
    };
  },
};

export function migrate(
  raw: unknown,
  steps: Readonly<Record<number, Migration>> = migrations,
  target: number = SCHEMA_VERSION,
): { doc: ConfigDocument; migrated: boolean } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new RampartError('CONFIG_CORRUPT', 'The configuration file does not hold a JSON object.');
  }
  let doc = raw as Record<string, unknown>;
  let version = doc.schemaVersion;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new RampartError('CONFIG_CORRUPT', 'The configuration file has no valid schemaVersion.');
  }
  if (version > target) {
    throw new RampartError(
      'CONFIG_CORRUPT',
      `The configuration was written by a newer Rampart (schema ${version}; this one reads up to ${target}). Upgrade Rampart.`,
    );
  }
  const migrated = version < target;
  while (version < target) {
    const step = steps[version];
    if (!step) throw new RampartError('CONFIG_CORRUPT', `No migration from schema version ${version}.`);
    doc = { ...step(doc), schemaVersion: version + 1 };
    version += 1;
  }
  return { doc: doc as unknown as ConfigDocument, migrated };
}
