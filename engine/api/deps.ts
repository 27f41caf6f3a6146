import type { AccountService, Session } from '#engine/accounts';
import type { LicenceService } from '#engine/licence';
import type { GlobalListsService, SitesService } from '#engine/sites';
import type { BasicRulesService, RuleSetManager } from '#engine/basic-rules';
import type { AccountRecord } from '#engine/config-store';
import type { Clock, Edition, Logger } from '#engine/shared';
import type { LogStore } from '#engine/log-store';
import type { SearchService } from '#engine/search';
import type { Intakes, LogConfigsService } from '#engine/log-configs';
import type { BanStore, EventRuntime, EventsService, RulesService } from '#engine/rules';
import type { OverviewService } from '#engine/overview';
import type { StorageLogKind } from '#engine/config-store';
import type { HealthParts, HeadlineMetrics } from '#engine/metrics';
import type { ConsoleBackup } from '#engine/backup';
import type { ConsoleCertificates } from '#engine/console-tls';
import type { AdminSettingsService } from '#engine/admin-settings';
import type { ProxyStatusView } from './contracts/sites.contract.ts';

export type { AccountRecord, Session };

/** What the API needs from the rest of the engine. */
export interface ApiDeps {
  accounts: AccountService;
  licence: LicenceService;
  sites: SitesService;
  basicRules: BasicRulesService;
  ruleSets: RuleSetManager;
  logStore: LogStore;
  search: SearchService;
  logConfigs: LogConfigsService;
  /** The log intakes and their ingestion (counters, failed records). */
  intakes: Intakes;
  /** Events (spec 2.4), event-based rules (2.5), bans and the runtime's counters. */
  events: EventsService;
  rules: RulesService;
  globalLists: GlobalListsService;
  /** The Security Overview's data. */
  overview: OverviewService;
  bans: BanStore;
  eventRuntime: EventRuntime;
  /** How long each kind of log is kept (the configuration's storage slice). */
  storage: {
    retentionDays(): Record<StorageLogKind, number>;
    setRetentionDays(days: Partial<Record<StorageLogKind, number>>): Promise<void>;
  };
  clock: Clock;
  /** The UDP port plugin bundles send nginx's access-log lines to (0: off, bundles name the default). */
  gatewayLogPort: number;
  logger: Logger;
  edition: Edition;
  version: string;
  /** Folder of the built console, served at /, or undefined when it has not been built. */
  rendererDir: string | undefined;
  /** Health parts and metrics (engine/metrics); absent where a server is built without them (tests). */
  system?: SystemPort;
  /** The reverse proxy's state (engine/proxy), once it runs. */
  proxy?: () => ProxyStatusView | null;
  /** Backup and restore (engine/backup); absent where a server is built without them. */
  backup?: BackupPort;
  /** The console's own TLS certificate (engine/console-tls); null or absent with TLS off. */
  consoleTls?: ConsoleTlsPort | null;
  /** The System page's SMTP, session, port and two-factor settings (engine/admin-settings). */
  adminSettings?: AdminSettingsPort;
}

/** The administration settings (engine/admin-settings' service on the running engine). */
export type AdminSettingsPort = AdminSettingsService;

/** The console's TLS certificate: its state, the own CA, an upload, a return to the generated one. */
export type ConsoleTlsPort = Pick<ConsoleCertificates, 'status' | 'caPem' | 'upload' | 'useGenerated'>;

/** The console's backup and restore (engine/backup's port on the running engine). */
export type BackupPort = ConsoleBackup;

export interface SystemPort {
  health(): Promise<HealthParts>;
  headline(): Promise<HeadlineMetrics>;
  /** Every metric in Prometheus's text format, and its content type. */
  metrics(): Promise<string>;
  metricsContentType: string;
  /** The bearer token a Prometheus server scrapes /metrics with (RAMPART_METRICS_TOKEN); undefined: none. */
  metricsToken: string | undefined;
}
