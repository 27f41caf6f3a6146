/**
 * Composition root: reads settings, opens the stores, wires the modules (the only file that uses
 * tsyringe, with explicit tokens and factories) and starts the servers. Run directly it is the
 * engine process; tests call `startEngine` in process.
 */
import 'reflect-metadata';
import { createWriteStream, existsSync, readFileSync, type WriteStream } from 'node:fs';
import { mkdir, readFile, statfs } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import pino from 'pino';
import { isLoopbackHost, loadSettings, type Settings } from '#engine/settings';
import { ConfigStore, DurableJsonFile, type ConfigSlice, type StorageLogKind } from '#engine/config-store';
import { LogStore } from '#engine/log-store';
import { AccountService, type Mailer } from '#engine/accounts';
import { LicenceService } from '#engine/licence';
import { GlobalListsService, SitesService } from '#engine/sites';
import { SwitchableMailer } from '#engine/mail';
import { AdminSettingsService, effectiveSettings } from '#engine/admin-settings';
import { buildConsoleServer, SESSION_COOKIE, type AnyRoute, type ApiDeps } from '#engine/api';
import { AUDIT_INDEXED_FIELDS, AUDIT_LOG, AuditTrail, registerAuditHooks } from '#engine/audit';
import { applyPendingRestore, consoleBackup, prepareUpgrade, recordDataFormat } from '#engine/backup';
import { SearchService } from '#engine/search';
import { brokersAllowed, Intakes, LogConfigsService, LogIngest, RAW_LOG, rawLogView } from '#engine/log-configs';
import { buildGatewayServer, gatewayTrust, probePort } from '#engine/gateways';
import { ReverseProxy } from '#engine/proxy';
import { ConsoleCertificates, consoleHostNames, createDualProtocolServer } from '#engine/console-tls';
import { ProbeService } from '#engine/probe';
import { createIntel, type Intel } from '#engine/intel';
import { BasicRulesService, RuleSetManager, type CrsPins } from '#engine/basic-rules';
import { DEBIAN_LOCATION, detectRuleSetDir, type RuleSetLocation } from '#engine/waf';
import type { VerdictPorts } from '#engine/verdict';
import { OverviewService } from '#engine/overview';
import { allocatorInUse, EngineMetrics, healthParts } from '#engine/metrics';
import { BanStore, EventRuntime, EventsService, Notifier, RulesService, type BansSnapshot } from '#engine/rules';
import {
  cryptoRandom,
  isRampartError,
  RampartError,
  systemClock,
  type Clock,
  type Logger,
  type Random,
} from '#engine/shared';

/** A container token that carries the type it resolves to, so registration and use cannot disagree. */
interface Token<T> {
  readonly symbol: symbol;
  /** Never set: it only ties the token to T. */
  readonly type?: T;
}

const token = <T>(name: string): Token<T> => ({ symbol: Symbol(name) });

/** Registers a singleton built by `factory` on first use. */
function provide<T>(c: DependencyContainer, t: Token<T>, factory: (c: DependencyContainer) => T): void {
  c.register(t.symbol, { useFactory: instanceCachingFactory(factory) });
}

function get<T>(c: DependencyContainer, t: Token<T>): T {
  return c.resolve<T>(t.symbol);
}

const TOKENS = {
  clock: token<Clock>('Clock'),
  random: token<Random>('Random'),
  logger: token<Logger>('Logger'),
  configStore: token<ConfigStore>('ConfigStore'),
  logStore: token<LogStore>('LogStore'),
  mailer: token<Mailer>('Mailer'),
  accounts: token<AccountService>('AccountService'),
  licence: token<LicenceService>('LicenceService'),
  sites: token<SitesService>('SitesService'),
  ruleSets: token<RuleSetManager>('RuleSetManager'),
  basicRules: token<BasicRulesService>('BasicRulesService'),
} as const;

export interface EngineOptions {
  clock?: Clock;
  random?: Random;
  mailer?: Mailer;
  logger?: pino.Logger;
  /** Folder of the built console; found next to the engine when not given. */
  rendererDir?: string;
  extraRoutes?: AnyRoute[];
  /** Where the Core Rule Set is looked for (default: Debian's location); tests pass [] for an install without one. */
  ruleSetLocations?: readonly RuleSetLocation[];
  /** SHA-256 pins of downloadable CRS releases (default: the repository's); tests pin archives they build. */
  crsPins?: CrsPins;
}

