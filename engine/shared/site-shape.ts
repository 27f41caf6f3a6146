import { z } from 'zod';
import { visibleText } from './text.ts';

/**
 * The shape of a site as the console sends it. Every field has a default, so a new site needs
 * only a name (and a domain in edition B); limits are stated here once.
 */
export const SITE_LIMITS = {
  name: 64,
  domain: 253,
  listLines: 1000,
  lineLength: 512,
  content: 64 * 1024,
  cookieName: 64,
  selector: 256,
} as const;

/** A single line of free text. */
export const plainText = (max: number) =>
  z.string().max(max, `must be at most ${max} characters`).superRefine(visibleText(false));

/** Page content (HTML): tabs and line breaks allowed, other controls and lone surrogates not. */
const pageText = (max: number) =>
  z.string().max(max, `must be at most ${max} characters`).superRefine(visibleText(true));

const DOMAIN_LABEL_MAX = 63;

/** The closed vocabularies of a site, listed once for the input, the view and the console. */
export const RUN_MODES = ['pass', 'monitor', 'block'] as const;
export const ACCESS_METHODS = ['plugin', 'pluginless', 'cname', 'bypass'] as const;
export const LIST_MODES = ['all', 'only_listed', 'except_listed'] as const;
export const SOURCE_IP_MODES = ['default', 'x_real_ip', 'xff', 'custom'] as const;
export const XFF_MODES = ['leftmost', 'filter', 'rightmost'] as const;
export const ORIGIN_PROTOCOLS = ['http', 'https'] as const;
/**
 * How a plugin site's nginx asks Rampart: `verdict` (auth_request: the head only, no body path) or
 * `inline` (nginx passes every request through Rampart's reverse proxy, which inspects the body
 * and forwards to the upstream in `cname`).
 */
export const PLUGIN_MODES = ['verdict', 'inline'] as const;

const oneOf = (values: readonly string[]): string =>
  `must be ${values.slice(0, -1).join(', ')} or ${values[values.length - 1] ?? ''}`;

const lines = z
  .array(z.string().max(SITE_LIMITS.lineLength, `each line must be at most ${SITE_LIMITS.lineLength} characters`))
  .max(SITE_LIMITS.listLines, `at most ${SITE_LIMITS.listLines} lines`);

const list = z
  .object({
    pathEnabled: z.boolean().default(false),
    paths: lines.default([]),
    ipEnabled: z.boolean().default(false),
    ips: lines.default([]),
  })
  .strict();

const cookieName = z
  .string()
  .min(1, 'is required')
  .max(SITE_LIMITS.cookieName)
  .regex(/^[A-Za-z0-9_\-.]+$/, 'may contain only letters, digits, _ - and .');

const status = z
  .number()
  .int('must be a whole number')
  .min(200, 'must be an HTTP status from 200 to 599')
  .max(599, 'must be an HTTP status from 200 to 599');

const port = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be a port from 1 to 65535')
  .max(65_535, 'must be a port from 1 to 65535');

/**
 * An origin address: an IPv4 address, a bracketed IPv6 address or a host name, then `:port`
 * (`10.0.0.5:8080`, `[2001:db8::5]:443`, `app.internal:80`).
 */
export const ORIGIN_ADDRESS =
  /^(?:(?:\d{1,3}\.){3}\d{1,3}|\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*):(\d{1,5})$/;

/**
 * CNAME access (edition B's CNAME tab): which protocols Rampart serves the site on and at which
 * ports, and the origin it forwards to. The site's certificate is uploaded on its own
 * (`PUT /sites/{id}/certificate`), not sent with the settings.
 */
