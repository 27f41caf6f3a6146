import { homedir } from 'node:os';
import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { EDITIONS, RampartError } from '#engine/shared';

const port = z.coerce
  .number({ error: 'must be a port number' })
  .int('must be a whole number')
  .min(1, 'must be between 1 and 65535')
  .max(65535, 'must be between 1 and 65535');

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** `192.0.2.1`, `2001:db8::1`, `10.0.0.0/8`, `2001:db8::/32`. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** IP addresses and CIDR ranges, comma-separated (an empty list stays empty). */
const addressList = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean),
  )
  .refine((list) => list.every(isAddressOrRange), 'must be IP addresses or CIDR ranges, comma-separated')
  .optional();

const positiveInt = z.coerce.number().int('must be a whole number').positive('must be positive');

/** Every setting, keyed by its environment variable. CLI flags map onto the same keys. */
const settingsSchema = z.object({
  RAMPART_DATA: z.string().min(1).default(resolve(homedir(), '.rampart')),
  RAMPART_SECRET_KEY_FILE: z.string().min(1).optional(),
  RAMPART_CONSOLE_HOST: z.string().min(1).default('127.0.0.1'),
  RAMPART_CONSOLE_PORT: port.default(9080),
  RAMPART_GATEWAY_HOST: z.string().min(1).default('0.0.0.0'),
  RAMPART_GATEWAY_PORT: port.default(9081),
  RAMPART_GATEWAY_ADDRESS: z
    .string()
    .regex(
      /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/,
      'must be host:port, the address gateways use to reach Rampart',
    )
    .optional(),
  RAMPART_GATEWAY_OVERSIZE_HEAD: z.enum(['pass', 'block'], { error: 'must be pass or block' }).default('pass'),
  RAMPART_GATEWAY_TRUSTED: addressList,
  RAMPART_GATEWAY_PAGES_INLINE: bool.default(false),
  // Where the reverse proxy of CNAME sites listens (each site chooses its ports).
  RAMPART_PROXY_HOST: z.string().min(1).default('0.0.0.0'),
  // How long the reverse proxy waits to connect to an origin, and then for its answer's head (then 504).
  RAMPART_PROXY_CONNECT_TIMEOUT_MS: positiveInt.default(5_000),
  RAMPART_PROXY_ORIGIN_TIMEOUT_MS: positiveInt.default(60_000),
  // How long a client may take to send a request head (slow-loris senders get 408 and are cut off).
  RAMPART_PROXY_CLIENT_HEAD_TIMEOUT_MS: positiveInt.default(10_000),
  // The Kafka brokers BROKER configurations may connect to (egress control); absent: any.
  RAMPART_KAFKA_BROKERS_ALLOWED: addressList,
  // A bearer token that lets a Prometheus server scrape /metrics without a session; absent: administrators only.
  RAMPART_METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters (a random token, e.g. openssl rand -hex 24)')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional(),
  // 0 turns the gateway log port off (records are written at verdict time, without response fields).
  RAMPART_GATEWAY_LOG_PORT: z.coerce
    .number({ error: 'must be a port number' })
    .int('must be a whole number')
    .min(0, 'must be between 0 (off) and 65535')
    .max(65535, 'must be between 0 (off) and 65535')
    .default(9082),
  RAMPART_ACCESS_MERGE_WAIT_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int('must be a whole number')
    .min(1, 'must be between 1 and 60000')
    .max(60_000, 'must be between 1 and 60000')
    .default(3000),
  RAMPART_INTAKE_PORT: z.coerce
    .number({ error: 'must be a port number' })
    .int('must be a whole number')
    .min(0, 'must be between 0 (off) and 65535')
    .max(65535, 'must be between 0 (off) and 65535')
    .default(5514),
  RAMPART_CONSOLE_TLS_CERT: z.string().min(1).optional(),
  RAMPART_CONSOLE_TLS_KEY: z.string().min(1).optional(),
  // auto: the console speaks HTTPS with the appliance's own (or an uploaded) certificate, and plain
  // HTTP on the same port; off: plain HTTP only, allowed on a loopback address only.
  RAMPART_CONSOLE_TLS: z.enum(['auto', 'off'], { error: 'must be auto or off' }).default('auto'),
  // loopback: plain HTTP is served to clients on this host and redirected to HTTPS for others;
  // redirect: every plain-HTTP request is redirected.
  RAMPART_CONSOLE_PLAIN_HTTP: z
    .enum(['loopback', 'redirect'], { error: 'must be loopback or redirect' })
    .default('loopback'),
  RAMPART_PUBLIC_URL: z.url({ error: 'must be an absolute URL such as https://rampart.example:9080' }).optional(),
  RAMPART_EDITION: z.enum(EDITIONS, { error: 'must be A or B' }).default('B'),
  RAMPART_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  RAMPART_SESSION_IDLE_MINUTES: positiveInt.default(30),
  RAMPART_SESSION_ABSOLUTE_HOURS: positiveInt.default(12),
  RAMPART_LICENCE_PUBLIC_KEY: z.string().min(1).optional(),
  RAMPART_INTEL_CITY_DB: z.string().min(1).optional(),
  RAMPART_INTEL_COUNTRY_DB: z.string().min(1).optional(),
  RAMPART_INTEL_ASN_DB: z.string().min(1).optional(),
  RAMPART_WAF_BODY_LIMIT: positiveInt.default(131_072),
  RAMPART_WAF_BODY_LIMIT_ACTION: z
    .enum(['Reject', 'ProcessPartial'], { error: 'must be Reject or ProcessPartial' })
    .default('Reject'),
  RAMPART_WAF_COMPAT_LOG: z.string().min(1).optional(),
  RAMPART_CRS_DOWNLOAD_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL; {version} stands for the CRS version' })
    .default(
      'https://github.com/coreruleset/coreruleset/releases/download/v{version}/coreruleset-{version}-minimal.tar.gz',
    ),
  RAMPART_CRS_DOWNLOAD_CA: z.string().min(1).optional(),
  RAMPART_CRS_BUNDLED_DIR: z.string().min(1).optional(),
  RAMPART_SMTP_HOST: z.string().min(1).optional(),
  RAMPART_SMTP_PORT: port.default(587),
  RAMPART_SMTP_SECURE: bool.default(false),
  RAMPART_SMTP_USER: z.string().min(1).optional(),
  RAMPART_SMTP_PASSWORD: z.string().min(1).optional(),
  RAMPART_SMTP_FROM: z.string().min(3).default('Rampart <rampart@localhost>'),
  RAMPART_REPORTS_PER_MINUTE: positiveInt.default(30),
  RAMPART_LOG_MIN_FREE_PERCENT: z.coerce
    .number({ error: 'must be a number' })
    .min(0, 'must be 0 to 90')
    .max(90, 'must be 0 to 90')
    .default(10),
  RAMPART_LOG_MAX_BYTES: positiveInt.optional(),
});

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | undefined;
  password: string | undefined;
  from: string;
}