export interface RunningEngine {
  /** Where this host reaches the console (plain HTTP on loopback unless told to redirect it). */
  consoleUrl: string;
  /** The console over HTTPS, and the SHA-256 fingerprint of the appliance's own CA; absent with TLS off. */
  consoleHttps?: { url: string; caFingerprint256: string | null };
  gatewayUrl: string;
  version: string;
  logStore: LogStore;
  container: DependencyContainer;
  stop(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));

export function engineVersion(): string {
  for (let dir = here, i = 0; i < 5; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'rampart' && pkg.version) return pkg.version;
  }
  return '0.0.0';
}

/** The extra certificate authorities for CRS downloads; a file that cannot be read stops the start. */
function readCrsDownloadCa(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (cause) {
    const code = cause instanceof Error && 'code' in cause ? String(cause.code) : 'unreadable';
    throw new RampartError('SETTINGS_INVALID', `RAMPART_CRS_DOWNLOAD_CA: cannot read ${file} (${code})`, {
      field: 'RAMPART_CRS_DOWNLOAD_CA',
    });
  }
}

function findRendererDir(): string | undefined {
  const candidates = [resolve(here, '../renderer'), resolve(here, '../dist/renderer')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

/** The storage settings the console changes: retention days per log kind. */
function storageSettings(store: ConfigSlice<'storage'>): ApiDeps['storage'] {
  return {
    retentionDays: () => ({ ...store.data.storage.retentionDays }),
    setRetentionDays: (days) =>
      store.update((doc) => {
        for (const [kind, value] of Object.entries(days)) {
          if (value !== undefined) doc.storage.retentionDays[kind as StorageLogKind] = value;
        }
      }),
  };
}

export async function startEngine(settings: Settings, options: EngineOptions = {}): Promise<RunningEngine> {
  const logger = options.logger ?? pino({ level: settings.logLevel, base: { service: 'rampart-engine' } });
  await mkdir(settings.dataDir, { recursive: true, mode: 0o700 });
  // A restore staged from the console (engine/backup) becomes the data directory before anything opens it.
  const replaced = await applyPendingRestore(settings.dataDir, options.clock ?? systemClock);
  if (replaced) logger.warn({ previous: replaced }, 'restored a backup; the previous data directory is kept beside it');
  // A folder written by an older Rampart: its migrations are tried in memory, then the folder is
  // copied, then the configuration store migrates it; a failing migration changes nothing.
  const upgrade = await prepareUpgrade(settings.dataDir, options.clock ?? systemClock);
  if (upgrade.backup) {
    logger.warn({ from: upgrade.from, to: upgrade.to, backup: upgrade.backup }, 'upgrading the data folder');
  }
  const configStore = await ConfigStore.open(settings.dataDir, options.clock ?? systemClock, {
    secretKeyFile: settings.secretKeyFile,
  });
  // What an administrator saved on the System page wins over the environment (ports apply only now).
  const environment = settings;
  settings = effectiveSettings(environment, configStore.data.admin);
  // The log configurations' key fields are indexed too; the service is made below, after the store.
  let keyFieldsOfLog: (log: string) => readonly string[] = () => [];
  const logStore = await LogStore.open(
    settings.dataDir,
    (err) => logger.error({ err }, 'access/detection log write failed; those records are lost'),
    // Records older than their kind's retention go every hour; the oldest go sooner when the volume
    // runs short or the cap is reached.
    {
      budget: {
        minFreeRatio: settings.logs.minFreeRatio,
        ...(settings.logs.maxBytes === undefined ? {} : { maxBytes: settings.logs.maxBytes }),
      },
      retention: { days: () => configStore.data.storage.retentionDays },
      clock: options.clock ?? systemClock,
      logger,
      extraIndexedFields: (log) => (log === AUDIT_LOG ? AUDIT_INDEXED_FIELDS : keyFieldsOfLog(log)),
    },
  );
  const vendorPublicKeyPem = settings.licencePublicKeyFile
    ? await readFile(settings.licencePublicKeyFile, 'utf8')
    : undefined;
  const version = engineVersion();

  const c = rootContainer.createChildContainer();
  provide(c, TOKENS.clock, () => options.clock ?? systemClock);
  provide(c, TOKENS.random, () => options.random ?? cryptoRandom);
  provide(c, TOKENS.logger, () => logger);
  provide(c, TOKENS.configStore, () => configStore);
  provide(c, TOKENS.logStore, () => logStore);
  // One mailer for the engine, pointed at another SMTP server when one is saved (a test's own mailer stays).
  const testMailer = options.mailer;
  const mailer = new SwitchableMailer(settings.smtp, testMailer ? () => testMailer : undefined);
  provide(c, TOKENS.mailer, () => mailer);
  // Each service gets the slice of the configuration it works on, not the whole store.
  provide(
    c,
    TOKENS.accounts,
    (c) =>
      new AccountService({
        store: get(c, TOKENS.configStore).slice(['accounts', 'links', 'audit', 'secrets', 'admin']),
        clock: get(c, TOKENS.clock),
        random: get(c, TOKENS.random),
        mailer: get(c, TOKENS.mailer),
        logger: get(c, TOKENS.logger),
        publicUrl: settings.publicUrl,
        session: { idleMs: settings.session.idleMs, absoluteMs: settings.session.absoluteMs },
      }),
  );
  provide(
    c,
    TOKENS.licence,
    (c) =>
      new LicenceService({
        store: get(c, TOKENS.configStore).slice(['licence', 'installation', 'audit']),
        clock: get(c, TOKENS.clock),
        edition: settings.edition,
        vendorPublicKeyPem,
      }),
  );

  // The gateway and console ports are known once they listen (a test may ask for port 0).
  let gatewayPort = settings.gateway.port;
  let consolePort = settings.console.port;
  provide(
    c,
    TOKENS.sites,
    (c) =>
      new SitesService({
        store: get(c, TOKENS.configStore).slice(['sites', 'siteGlobal', 'gateway', 'logConfigs']),
        clock: get(c, TOKENS.clock),
        random: get(c, TOKENS.random),
        edition: settings.edition,
        gateway: () => ({ host: settings.gateway.host, port: gatewayPort, environment: settings.gateway.advertised }),
      }),
  );

  // The WAF's compatibility log: ModSecurity-style lines for CRS's go-ftw, when a file is configured.
  let compatLog: WriteStream | undefined;
  if (settings.waf.compatLogFile) {
    compatLog = createWriteStream(settings.waf.compatLogFile, { flags: 'a' });
    compatLog.on('error', (error) =>
      logger.error({ err: error, file: settings.waf.compatLogFile }, 'cannot write the WAF compatibility log'),
    );
  }
  const compatibilityLog = compatLog
    ? (line: string) => compatLog.write(`${new Date().toISOString()} [error] ${line}\n`)
    : undefined;
  provide(
    c,
    TOKENS.ruleSets,
    (c) =>
      new RuleSetManager({
        store: get(c, TOKENS.configStore).slice(['ruleSet']),
        dataDir: settings.dataDir,
        clock: get(c, TOKENS.clock),
        logger: get(c, TOKENS.logger),
        waf: {
          requestBodyLimit: settings.waf.bodyLimit,
          requestBodyLimitAction: settings.waf.bodyLimitAction,
          compatibilityLog,
        },
        // Debian's modsecurity-crs first (the host's own, kept up to date by apt), then a release carried with the app.
        detect: () =>
          detectRuleSetDir([
            ...(options.ruleSetLocations ?? [DEBIAN_LOCATION]),
            ...(settings.crsBundledDir ? [{ dir: settings.crsBundledDir, etc: settings.crsBundledDir }] : []),
          ]),
        download: {
          urlTemplate: settings.crsDownload.urlTemplate,
          extraCa: readCrsDownloadCa(settings.crsDownload.caFile),
          ...(options.crsPins ? { pins: options.crsPins } : {}),
        },
      }),
  );
  const ruleSets = get(c, TOKENS.ruleSets);
  await ruleSets.start();
  provide(
    c,
    TOKENS.basicRules,
    (c) =>
      new BasicRulesService({
        store: get(c, TOKENS.configStore).slice(['sites', 'basicRules']),
        clock: get(c, TOKENS.clock),
        random: get(c, TOKENS.random),
        ruleSets: get(c, TOKENS.ruleSets),
        compatibilityLog,
      }),
  );
  const basicRules = get(c, TOKENS.basicRules);

  const logConfigs = new LogConfigsService({
    brokersAllowed: (brokers) => brokersAllowed(brokers, settings.intake.kafkaBrokersAllowed),
    store: configStore.slice(['logConfigs']),
    clock: get(c, TOKENS.clock),
    random: get(c, TOKENS.random),
  });
  keyFieldsOfLog = (log) => logConfigs.keyFieldsOfLog(log);
  const intel: Intel = await createIntel({
    cityDb: settings.intel.cityDb,
    ...(settings.intel.countryDb ? { countryDb: settings.intel.countryDb } : {}),
    ...(settings.intel.asnDb ? { asnDb: settings.intel.asnDb } : {}),
  });
  const intakes = new Intakes({
    configs: logConfigs,
    ingest: new LogIngest({
      store: logStore,
      configs: logConfigs,
      clock: get(c, TOKENS.clock),
      intel: (ip, userAgent) => intel.lookup(ip, userAgent),
    }),
    store: configStore.slice(['intake']),
    logStore,
    intel: (ip, userAgent) => intel.lookup(ip, userAgent),
    clock: get(c, TOKENS.clock),
    logger,
    tcp: { host: settings.gateway.host, port: settings.intake.port },
    kafkaBrokersAllowed: settings.intake.kafkaBrokersAllowed,
    advertisedHost: () => {
      const address = get(c, TOKENS.sites).gatewayAddress().address;
      return address.startsWith('[') ? address.slice(1, address.indexOf(']')) : address.replace(/:\d+$/, '');
    },
  });

  // Events, rules and bans: the log store's observer feeds the event engine; bans are kept in
  // memory for the verdict and written (debounced) to bans.json so they outlive a restart.
  const bansFile = new DurableJsonFile<BansSnapshot>(join(settings.dataDir, 'bans.json'));
  let bansDirty: NodeJS.Timeout | null = null;
  const saveBans = (): Promise<void> =>
    bansFile
      .writeText(bans.snapshotPieces())
      .catch((err: unknown) => logger.error({ err }, 'cannot write the bans file'));
  const bans: BanStore = new BanStore({
    clock: get(c, TOKENS.clock),
    changed: () => {
      bansDirty ??= setTimeout(() => {
        bansDirty = null;
        void saveBans();
      }, 1_000);
    },
  });
  bans.load(await bansFile.read());
  const events = new EventsService({
    store: configStore.slice(['events', 'rules', 'logConfigs']),
    clock: get(c, TOKENS.clock),
    random: get(c, TOKENS.random),
  });
  const rules = new RulesService({
    store: configStore.slice(['rules', 'events', 'sites']),
    clock: get(c, TOKENS.clock),
    random: get(c, TOKENS.random),
    edition: settings.edition,
  });
  const globalLists = new GlobalListsService(configStore.slice(['ipLists']));
  const eventRuntime = new EventRuntime({
    events,
    rules,
    bans,
    store: logStore,
    clock: get(c, TOKENS.clock),
    logger,
    edition: settings.edition,
    stateFile: join(settings.dataDir, 'events-state.json'),
    history: logStore,
    notifier: new Notifier({
      clock: get(c, TOKENS.clock),
      logger,
      mail: (to, subject, text) => {
        const mailer = get(c, TOKENS.mailer);
        return mailer.configured
          ? mailer.send({ to, subject, text })
          : Promise.reject(new Error('no SMTP server is configured'));
      },
    }),
  });
  await eventRuntime.start();
  logStore.observe(eventRuntime.observe);

  // Metrics read the intakes' own counters and the store's size on a scrape; the verdict counts itself.
  const brokerConfigs = (): { id: string; name: string }[] => logConfigs.list().filter((c) => c.method === 'broker');
  const allocator = allocatorInUse();
  const metrics = new EngineMetrics({
    allocator,
    ingest: () => {
      let tcp = 0;
      let kafka = 0;
      const discarded: { config: string; count: number }[] = [];
      for (const config of logConfigs.list()) {
        if (config.method === null) continue;
        const counts = intakes.counts(config);
        if (config.method === 'broker') kafka += counts.received;
        else tcp += counts.received;
        if (counts.discarded > 0) discarded.push({ config: config.id, count: counts.discarded });
      }
      return { tcp, kafka, discarded };
    },
    kafkaLag: () =>
      brokerConfigs().flatMap((c) =>
        intakes.kafkaLag(c.id).map((l) => ({ config: c.id, partition: l.partition, lag: l.lag })),
      ),
    // LevelDB's estimate in one call: the per-log sizes flush first and seek each log's span, which
    // under a heavy stream (a write stall behind compactions) outlasted a 5 s scrape.
    storeBytes: () => logStore.approximateBytes(),
  });
  let gatewayListening = false;
  const system = {
    health: () =>
      healthParts({
        gateway: () => ({ listening: gatewayListening, port: gatewayPort }),
        intake: () => ({ port: settings.intake.port, listening: intakes.tcpListening }),
        kafka: () =>
          brokerConfigs().map((c) => {
            const status = intakes.kafkaStatus(c.id);
            return { config: c.id, name: c.name, state: status.state, lastError: status.lastError };
          }),
        storeBytes: () => metrics.storeBytes(),
        volume: async () => {
          const s = await statfs(settings.dataDir);
          return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
        },
        budget: settings.logs,
        proxy: () => proxyRef?.status().listeners ?? [],
      }),
    headline: () => metrics.headline(),
    metrics: () => metrics.text(),
    metricsContentType: metrics.contentType,
    metricsToken: settings.metrics.token,
  };

  let proxyRef: ReverseProxy | undefined = undefined;
  // The console's TLS (engine/console-tls): the appliance's own CA and certificate, made at the
  // first start, or an uploaded one, or files given at start; HTTPS and plain HTTP on one port.
  const consoleTls = settings.console.https
    ? new ConsoleCertificates({
        store: configStore.slice(['consoleTls']),
        clock: get(c, TOKENS.clock),
        hostNames: () => consoleHostNames(settings.console.host, new URL(settings.publicUrl).hostname),
        ...(settings.console.tls
          ? {
              files: {
                certPem: await readFile(settings.console.tls.certFile, 'utf8'),
                keyPem: await readFile(settings.console.tls.keyFile, 'utf8'),
              },
            }
          : {}),
      })
    : undefined;
  if (consoleTls && !settings.console.tls) await consoleTls.ensure();
  const tls = consoleTls
    ? {
        serverFactory: (handler: Parameters<typeof createDualProtocolServer>[0]) => {
          const dual = createDualProtocolServer(handler, consoleTls.current());
          consoleTls.onChange((next) => dual.setTls(next));
          return dual.server;
        },
        plainHttp: settings.console.plainHttp,
      }
    : undefined;
  const app = await buildConsoleServer(
    {
      accounts: get(c, TOKENS.accounts),
      licence: get(c, TOKENS.licence),
      sites: get(c, TOKENS.sites),
      basicRules,
      ruleSets,
      logStore,
      search: new SearchService({
        store: logStore,
        clock: get(c, TOKENS.clock),
        views: new Map([[RAW_LOG, rawLogView]]),
      }),
      logConfigs,
      intakes,
      events,
      rules,
      globalLists,
      overview: new OverviewService({
        store: logStore,
        sites: () => get(c, TOKENS.sites).list(),
        connected: (siteId) => get(c, TOKENS.sites).status(siteId).connected,
        enabledBasicRules: (siteId) =>
          basicRules
            .groups(siteId)
            .filter((g) => g.enabled)
            .reduce((sum, g) => sum + g.enabledRuleCount, 0) +
          basicRules.customRules(siteId).filter((r) => r.enabled).length,
        edition: settings.edition,
      }),
      bans,
      eventRuntime,
      storage: storageSettings(configStore.slice(['storage'])),
      clock: get(c, TOKENS.clock),
      gatewayLogPort: settings.gateway.logPort,
      logger: get(c, TOKENS.logger),
      edition: settings.edition,
      version,
      consoleTls: consoleTls ?? null,
      rendererDir: options.rendererDir ?? findRendererDir(),
      system,
      proxy: () => proxyRef?.status() ?? null,
      adminSettings: new AdminSettingsService({
        store: configStore.slice(['admin', 'sites']),
        environment,
        listening: () => ({
          console: consolePort,
          gateway: gatewayPort,
          intake: intakes.tcpListening ? settings.intake.port : 0,
        }),
        mailer,
        sessions: get(c, TOKENS.accounts).sessions,
      }),
      backup: consoleBackup({
        dataDir: settings.dataDir,
        logEntries: () => logStore.entries(),
        engineVersion: version,
        clock: options.clock ?? systemClock,
      }),
    },
    { ...(tls ? { tls } : {}), extraRoutes: options.extraRoutes },
  );
  // The audit trail (engine/audit): every changing API call, its before and after read from the
  // stored configuration (and the bans), into the audit log.
  const accounts = get(c, TOKENS.accounts);
  registerAuditHooks(
    app,
    new AuditTrail({
      append: (log, record) => logStore.append(log, record),
      config: () => configStore.data,
      ban: (id) => bans.get(id),
      linkAccount: (token) => accounts.linkAccountId(token),
      clock: get(c, TOKENS.clock),
      logger,
    }),
    {
      actorOf: (request) => {
        const current = accounts.current(request.cookies[SESSION_COOKIE]);
        return current.kind === 'valid'
          ? { id: current.account.id, name: current.account.email, role: current.account.role }
          : undefined;
      },
    },
  );
  const clock = get(c, TOKENS.clock);
  const probe = new ProbeService({
    secret: Buffer.from(configStore.data.secrets.tokenKey, 'base64url'),
    clock,
    reportsPerMinute: settings.probe.reportsPerMinute,
  });
  const ports: VerdictPorts = {
    edition: settings.edition,
    now: () => clock.now(),
    verifyToken: (token, siteId, ip) => probe.tokens.verify(token, { siteId, ip }),
    deviceOf: (value) => {
      const check = probe.tokens.verifyDeviceId(value);
      return check.kind === 'valid' ? check.deviceId : '';
    },
    isBanned: (siteId, srcIp, deviceId, now, threatStore) => bans.isBanned(siteId, srcIp, deviceId, now, threatStore),
    globalList: (srcIp) => globalLists.check(srcIp),
    botTypeOf: (userAgent) => intel.lookup('', userAgent).intel.bot_type,
    inspect: (request, site, srcIp, probe) => {
      const started = performance.now();
      const outcome = basicRules.inspect(request, site, srcIp, probe);
      metrics.wafSeconds((performance.now() - started) / 1000);
      return outcome;
    },
    wafDenied: (siteId, srcIp, now) => basicRules.isDenied(siteId, srcIp, now),
  };
  const gateway = await buildGatewayServer({
    sites: get(c, TOKENS.sites),
    logStore,
    clock,
    logger,
    ports,
    intel: { lookup: (ip, userAgent) => intel.lookup(ip, userAgent) },
    probe: probePort(probe, clock),
    reportGate: probe,
    metrics,
    version,
    inspectBodyLimit: settings.waf.bodyLimit,
    oversizeHead: settings.gateway.oversizeHead,
    ...(settings.gateway.trusted ? { trustedGateways: settings.gateway.trusted } : {}),
    pagesAllowInline: settings.gateway.pagesInline,
    gatewayLog: {
      host: settings.gateway.host,
      port: settings.gateway.logPort,
      mergeWaitMs: settings.gateway.accessMergeWaitMs,
    },
  });

  // A port saved on the System page that cannot be had falls back to the environment's, so a bad
  // choice never leaves the appliance without its console (the System page then shows both).
  const listenOr = async (name: string, saved: number, fallback: number, listen: (port: number) => Promise<string>) => {
    try {
      return await listen(saved);
    } catch (error) {
      if (saved === fallback) throw error;
      logger.error({ err: error, saved, port: fallback }, `cannot listen on the ${name} port saved on the System page`);
      return listen(fallback);
    }
  };
  const address = await listenOr('console', settings.console.port, environment.console.port, (port) =>
    app.listen({ host: settings.console.host, port }),
  );
  consolePort = Number(new URL(address).port);
  const gatewayAddress = await listenOr('gateway', settings.gateway.port, environment.gateway.port, (port) =>
    gateway.listen({ host: settings.gateway.host, port }),
  );
  gatewayPort = Number(new URL(gatewayAddress).port);
  gatewayListening = true;
  const gatewayLoopback = `http://${settings.gateway.host === '0.0.0.0' || settings.gateway.host === '::' ? '127.0.0.1' : settings.gateway.host}:${gatewayPort}`;
  // CNAME sites: the reverse proxy listens on their ports and follows their changes.
  const proxy = new ReverseProxy({
    sites: get(c, TOKENS.sites),
    logStore,
    clock,
    logger,
    ports,
    waf: {
      begin: (request, site, srcIp, probe) => {
        const started = performance.now();
        const open = basicRules.begin(request, site, srcIp, probe);
        metrics.wafSeconds((performance.now() - started) / 1000);
        return open;
      },
    },
    intel: { lookup: (ip, userAgent) => intel.lookup(ip, userAgent) },
    probe: probePort(probe, clock),
    pagesUrl: () => gatewayLoopback,
    trustedGateway: gatewayTrust(settings.gateway.trusted, get(c, TOKENS.sites)),
    host: settings.proxy.host,
    timeouts: {
      connectMs: settings.proxy.connectTimeoutMs,
      headersMs: settings.proxy.originTimeoutMs,
      clientHeadMs: settings.proxy.clientHeadTimeoutMs,
    },
    inspectBodyLimit: settings.waf.bodyLimit,
    pagesAllowInline: settings.gateway.pagesInline,
    metrics,
  });
  await proxy.start();
  proxyRef = proxy;
  await intakes.start();
  const port = new URL(address).port;
  const host = settings.console.host.includes(':') ? `[${settings.console.host}]` : settings.console.host;
  const plainServed =
    !consoleTls || (settings.console.plainHttp === 'loopback' && isLoopbackHost(settings.console.host));
  const localHost = host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
  const consoleUrl = `${plainServed ? 'http' : 'https'}://${localHost}:${port}`;
  const consoleHttps = consoleTls
    ? { url: `https://${localHost}:${port}`, caFingerprint256: consoleTls.status().ca?.fingerprint256 ?? null }
    : undefined;
  await recordDataFormat(settings.dataDir, upgrade, version, options.clock ?? systemClock);
  logger.info({ consoleUrl, dataDir: settings.dataDir, edition: settings.edition, version, allocator }, 'engine ready');

  let stopping: Promise<void> | undefined;
  const gatewayUrl = `http://${settings.gateway.host === '0.0.0.0' ? '127.0.0.1' : settings.gateway.host}:${new URL(gatewayAddress).port}`;
  return {
    consoleUrl,
    ...(consoleHttps ? { consoleHttps } : {}),
    gatewayUrl,
    version,
    logStore,
    container: c,
    stop: () =>
      (stopping ??= (async () => {
        await Promise.all([app.close(), gateway.close(), intakes.close(), proxy.close()]);
        gatewayListening = false;
        metrics.close();
        logStore.observe(null);
        await eventRuntime.stop();
        if (bansDirty) clearTimeout(bansDirty);
        await saveBans();
        await logStore.close();
        await new Promise<void>((done) => (compatLog ? compatLog.end(done) : done()));
        c.clearInstances();
        logger.info({}, 'engine stopped');
      })()),
  };
}

/** Exit code when settings or stored configuration are unusable: a supervisor must not retry. */
export const EXIT_CONFIG = 78;

interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
}

function parentChannel():
  { send(message: unknown): void; onMessage(cb: (message: unknown) => void): void } | undefined {
  const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (port) return { send: (m) => port.postMessage(m), onMessage: (cb) => port.on('message', (e) => cb(e.data)) };
  if (process.send) {
    return {
      send: (m) => process.send?.(m),
      onMessage: (cb) => process.on('message', cb),
    };
  }
  return undefined;
}

async function runAsProcess(): Promise<void> {
  const parent = parentChannel();
  let engine: RunningEngine;
  try {
    const settings = loadSettings(process.env, process.argv.slice(2));
    engine = await startEngine(settings);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const config = isRampartError(error) && (error.code === 'SETTINGS_INVALID' || error.code === 'CONFIG_CORRUPT');
    const inUse = (error as { code?: string }).code === 'EADDRINUSE';
    console.error(
      `rampart: cannot start: ${inUse ? `${message} (another program uses this port; set RAMPART_CONSOLE_PORT)` : message}`,
    );
    parent?.send({ type: 'fatal', message });
    // Exit explicitly: a half-started server or the IPC channel must not keep the process alive.
    setImmediate(() => process.exit(config || inUse ? EXIT_CONFIG : 1));
    return;
  }
  const shutdown = (): void => {
    void engine.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  parent?.onMessage((message) => {
    if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'shutdown')
      shutdown();
  });
  parent?.send({
    type: 'ready',
    consoleUrl: engine.consoleUrl,
    version: engine.version,
    ...(engine.consoleHttps
      ? { secureUrl: engine.consoleHttps.url, caFingerprint256: engine.consoleHttps.caFingerprint256 }
      : {}),
  });
  if (!parent) {
    console.log(`Rampart console: ${engine.consoleUrl}`);
    if (engine.consoleHttps && engine.consoleHttps.url !== engine.consoleUrl) {
      console.log(`Rampart console over HTTPS: ${engine.consoleHttps.url}`);
    }
  }
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) void runAsProcess();
