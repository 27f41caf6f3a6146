/**
 * Configuration store: the appliance's configuration as one lowdb JSON document in the data
 * directory. Writes are durable (temp file, fsync, rename, fsync directory) and keep the previous
 * generation as `config.json.bak`; a crash at any moment leaves a whole old or new generation.
 * The document carries a schema version; migrations run at open. Secrets are sealed on disk
 * (AES-256-GCM, key in `secret.key` or RAMPART_SECRET_KEY_FILE) and plain in memory.
 */
export { ConfigStore, CONFIG_FILE_NAME, readConfigDocument } from './config-store.ts';
export type { ConfigSlice, ConfigStoreOptions } from './config-store.ts';
export { SecretBox, SECRET_KEY_FILE_NAME, ENVELOPE_V1, isSealed, loadSecretKey } from './secret-box.ts';
export { DurableJsonFile } from './durable-file.ts';
export {
  SCHEMA_VERSION,
  emptyDocument,
  defaultSiteGlobal,
  DEFAULT_TOKEN_COOKIE,
  DEFAULT_IDENTITY_COOKIE,
  STORAGE_LOG_KINDS,
  defaultStorage,
  accessLogConfig,
  presetEvents,
  defaultAdminSettings,
} from './document.ts';
export { migrate, type Migration } from './migrations.ts';
export type {
  ConfigDocument,
  AccountRecord,
  TwoFactorRecord,
  ConsoleTlsRecord,
  SmtpSettingsRecord,
  AdminSettingsRecord,
  LinkRecord,
  LinkPurpose,
  FormalLicenceRecord,
  PurchaseRecord,
  AuditRecord,
  SiteRecord,
  CnameRecord,
  SiteCertificateRecord,
  SiteList,
  SiteGlobalRecord,
  GatewayRecord,
  LogConfigRecord,
  LogFieldRecord,
  LogTimeRecord,
  LogKeyTarget,
  BrokerRecord,
  LogCertificateRecord,
  IntakeRecord,
  RunMode,
  AccessMethod,
  ListMode,
  SourceIpMode,
  XffMode,
  ProtectionLevel,
  RuleGroupSetting,
  CustomRuleCondition,
  CustomRuleRecord,
  SiteBasicRulesRecord,
  WafExclusionRecord,
  EventRecord,
  RuleRecord,
  GlobalIpListsRecord,
  RuleSetSourceRecord,
  StorageRecord,
  StorageLogKind,
} from './document.ts';