export interface Settings {
  dataDir: string;
  /**
   * The RAMPART_* keys given in the environment or as flags (the others took their defaults): the
   * System page tells an environment value from a default one.
   */
  given: readonly string[];
  /** The key that seals the configuration's secrets (absent: `<dataDir>/secret.key`). */
  secretKeyFile?: string;
  console: {
    host: string;
    port: number;
    /** Certificate files given at start (they win over the generated or uploaded certificate). */
    tls: { certFile: string; keyFile: string } | undefined;
    /** Whether the console speaks HTTPS (RAMPART_CONSOLE_TLS=auto, or certificate files given). */
    https: boolean;
    plainHttp: 'loopback' | 'redirect';
  };
  /**
   * `advertised` is the host:port gateways reach the gateway API at (written into plugin bundles) when
   * given at start-up (an address set in the console wins; without either it is worked out);
   * `oversizeHead` what a verdict head over 64 KB gets; `trusted` the gateways (addresses, CIDR
   * ranges) believed about the client on the unauthenticated routes (undefined: loopback);
   * `pagesInline` whether reload and block pages may run inline scripts and styles; `logPort` the
   * UDP port (same host) for nginx's access-log lines, 0 off; `accessMergeWaitMs` how long a
   * verdict's access record waits for its line.
   */
  gateway: {
    host: string;
    port: number;
    advertised: string | undefined;
    oversizeHead: 'pass' | 'block';
    trusted: string[] | undefined;
    pagesInline: boolean;
    logPort: number;
    accessMergeWaitMs: number;
  };
  /** The reverse proxy of CNAME sites: the address its site ports bind, and its origin timeouts. */
  proxy: { host: string; connectTimeoutMs: number; originTimeoutMs: number; clientHeadTimeoutMs: number };
  /** `kafkaBrokersAllowed`: the addresses BROKER configurations may reach (undefined: any). */
  intake: { port: number; kafkaBrokersAllowed: readonly string[] | undefined };
  publicUrl: string;
  edition: (typeof EDITIONS)[number];
  logLevel: string;
  session: { idleMs: number; absoluteMs: number };
  licencePublicKeyFile: string | undefined;
  /** Offline intelligence databases; city data is only used when configured (comma-separated paths). */
  intel: { cityDb: string[]; countryDb: string | undefined; asnDb: string | undefined };
  /**
   * The WAF: request body inspection limit and what happens above it (like ModSecurity's
   * SecRequestBodyLimit / SecRequestBodyLimitAction), and the compatibility log file
   * (ModSecurity-style error-log lines, for go-ftw), off when unset.
   */
  waf: { bodyLimit: number; bodyLimitAction: 'Reject' | 'ProcessPartial'; compatLogFile: string | undefined };
  /**
   * "Get CRS v4": where release archives are fetched (`{version}` replaced; an internal mirror on an
   * air-gapped site) and a PEM file of certificate authorities trusted for it besides the system's.
   */
  crsDownload: { urlTemplate: string; caFile: string | undefined };
  /** A CRS release carried with the app (the desktop installers'): run when Debian's modsecurity-crs is not installed. */
  crsBundledDir: string | undefined;
  smtp: SmtpSettings | undefined;
  /** Probe reports accepted per minute from one source address at one site (a burst of as many, then a steady rate). */
  probe: { reportsPerMinute: number };
  /** The log store's disk budget: the share of the volume kept free and an optional cap on its size, bytes. */
  logs: { minFreeRatio: number; maxBytes: number | undefined };
  /** The bearer token a Prometheus server may scrape /metrics with (undefined: signed-in administrators only). */
  metrics: { token: string | undefined };
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\]|localhost)$/i;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}

