import type { CustomRuleLocation, EventInput, ModuleKey, Role, RuleInput } from '#engine/shared';

/**
 * The configuration document: everything the appliance is told, as one JSON file. Each slice is
 * plain data; the modules that own a slice give it behaviour. Bump SCHEMA_VERSION and add a
 * migration in migrations.ts whenever a stored shape changes.
 */
export const SCHEMA_VERSION = 10;

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
  /** Two-factor sign-in (TOTP, RFC 6238); null while the account has none. */
  twoFactor: TwoFactorRecord | null;
}

/** An account's TOTP second factor. The secret is sealed at rest; recovery codes are kept as hashes. */
export interface TwoFactorRecord {
  /** Base32 of the shared secret (20 random bytes). */
  secret: string;
  enabledAt: number;
  /** Hashes of the unused recovery codes; a used code is removed. */
  recoveryCodeHashes: string[];
  /** The last 30-second step accepted, so a code is never accepted twice. */
  lastUsedStep: number;
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

export type RunMode = 'pass' | 'monitor' | 'block';
export type AccessMethod = 'plugin' | 'pluginless' | 'cname' | 'bypass';
export type ListMode = 'all' | 'only_listed' | 'except_listed';
export type SourceIpMode = 'default' | 'x_real_ip' | 'xff' | 'custom';
export type XffMode = 'leftmost' | 'filter' | 'rightmost';

export interface SiteList {
  pathEnabled: boolean;
  paths: string[];
  ipEnabled: boolean;
  ips: string[];
}

/** One protected site: a site configuration (edition A) or a site (edition B). */
export interface SiteRecord {
  id: string;
  name: string;
  domain: string;
  runMode: RunMode;
  accessMethod: AccessMethod;
  /** Edition A: which requests are checked, by the path and IP lists below. */
  listMode: ListMode;
  checkList: SiteList;
  /** Edition B: pass list (wins on equal content) and block list; paths are regexes. */
  passList: SiteList;
  blockList: SiteList;
  tokenCookieName: string;
  identityCookieName: string;
  tokenExpirySeconds: number;
  blockStatus: number;
  blockContent: string;
  reloadStatus: number;
  reloadContent: string;
  browserFeatureDetection: boolean;
  queryThreatStore: boolean;
  hideServerInfo: boolean;
  sourceIp: { mode: SourceIpMode; xffMode: XffMode; trustedSources: string[]; customHeader: string };
  accountExtraction: {
    enabled: boolean;
    loginPath: string;
    usernameSelector: string;
    successSelector: string;
    successText: string;
    failureSelector: string;
    failureText: string;
  };
  miniProgramProtection: boolean;
  antiBot: { enabled: boolean; scanner: boolean; scriptTool: boolean; otherCrawler: boolean };
  powDifficulty: number;
  /** CNAME access: protocols, ports and origin (absent in sites stored before it existed: defaults). */
  cname?: CnameRecord;
  /** CNAME access over HTTPS: the uploaded certificate chain and key (PEM), checked on upload. */
  certificate?: SiteCertificateRecord;
  /** Plugin access: auth_request verdicts (absent: so), or every request through the inline proxy (`cname`'s port and upstream). */
  pluginMode?: 'verdict' | 'inline';
  createdAt: number;
  updatedAt: number;
}

export interface CnameRecord {
  http: boolean;
  https: boolean;
  httpPort: number;
  httpsPort: number;
  originProtocol: 'http' | 'https';
  /** `host:port`, an IPv6 host in brackets; '' until set. */
  originAddress: string;
  originVerifyTls: boolean;
}

export interface SiteCertificateRecord {
  /** The server certificate first, then its chain. */
  certificatePem: string;
  keyPem: string;
  uploadedAt: number;
}

/** Edition B's global configuration; edition A keeps cookie names and expiry per site. */
export interface SiteGlobalRecord {
  tokenCookieName: string;
  identityCookieName: string;
  tokenExpirySeconds: number;
  accessKey: string;
  ipLock: boolean;
}

/** How gateways reach this appliance: the address plugin bundles carry ('' = worked out automatically). */
export interface GatewayRecord {
  advertisedAddress: string;
}

/** A field area of a log configuration (engine/parse's FieldConfig). */
export type LogFieldRecord =
  | {
      kind: 'regex';
      name: string;
      type: 'string' | 'integer' | 'float';
      regex: string;
      group: number;
      required: boolean;
    }
  | { kind: 'json'; name: string; type: 'string' | 'integer' | 'float'; source: string; required: boolean };

/** Where a record's time comes from (engine/parse's TimeConfig). */
export type LogTimeRecord =
  { mode: 'current' } | { mode: 'extract'; format: 'YYYY-MM-DD hh:mm:ss' | { custom: string }; field: string };

export type LogKeyTarget = 'ip' | 'device' | 'user' | 'custom1' | 'custom2';

/** A BROKER configuration's Kafka connection. */
export interface BrokerRecord {
  /** host:port, comma separated. */
  address: string;
  topic: string;
  account: string;
  password: string;
  mechanism: 'none' | 'plain' | 'scram-sha-256' | 'scram-sha-512';
  tls: boolean;
  /** With tls: PEM certificates of the CA that signed the brokers' (absent or empty: the system's CAs). */
  ca?: string;
}

/** A TCP configuration's certificate bundle (engine/intake issueBundle): regenerating replaces it. */
export interface LogCertificateRecord {
  caCertPem: string;
  caKeyPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** SHA-256 of the client certificate (DER, hex): the TLS intake maps a sender to its configuration by it. */
  fingerprint: string;
  serial: string;
  notAfter: number;
  issuedAt: number;
}

/**
 * A log configuration (spec 2.2): access ones are made with each site (view and copy only), custom
 * ones (TCP or BROKER) by operators.
 */
export interface LogConfigRecord {
  id: string;
  name: string;
  kind: 'access' | 'messaging' | 'custom';
  /** access and messaging: the site; custom: null. */
  siteId: string | null;
  /** custom: how its logs arrive; null for access and messaging. */
  method: 'tcp' | 'broker' | null;
  broker: BrokerRecord | null;
  templateType: 'plain_text' | 'json';
  time: LogTimeRecord;
  /** IANA zone of extracted times. */
  timezone: string;
  fields: LogFieldRecord[];
  keyFields: Partial<Record<LogKeyTarget, string>>;
  intelligence: boolean;
  sampleData: string;
  certificate: LogCertificateRecord | null;
  createdAt: number;
  updatedAt: number;
}

/** The TLS intake's own key and certificate (made on first start; senders do not verify it, spec 4.1 anon). */
export interface IntakeRecord {
  serverKeyPem: string;
  serverCertPem: string;
}

export type ProtectionLevel = 'loose' | 'normal' | 'strict' | 'very_strict';

/** One of the 12 basic rule groups (`001` to `012`) of a site. */
export interface RuleGroupSetting {
  enabled: boolean;
  level: ProtectionLevel;
}

export interface CustomRuleCondition {
  location: Exclude<CustomRuleLocation, 'all' | 'any'>;
  /** For parameter, header and cookie values: a regex for the name (`.*` = any); '' otherwise. */
  name: string;
  pattern: string;
}

/** A custom basic rule (spec 2.5): attack type custom, direction request. */
export interface CustomRuleRecord {
  id: string;
  name: string;
  remark: string;
  enabled: boolean;
  location: CustomRuleLocation;
  conditions: CustomRuleCondition[];
  createdAt: number;
  updatedAt: number;
}

/**
 * A Core Rule Set rule excluded on one site: the whole rule or one target of it (`ARGS:q`), on
 * every path (`''`), one path, or a prefix (`/api/*`); an operator's answer to a false positive.
 */
export interface WafExclusionRecord {
  id: string;
  ruleId: number;
  target: string;
  path: string;
  reason: string;
  /** The account that made it. */
  createdBy: string;
  createdAt: number;
}

/**
 * A site's basic application rules: group switches and levels (absent groups: enabled, loose),
 * custom rules, exclusions (absent: none), the request content types it allows (absent or
 * null: Rampart's default list) and whether the second opinion reconsiders its blocks (absent: off).
 */
export interface SiteBasicRulesRecord {
  groups: Record<string, RuleGroupSetting>;
  customRules: CustomRuleRecord[];
  exclusions?: WafExclusionRecord[];
  contentTypes?: string[] | null;
  secondOpinion?: boolean;
}

/** Where the Core Rule Set comes from: auto-detected, an operator's directory, or an uploaded archive. */
export interface RuleSetSourceRecord {
  source: 'auto' | 'dir' | 'uploaded';
  /** The directory for 'dir' and 'uploaded'; null for 'auto'. */
  dir: string | null;
}

/** The log kinds retention is set for (engine/log-store's LOG_KINDS). */
export const STORAGE_LOG_KINDS = [
  'access',
  'detection',
  'probe',
  'messaging',
  'raw',
  'custom',
  'trigger',
  'audit',
] as const;
export type StorageLogKind = (typeof STORAGE_LOG_KINDS)[number];

/** How long logs are kept: days per log kind (the disk budget may delete sooner). */
export interface StorageRecord {
  retentionDays: Record<StorageLogKind, number>;
}

export const DEFAULT_RETENTION_DAYS = 30;
/** The audit trail is kept a year (issue 19): who changed what is asked about long after the change. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

export function defaultStorage(): StorageRecord {
  return {
    retentionDays: Object.fromEntries(
      STORAGE_LOG_KINDS.map((k) => [k, k === 'audit' ? DEFAULT_AUDIT_RETENTION_DAYS : DEFAULT_RETENTION_DAYS]),
    ) as Record<StorageLogKind, number>,
  };
}

/**
 * An event (spec 2.4): its definition as the console sends it, and whether it is a preset and on.
 * Created disabled; enabled only with a log source and a definition that compiles (engine/events).
 */
export type EventRecord = EventInput & {
  id: string;
  /** A preset event: shipped disabled, with no log source; it may be edited or deleted like others. */
  preset: boolean;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
};

/** An event-based rule (spec 2.5): priorities of 1 and more are unique; no action has the minimum. */
export type RuleRecord = Omit<RuleInput, 'priority'> & {
  id: string;
  priority: number;
  createdAt: number;
  updatedAt: number;
};

/**
 * The console's TLS certificate. The appliance makes its own CA and a server certificate for the
 * host's names and addresses at first start; an administrator may upload one instead. The own CA
 * is kept while an uploaded certificate is in use, so the generated one can be reinstated.
 */
export interface ConsoleTlsRecord {
  ca: { certPem: string; keyPem: string };
  source: 'generated' | 'uploaded';
  /** The served certificate, then its chain. */
  certPem: string;
  keyPem: string;
  /** The DNS names and addresses the generated certificate covers (empty for an uploaded one). */
  names: string[];
  updatedAt: number;
}

/** SMTP settings made in the console; they win over RAMPART_SMTP_*. */
export interface SmtpSettingsRecord {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
  from: string;
}

/** Administration settings made on the System page. Each null or absent value means "the environment's". */
export interface AdminSettingsRecord {
  smtp: SmtpSettingsRecord | null;
  session: { idleMinutes: number; absoluteHours: number } | null;
  /** Listening ports, applied at the next start. */
  ports: { console?: number; gateway?: number; intake?: number };
  /** Administrators must sign in with a second factor. */
  requireTwoFactorForAdmins: boolean;
}

export function defaultAdminSettings(): AdminSettingsRecord {
  return { smtp: null, session: null, ports: {}, requireTwoFactorForAdmins: false };
}

/** Global pass and block lists of addresses and CIDR ranges, shared by all sites. */
export interface GlobalIpListsRecord {
  pass: string[];
  block: string[];
}

export interface ConfigDocument {
  schemaVersion: number;
  installation: { id: string; createdAt: number };
  /** Secret keys the engine signs with (tokens, identities, challenges). Never leave the engine. */
  secrets: { tokenKey: string };
  sites: SiteRecord[];
  siteGlobal: SiteGlobalRecord;
  gateway: GatewayRecord;
  logConfigs: LogConfigRecord[];
  intake: IntakeRecord | null;
  ruleSet: RuleSetSourceRecord;
  storage: StorageRecord;
  /** By site id. */
  basicRules: Record<string, SiteBasicRulesRecord>;
  events: EventRecord[];
  rules: RuleRecord[];
  ipLists: GlobalIpListsRecord;
  accounts: AccountRecord[];
  links: LinkRecord[];
  licence: FormalLicenceRecord | null;
  audit: AuditRecord[];
  /** Made at the first start that serves the console (null before). */
  consoleTls: ConsoleTlsRecord | null;
  admin: AdminSettingsRecord;
}

export const DEFAULT_TOKEN_COOKIE = 'rampart_token';
export const DEFAULT_IDENTITY_COOKIE = 'rampart_id';

export function defaultSiteGlobal(accessKey: string): SiteGlobalRecord {
  return {
    tokenCookieName: DEFAULT_TOKEN_COOKIE,
    identityCookieName: DEFAULT_IDENTITY_COOKIE,
    tokenExpirySeconds: 60,
    accessKey,
    ipLock: false,
  };
}

export function emptyDocument(installationId: string, now: number, secret: () => string): ConfigDocument {
  return {
    schemaVersion: SCHEMA_VERSION,
    installation: { id: installationId, createdAt: now },
    secrets: { tokenKey: secret() },
    sites: [],
    siteGlobal: defaultSiteGlobal(secret()),
    gateway: { advertisedAddress: '' },
    logConfigs: [],
    intake: null,
    ruleSet: { source: 'auto', dir: null },
    storage: defaultStorage(),
    basicRules: {},
    events: presetEvents(now),
    rules: [],
    ipLists: { pass: [], block: [] },
    accounts: [],
    links: [],
    licence: null,
    audit: [],
    consoleTls: null,
    admin: defaultAdminSettings(),
  };
}

/** The fields of an access log configuration made with a site (spec 2.2: src_ip is IP, fingerprint the device). */
export function accessLogConfig(id: string, name: string, siteId: string, now: number): LogConfigRecord {
  return {
    id,
    name,
    kind: 'access',
    siteId,
    method: null,
    broker: null,
    templateType: 'json',
    time: { mode: 'current' },
    timezone: 'UTC',
    fields: [],
    keyFields: { ip: 'src_ip', device: 'fingerprint' },
    intelligence: true,
    sampleData: '',
    certificate: null,
    createdAt: now,
    updatedAt: now,
  };
}

const preset = (now: number, event: EventInput & { id: string }): EventRecord => ({
  ...event,
  preset: true,
  enabled: false,
  createdAt: now,
  updatedAt: now,
});

/**
 * The preset events (spec 2.4): disabled and without a log source, so an operator picks the logs
 * that have the fields (login_status and account come from a site's account extraction or from a
 * custom log's fields of those names) and switches them on.
 */
export function presetEvents(now: number): EventRecord[] {
  const common = { description: '', sources: [] as string[] };
  return [
    preset(now, {
      ...common,
      id: 'preset-login-failed',
      kind: 'simple',
      name: 'Failed login',
      description: 'A record of a failed login (login_status 2)',
      relation: 'a',
      conditions: [{ label: 'a', field: 'login_status', filter: 'number', mode: '=', value: '2' }],
    }),
    preset(now, {
      ...common,
      id: 'preset-login-succeeded',
      kind: 'simple',
      name: 'Successful login',
      description: 'A record of a successful login (login_status 1)',
      relation: 'a',
      conditions: [{ label: 'a', field: 'login_status', filter: 'number', mode: '=', value: '1' }],
    }),
    preset(now, {
      ...common,
      id: 'preset-login-brute-force-ip',
      kind: 'count',
      name: 'Login brute force per IP',
      description: '10 or more failed logins from one IP within 5 minutes',
      triggerEvent: 'preset-login-failed',
      object: 'ip',
      window: { value: 5, unit: 'minute' },
      comparator: '>=',
      threshold: 10,
    }),
    preset(now, {
      ...common,
      id: 'preset-login-brute-force-account',
      kind: 'count',
      name: 'Login brute force per account',
      description: '10 or more failed logins to one account within 10 minutes',
      triggerEvent: 'preset-login-failed',
      object: 'user',
      window: { value: 10, unit: 'minute' },
      comparator: '>=',
      threshold: 10,
    }),
    preset(now, {
      ...common,
      id: 'preset-credential-stuffing',
      kind: 'distinct',
      name: 'Credential stuffing',
      description: 'Failed logins to 5 or more distinct accounts from one IP within 10 minutes',
      triggerEvent: 'preset-login-failed',
      object: 'ip',
      window: { value: 10, unit: 'minute' },
      field: 'account',
      comparator: '>=',
      threshold: 5,
    }),
    preset(now, {
      ...common,
      id: 'preset-login-failed-then-succeeded',
      kind: 'cep',
      name: 'Failed logins then success',
      description: '3 or more failed logins followed by a successful one from one IP within 15 minutes',
      object: 'ip',
      window: { value: 15, unit: 'minute' },
      continuity: 'loose',
      steps: [
        { event: 'preset-login-failed', min: 3, max: 1000 },
        { event: 'preset-login-succeeded', min: 1, max: 1 },
      ],
    }),
    preset(now, {
      ...common,
      id: 'preset-not-found',
      kind: 'simple',
      name: 'Page not found',
      description: 'A response with status 404',
      relation: 'a',
      conditions: [{ label: 'a', field: 'status', filter: 'number', mode: '=', value: '404' }],
    }),
    preset(now, {
      ...common,
      id: 'preset-scanning',
      kind: 'distinct',
      name: 'Path scanning',
      description: '20 or more distinct requests answered 404 from one IP within a minute',
      triggerEvent: 'preset-not-found',
      object: 'ip',
      window: { value: 1, unit: 'minute' },
      field: 'request',
      comparator: '>=',
      threshold: 20,
    }),
    preset(now, {
      ...common,
      id: 'preset-rate-limit-ip',
      kind: 'count',
      name: 'Rate limit per IP',
      description: 'More than 600 requests from one IP within a minute',
      triggerEvent: null,
      object: 'ip',
      window: { value: 1, unit: 'minute' },
      comparator: '>',
      threshold: 600,
    }),
    preset(now, {
      ...common,
      id: 'preset-data-centre-client',
      kind: 'simple',
      name: 'Client in a data centre',
      description: 'A request from an address of a hosting or cloud provider',
      relation: 'a',
      conditions: [{ label: 'a', field: 'ip_classification', filter: 'string', mode: 'exact', value: 'data_center' }],
    }),
    preset(now, {
      ...common,
      id: 'preset-rate-limit-data-centre',
      kind: 'count',
      name: 'Rate limit for data-centre clients',
      description: 'More than 60 requests within a minute from one data-centre IP',
      triggerEvent: 'preset-data-centre-client',
      object: 'ip',
      window: { value: 1, unit: 'minute' },
      comparator: '>',
      threshold: 60,
    }),
    preset(now, {
      ...common,
      id: 'preset-country',
      kind: 'simple',
      name: 'Request from a country',
      description: 'Set the country code (ISO 3166-1 alpha-2) to watch, then use it in a rate limit',
      relation: 'a',
      conditions: [{ label: 'a', field: 'ip_country', filter: 'string', mode: 'exact', value: 'ZZ' }],
    }),
  ];
}