export const cnameSchema = z
  .object({
    http: z.boolean().default(true),
    https: z.boolean().default(false),
    httpPort: port.default(80),
    httpsPort: port.default(443),
    originProtocol: z.enum(ORIGIN_PROTOCOLS, { error: oneOf(ORIGIN_PROTOCOLS) }).default('http'),
    originAddress: z
      .string()
      .trim()
      .max(262, 'must be at most 262 characters')
      .refine((value) => value === '' || ORIGIN_ADDRESS.test(value), {
        message: 'must be an IP address or domain, then a port: 10.0.0.5:8080, [2001:db8::5]:443 or app.internal:80',
      })
      .refine((value) => value === '' || Number(ORIGIN_ADDRESS.exec(value)?.[1]) <= 65_535, {
        message: 'the port must be from 1 to 65535',
      })
      .default(''),
    /** An HTTPS origin's certificate is checked against the system's CAs (off: any certificate). */
    originVerifyTls: z.boolean().default(true),
  })
  .strict();

export type CnameSettings = z.output<typeof cnameSchema>;

export const DEFAULT_CNAME: CnameSettings = {
  http: true,
  https: false,
  httpPort: 80,
  httpsPort: 443,
  originProtocol: 'http',
  originAddress: '',
  originVerifyTls: true,
};

const DEFAULT_BLOCK_CONTENT =
  '<!doctype html><html><head><meta charset="utf-8"><title>Request blocked</title></head><body><h1>Request blocked</h1><p>This request was blocked by the site\'s security policy. If you think this is a mistake, contact the site owner and quote the time of your visit.</p></body></html>';
const DEFAULT_RELOAD_CONTENT =
  '<!doctype html><html><head><meta charset="utf-8"><title>Checking your browser</title></head><body><p>Checking your browser before opening the site. This takes a moment.</p><noscript><p>Please enable JavaScript to continue.</p></noscript></body></html>';

export const siteInputSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(SITE_LIMITS.name, `must be at most ${SITE_LIMITS.name} characters`)
      .superRefine(visibleText(false)),
    domain: z
      .string()
      .trim()
      .max(SITE_LIMITS.domain)
      .regex(
        /^$|^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/,
        'must be a host name such as shop.example.com',
      )
      .refine((value) => value.split('.').every((label) => label.length <= DOMAIN_LABEL_MAX), {
        message: `each label (the parts between dots) must be at most ${DOMAIN_LABEL_MAX} characters`,
      })
      .default(''),
    runMode: z.enum(RUN_MODES, { error: oneOf(RUN_MODES) }).default('monitor'),
    accessMethod: z.enum(ACCESS_METHODS, { error: oneOf(ACCESS_METHODS) }).default('plugin'),
    listMode: z.enum(LIST_MODES, { error: oneOf(LIST_MODES) }).default('all'),
    checkList: list.default({ pathEnabled: false, paths: [], ipEnabled: false, ips: [] }),
    passList: list.default({ pathEnabled: false, paths: [], ipEnabled: false, ips: [] }),
    blockList: list.default({ pathEnabled: false, paths: [], ipEnabled: false, ips: [] }),
    tokenCookieName: cookieName.default('rampart_token'),
    identityCookieName: cookieName.default('rampart_id'),
    tokenExpirySeconds: z
      .number()
      .int()
      .min(10, 'must be at least 10 seconds')
      .max(86_400, 'must be at most 86400 seconds')
      .default(60),
    blockStatus: status.default(400),
    blockContent: pageText(SITE_LIMITS.content).default(DEFAULT_BLOCK_CONTENT),
    reloadStatus: status.default(412),
    reloadContent: pageText(SITE_LIMITS.content).default(DEFAULT_RELOAD_CONTENT),
    browserFeatureDetection: z.boolean().default(true),
    queryThreatStore: z.boolean().default(true),
    hideServerInfo: z.boolean().default(true),
    sourceIp: z
      .object({
        mode: z.enum(SOURCE_IP_MODES, { error: oneOf(SOURCE_IP_MODES) }).default('default'),
        xffMode: z.enum(XFF_MODES, { error: oneOf(XFF_MODES) }).default('leftmost'),
        trustedSources: lines.default([]),
        customHeader: z
          .string()
          .max(64)
          .regex(/^$|^[A-Za-z0-9-]+$/, 'must be a header name such as X-Client-IP')
          .default(''),
      })
      .strict()
      .default({ mode: 'default', xffMode: 'leftmost', trustedSources: [], customHeader: '' }),
    accountExtraction: z
      .object({
        enabled: z.boolean().default(false),
        loginPath: plainText(SITE_LIMITS.lineLength).default(''),
        usernameSelector: plainText(SITE_LIMITS.selector).default(''),
        successSelector: plainText(SITE_LIMITS.selector).default(''),
        successText: plainText(SITE_LIMITS.selector).default(''),
        failureSelector: plainText(SITE_LIMITS.selector).default(''),
        failureText: plainText(SITE_LIMITS.selector).default(''),
      })
      .strict()
      .default({
        enabled: false,
        loginPath: '',
        usernameSelector: '',
        successSelector: '',
        successText: '',
        failureSelector: '',
        failureText: '',
      }),
    miniProgramProtection: z.boolean().default(false),
    antiBot: z
      .object({
        enabled: z.boolean().default(false),
        scanner: z.boolean().default(true),
        scriptTool: z.boolean().default(true),
        otherCrawler: z.boolean().default(false),
      })
      .strict()
      .default({ enabled: false, scanner: true, scriptTool: true, otherCrawler: false }),
    powDifficulty: z.number().int().min(0).max(24, 'must be at most 24 bits').default(0),
    cname: cnameSchema.default(DEFAULT_CNAME),
    pluginMode: z.enum(PLUGIN_MODES, { error: oneOf(PLUGIN_MODES) }).default('verdict'),
  })
  .strict();