/** Turns `--console-port 9090` and `--console-port=9090` into `RAMPART_CONSOLE_PORT=9090`. */
export function flagsToEnv(argv: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const known = new Set(Object.keys(settingsSchema.shape));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) {
      throw new RampartError('SETTINGS_INVALID', `unexpected argument "${arg}"`, { field: arg });
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const key = `RAMPART_${name.replace(/-/g, '_').toUpperCase()}`;
    if (!known.has(key)) {
      throw new RampartError('SETTINGS_INVALID', `unknown option --${name}`, { field: `--${name}` });
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined) {
      throw new RampartError('SETTINGS_INVALID', `option --${name} needs a value`, { field: `--${name}` });
    }
    out[key] = value;
  }
  return out;
}

/**
 * Reads settings from the environment, overridden by CLI flags, validated once. A bad value throws
 * a SETTINGS_INVALID error whose message names the variable.
 */
export function loadSettings(env: NodeJS.ProcessEnv, argv: readonly string[] = []): Settings {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(settingsSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  Object.assign(raw, flagsToEnv(argv));
  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? 'settings');
    throw new RampartError('SETTINGS_INVALID', `${key}: ${issue?.message ?? 'invalid'} (got "${raw[key] ?? ''}")`, {
      field: key,
    });
  }
  const s = parsed.data;
  const hasCert = s.RAMPART_CONSOLE_TLS_CERT !== undefined;
  const hasKey = s.RAMPART_CONSOLE_TLS_KEY !== undefined;
  if (hasCert !== hasKey) {
    const missing = hasCert ? 'RAMPART_CONSOLE_TLS_KEY' : 'RAMPART_CONSOLE_TLS_CERT';
    throw new RampartError('SETTINGS_INVALID', `${missing}: must be set together with its pair`, { field: missing });
  }
  const tls =
    s.RAMPART_CONSOLE_TLS_CERT && s.RAMPART_CONSOLE_TLS_KEY
      ? { certFile: s.RAMPART_CONSOLE_TLS_CERT, keyFile: s.RAMPART_CONSOLE_TLS_KEY }
      : undefined;
  const https = tls !== undefined || s.RAMPART_CONSOLE_TLS === 'auto';
  if (!https && !isLoopbackHost(s.RAMPART_CONSOLE_HOST)) {
    throw new RampartError(
      'SETTINGS_INVALID',
      `RAMPART_CONSOLE_HOST: binding the console to the non-loopback address ${s.RAMPART_CONSOLE_HOST} requires TLS; set RAMPART_CONSOLE_TLS=auto (the default) or RAMPART_CONSOLE_TLS_CERT and RAMPART_CONSOLE_TLS_KEY`,
      { field: 'RAMPART_CONSOLE_HOST' },
    );
  }
  const dataDir = isAbsolute(s.RAMPART_DATA) ? s.RAMPART_DATA : resolve(s.RAMPART_DATA);
  // Links in e-mails point at HTTPS unless the console is on loopback with plain HTTP served there.
  const plainOnLoopback = isLoopbackHost(s.RAMPART_CONSOLE_HOST) && s.RAMPART_CONSOLE_PLAIN_HTTP === 'loopback';
  const scheme = tls !== undefined || (https && !plainOnLoopback) ? 'https' : 'http';
  const hostForUrl =
    s.RAMPART_CONSOLE_HOST.includes(':') && !s.RAMPART_CONSOLE_HOST.startsWith('[')
      ? `[${s.RAMPART_CONSOLE_HOST}]`
      : s.RAMPART_CONSOLE_HOST;
  const publicUrl = (s.RAMPART_PUBLIC_URL ?? `${scheme}://${hostForUrl}:${s.RAMPART_CONSOLE_PORT}`).replace(/\/+$/, '');
  return {
    dataDir,
    given: Object.keys(raw),
    ...(s.RAMPART_SECRET_KEY_FILE === undefined ? {} : { secretKeyFile: resolve(s.RAMPART_SECRET_KEY_FILE) }),
    console: {
      host: s.RAMPART_CONSOLE_HOST,
      port: s.RAMPART_CONSOLE_PORT,
      tls,
      https,
      plainHttp: s.RAMPART_CONSOLE_PLAIN_HTTP,
    },
    gateway: {
      host: s.RAMPART_GATEWAY_HOST,
      port: s.RAMPART_GATEWAY_PORT,
      advertised: s.RAMPART_GATEWAY_ADDRESS,
      oversizeHead: s.RAMPART_GATEWAY_OVERSIZE_HEAD,
      trusted: s.RAMPART_GATEWAY_TRUSTED,
      pagesInline: s.RAMPART_GATEWAY_PAGES_INLINE,
      logPort: s.RAMPART_GATEWAY_LOG_PORT,
      accessMergeWaitMs: s.RAMPART_ACCESS_MERGE_WAIT_MS,
    },
    proxy: {
      host: s.RAMPART_PROXY_HOST,
      connectTimeoutMs: s.RAMPART_PROXY_CONNECT_TIMEOUT_MS,
      originTimeoutMs: s.RAMPART_PROXY_ORIGIN_TIMEOUT_MS,
      clientHeadTimeoutMs: s.RAMPART_PROXY_CLIENT_HEAD_TIMEOUT_MS,
    },
    intake: { port: s.RAMPART_INTAKE_PORT, kafkaBrokersAllowed: s.RAMPART_KAFKA_BROKERS_ALLOWED },
    publicUrl,
    edition: s.RAMPART_EDITION,
    logLevel: s.RAMPART_LOG_LEVEL,
    session: {
      idleMs: s.RAMPART_SESSION_IDLE_MINUTES * 60_000,
      absoluteMs: s.RAMPART_SESSION_ABSOLUTE_HOURS * 3_600_000,
    },
    licencePublicKeyFile: s.RAMPART_LICENCE_PUBLIC_KEY,
    waf: {
      bodyLimit: s.RAMPART_WAF_BODY_LIMIT,
      bodyLimitAction: s.RAMPART_WAF_BODY_LIMIT_ACTION,
      compatLogFile: s.RAMPART_WAF_COMPAT_LOG,
    },
    crsDownload: { urlTemplate: s.RAMPART_CRS_DOWNLOAD_URL, caFile: s.RAMPART_CRS_DOWNLOAD_CA },
    crsBundledDir: s.RAMPART_CRS_BUNDLED_DIR,
    intel: {
      cityDb: (s.RAMPART_INTEL_CITY_DB ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
      countryDb: s.RAMPART_INTEL_COUNTRY_DB,
      asnDb: s.RAMPART_INTEL_ASN_DB,
    },
    smtp: s.RAMPART_SMTP_HOST
      ? {
          host: s.RAMPART_SMTP_HOST,
          port: s.RAMPART_SMTP_PORT,
          secure: s.RAMPART_SMTP_SECURE,
          user: s.RAMPART_SMTP_USER,
          password: s.RAMPART_SMTP_PASSWORD,
          from: s.RAMPART_SMTP_FROM,
        }
      : undefined,
    probe: { reportsPerMinute: s.RAMPART_REPORTS_PER_MINUTE },
    logs: { minFreeRatio: s.RAMPART_LOG_MIN_FREE_PERCENT / 100, maxBytes: s.RAMPART_LOG_MAX_BYTES },
    metrics: { token: s.RAMPART_METRICS_TOKEN },
  };
}

/** The listening ports an administrator may save in the console (each absent: the environment's). */
export interface PortOverrides {
  console?: number | undefined;
  gateway?: number | undefined;
  intake?: number | undefined;
}

/**
 * The settings with saved ports in place of the environment's: a saved port wins over
 * RAMPART_CONSOLE_PORT, RAMPART_GATEWAY_PORT and RAMPART_INTAKE_PORT. The links in e-mails follow a
 * new console port unless RAMPART_PUBLIC_URL names their base.
 */
export function withPorts(settings: Settings, ports: PortOverrides): Settings {
  const consolePort = ports.console ?? settings.console.port;
  let publicUrl = settings.publicUrl;
  if (consolePort !== settings.console.port && !settings.given.includes('RAMPART_PUBLIC_URL')) {
    const url = new URL(publicUrl);
    url.port = String(consolePort);
    publicUrl = url.href.replace(/\/+$/, '');
  }
  return {
    ...settings,
    publicUrl,
    console: { ...settings.console, port: consolePort },
    gateway: { ...settings.gateway, port: ports.gateway ?? settings.gateway.port },
    intake: { ...settings.intake, port: ports.intake ?? settings.intake.port },
  };
}

/** The names of every setting, for documentation and `--help`. */
export const SETTING_KEYS = Object.keys(settingsSchema.shape);