export type SiteInput = z.input<typeof siteInputSchema>;
export type SiteSettings = z.output<typeof siteInputSchema>;

const listView = z.object({
  pathEnabled: z.boolean(),
  paths: z.array(z.string()),
  ipEnabled: z.boolean(),
  ips: z.array(z.string()),
});

/**
 * A site's settings as the engine answers them: the same fields as `siteInputSchema` gives out,
 * without its limits and defaults (checking 64 KiB pages again on every answer would buy nothing).
 * tests/unit/sites/site-shape.test.ts holds the two to the same fields.
 */
export const siteSettingsView = z.object({
  name: z.string(),
  domain: z.string(),
  runMode: z.enum(RUN_MODES),
  accessMethod: z.enum(ACCESS_METHODS),
  listMode: z.enum(LIST_MODES),
  checkList: listView,
  passList: listView,
  blockList: listView,
  tokenCookieName: z.string(),
  identityCookieName: z.string(),
  tokenExpirySeconds: z.number(),
  blockStatus: z.number(),
  blockContent: z.string(),
  reloadStatus: z.number(),
  reloadContent: z.string(),
  browserFeatureDetection: z.boolean(),
  queryThreatStore: z.boolean(),
  hideServerInfo: z.boolean(),
  sourceIp: z.object({
    mode: z.enum(SOURCE_IP_MODES),
    xffMode: z.enum(XFF_MODES),
    trustedSources: z.array(z.string()),
    customHeader: z.string(),
  }),
  accountExtraction: z.object({
    enabled: z.boolean(),
    loginPath: z.string(),
    usernameSelector: z.string(),
    successSelector: z.string(),
    successText: z.string(),
    failureSelector: z.string(),
    failureText: z.string(),
  }),
  miniProgramProtection: z.boolean(),
  antiBot: z.object({ enabled: z.boolean(), scanner: z.boolean(), scriptTool: z.boolean(), otherCrawler: z.boolean() }),
  powDifficulty: z.number(),
  cname: z.object({
    http: z.boolean(),
    https: z.boolean(),
    httpPort: z.number(),
    httpsPort: z.number(),
    originProtocol: z.enum(ORIGIN_PROTOCOLS),
    originAddress: z.string(),
    originVerifyTls: z.boolean(),
  }),
  pluginMode: z.enum(PLUGIN_MODES),
});

export const siteGlobalInputSchema = z
  .object({
    tokenCookieName: cookieName,
    identityCookieName: cookieName,
    tokenExpirySeconds: z
      .number()
      .int()
      .min(10, 'must be at least 10 seconds')
      .max(86_400, 'must be at most 86400 seconds'),
    ipLock: z.boolean(),
  })
  .strict();

export type SiteGlobalInput = z.infer<typeof siteGlobalInputSchema>;
