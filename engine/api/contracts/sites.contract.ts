import { z } from 'zod';
import { siteGlobalInputSchema, siteInputSchema, siteSettingsView } from '#engine/shared';
import { defineContract } from './contract.ts';
import { idParams } from './common.schema.ts';

/** Spec 5.2: administrators and users manage sites (configuration management). */
const MANAGERS = ['administrator', 'user'] as const;

/**
 * The Access Key lets a gateway ask for verdicts, and rotating it cuts every gateway off: reading
 * it and rotating it are for administrators. Everyone who manages sites sees that a key is set and
 * its last characters (to match a gateway's bundle against it).
 */
const KEY_HOLDERS = ['administrator'] as const;

/** What a site is given as: the one site shape (engine/shared/site-shape.ts), also the console form's schema. */
export { siteInputSchema, siteGlobalInputSchema, siteSettingsView };
/** A failed parse as the engine's field problems (code and bounds as params): the console's forms say them alike. */
export { zodProblems } from '#engine/shared';
export type { SiteInput, SiteGlobalInput } from '#engine/shared';

export const siteStatus = z.object({
  connected: z.boolean(),
  protection: z.boolean(),
  lastHeartbeatAt: z.number().nullable(),
  keeperVersion: z.string().nullable(),
});

/** What is shown of a CNAME site's uploaded certificate (never its key). */
export const siteCertificateView = z.object({
  subject: z.string(),
  issuer: z.string(),
  names: z.array(z.string()).describe('DNS names and IP addresses the certificate covers'),
  notBefore: z.number(),
  notAfter: z.number(),
  daysLeft: z.number(),
  state: z.enum(['valid', 'expiring', 'expired', 'not_yet_valid']).describe('expiring: 30 days or fewer left'),
  fingerprint256: z.string(),
  chainLength: z.number().describe('certificates after the server certificate'),
  uploadedAt: z.number(),
});

/** A site as the engine answers it: its settings (the one site shape), identity, times and status. */
export const siteView = siteSettingsView.extend({
  id: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  status: siteStatus,
  certificate: siteCertificateView.nullable().describe('CNAME access over HTTPS: the uploaded certificate'),
});
export type SiteView = z.infer<typeof siteView>;

export const siteGlobalView = z.object({
  tokenCookieName: z.string(),
  identityCookieName: z.string(),
  tokenExpirySeconds: z.number(),
  ipLock: z.boolean(),
  accessKeySet: z.boolean(),
  accessKeyMasked: z.string().describe('The Access Key behind dots but for its last 4 characters'),
  accessKey: z
    .string()
    .optional()
    .describe('The Access Key in clear: administrators only (for the console, use revealAccessKey)'),
});
export type SiteGlobalView = z.infer<typeof siteGlobalView>;

export const accessKeyView = z.object({ accessKey: z.string() });

export const gatewayAddressView = z.object({
  address: z.string().describe('host:port that plugin bundles tell gateways to reach the gateway API at'),
  source: z
    .enum(['console', 'environment', 'detected'])
    .describe('set in the console, given at start-up, or worked out'),
  automatic: z.string().describe('the address used when none is set in the console'),
  listening: z.string().describe('where the gateway API listens'),
  logPort: z
    .number()
    .describe("the UDP port (on the gateway address's host) where plugins send nginx's access-log lines; 0: off"),
});

export const gatewayAddressInput = z
  .object({
    address: z.string().trim().max(300, 'must be at most 300 characters').describe("host:port, or '' for automatic"),
  })
  .strict();

export const connectionTestView = z.object({
  address: z.string(),
  reachable: z.boolean().describe("the address answers as this appliance's gateway API"),
  problem: z.enum(['refused', 'timeout', 'unresolved', 'not_rampart', 'unreachable']).nullable(),
  detail: z.string().nullable(),
  elapsedMs: z.number(),
  heartbeat: z.object({
    connected: z.boolean(),
    lastHeartbeatAt: z.number().nullable(),
    from: z.string().nullable().describe("the gateway's address as the appliance saw it"),
    keeperVersion: z.string().nullable(),
  }),
});

export const antiBotInput = z
  .object({ enabled: z.boolean(), scanner: z.boolean(), scriptTool: z.boolean(), otherCrawler: z.boolean() })
  .strict();

export const listSites = defineContract({
  method: 'GET',
  path: '/sites',
  operationId: 'listSites',
  summary: 'Sites, newest first, with connection status; search by name or domain',
  tag: 'sites',
  access: MANAGERS,
  query: z.object({ search: z.string().max(64, 'must be at most 64 characters').optional() }).strict(),
  response: z.object({ items: z.array(siteView) }),
});

export const createSite = defineContract({
  method: 'POST',
  path: '/sites',
  operationId: 'createSite',
  summary: 'Create a site (and its access log configuration)',
  tag: 'sites',
  access: MANAGERS,
  body: siteInputSchema,
  requiredInEdition: { B: ['domain'] },
  status: 201,
  response: siteView,
});

export const getSite = defineContract({
  method: 'GET',
  path: '/sites/:id',
  operationId: 'getSite',
  summary: 'One site with its status (refresh)',
  tag: 'sites',
  access: MANAGERS,
  params: idParams,
  response: siteView,
});

export const updateSite = defineContract({
  method: 'PUT',
  path: '/sites/:id',
  operationId: 'updateSite',
  summary: 'Replace a site configuration',
  tag: 'sites',
  access: MANAGERS,
  params: idParams,
  body: siteInputSchema,
  requiredInEdition: { B: ['domain'] },
  response: siteView,
});

export const copySite = defineContract({
  method: 'POST',
  path: '/sites/:id/copy',
  operationId: 'copySite',
  summary: 'Copy a site under a new name',
  tag: 'sites',
  access: MANAGERS,
  params: idParams,
  status: 201,
  response: siteView,
});

export const deleteSite = defineContract({
  method: 'DELETE',
  path: '/sites/:id',
  operationId: 'deleteSite',
  summary: 'Delete a site and its access log configuration',
  tag: 'sites',
  access: MANAGERS,
  params: idParams,
  status: 204,
});

export const siteCertificateInput = z
  .object({
    certificate: z
      .string({ error: 'is required: the PEM certificate, then its chain' })
      .min(1, 'is required: the PEM certificate, then its chain')
      .max(65_536, 'must be at most 64 KB of PEM text'),
    key: z
      .string({ error: 'is required: the PEM private key' })
      .min(1, 'is required: the PEM private key')
      .max(65_536, 'must be at most 64 KB of PEM text'),
  })
  .strict();

export const setSiteCertificate = defineContract({
  method: 'PUT',
  path: '/sites/:id/certificate',
  operationId: 'setSiteCertificate',
  summary:
    "Upload a CNAME site's HTTPS certificate (PEM chain) and key: checked (key matches, valid now, names the domain), then served by SNI",
  tag: 'sites',
  access: MANAGERS,
  params: idParams,
  body: siteCertificateInput,
  response: siteView,
});

export const deleteSiteCertificate = defineContract({
  method: 'DELETE',
  path: '/sites/:id/certificate',
  operationId: 'deleteSiteCertificate',
  summary: "Remove a CNAME site's certificate (its HTTPS port then refuses the site's handshakes)",
  tag: 'sites',
  access: MANAGERS,
  params: idParams,
  response: siteView,
});

export const proxyStatusView = z.object({
  listeners: z.array(
    z.object({
      port: z.number(),
      tls: z.boolean(),
      listening: z.boolean(),
      error: z.string().nullable().describe('why the port could not be opened'),
      siteIds: z.array(z.string()),
    }),
  ),
  problems: z
    .array(z.object({ siteId: z.string(), message: z.string() }))
    .describe('CNAME sites that cannot be served as set (a port taken by another protocol, a domain twice)'),
  clientConnections: z.number(),
  originConnections: z.number(),
});
export type ProxyStatusView = z.infer<typeof proxyStatusView>;

export const getProxyStatus = defineContract({
  method: 'GET',
  path: '/proxy/status',
  operationId: 'getProxyStatus',
  summary: "The reverse proxy of CNAME sites: its ports, whether each listens, and the sites' problems",
  tag: 'sites',
  access: MANAGERS,
  response: proxyStatusView,
});

export const downloadSitePlugin = defineContract({
  method: 'GET',
  path: '/sites/:id/plugin',
  operationId: 'downloadSitePlugin',
  summary:
    'Download the plugin bundle of a plugin-access site (.tar.gz): the nginx plugin, with gateway=node the Node gateway middleware, with gateway=caddy, haproxy, traefik or envoy the Caddy, HAProxy, Traefik or Envoy plugin',
  tag: 'sites',
  access: MANAGERS,
  params: idParams,
  query: z.object({ gateway: z.enum(['nginx', 'node', 'caddy', 'haproxy', 'traefik', 'envoy']).optional() }).strict(),
  produces: 'download',
  downloadType: 'application/gzip',
});

export const downloadMiniProgramSdk = defineContract({
  method: 'GET',
  path: '/sites/:id/mini-program-sdk',
  operationId: 'downloadMiniProgramSdk',
  summary:
    "Download the mini-program SDK of a site with mini-program protection on (.tar.gz, edition B): the SDK wrapping the platform's request function, config.js with the gateway address, site ID and Access Key, and a README",
  tag: 'sites',
  access: MANAGERS,
  params: idParams,
  produces: 'download',
  downloadType: 'application/gzip',
});

export const testSiteConnection = defineContract({
  method: 'POST',
  path: '/sites/:id/connection-test',
  operationId: 'testSiteConnection',
  summary: "Test a plugin site's gateway connection: whether the advertised address answers, and the last heartbeat",
  tag: 'sites',
  access: MANAGERS,
  params: idParams,
  response: connectionTestView,
});

export const getGatewayAddress = defineContract({
  method: 'GET',
  path: '/gateway-address',
  operationId: 'getGatewayAddress',
  summary: 'The address plugin bundles tell gateways to reach Rampart at',
  tag: 'sites',
  access: MANAGERS,
  response: gatewayAddressView,
});

export const setGatewayAddress = defineContract({
  method: 'PUT',
  path: '/gateway-address',
  operationId: 'setGatewayAddress',
  summary:
    "Set the address plugin bundles advertise ('' for automatic; administrators); download bundles again afterwards",
  tag: 'sites',
  access: ['administrator'],
  body: gatewayAddressInput,
  response: gatewayAddressView,
});

export const updateSiteAntiBot = defineContract({
  method: 'PUT',
  path: '/sites/:id/anti-bot',
  operationId: 'updateSiteAntiBot',
  summary: 'Anti-bot rules of a site (edition B): master switch and per-type switches',
  tag: 'rules',
  access: MANAGERS,
  params: idParams,
  body: antiBotInput,
  response: siteView,
});

export const getSiteGlobal = defineContract({
  method: 'GET',
  path: '/site-global',
  operationId: 'getSiteGlobal',
  summary: 'Global site configuration: cookie names, expiry, IP lock, whether an Access Key is set',
  tag: 'sites',
  access: MANAGERS,
  response: siteGlobalView,
});

export const updateSiteGlobal = defineContract({
  method: 'PUT',
  path: '/site-global',
  operationId: 'updateSiteGlobal',
  summary: 'Change the global site configuration',
  tag: 'sites',
  access: MANAGERS,
  body: siteGlobalInputSchema,
  response: siteGlobalView,
});

export const revealAccessKey = defineContract({
  method: 'GET',
  path: '/site-global/access-key',
  operationId: 'revealAccessKey',
  summary: 'The Access Key in clear (administrators)',
  tag: 'sites',
  access: KEY_HOLDERS,
  response: accessKeyView,
});

export const rotateAccessKey = defineContract({
  method: 'POST',
  path: '/site-global/access-key',
  operationId: 'rotateAccessKey',
  summary: 'Generate a new Access Key (administrators; every gateway is cut off until it gets the new key)',
  tag: 'sites',
  access: KEY_HOLDERS,
  response: siteGlobalView,
});

export type SiteStatus = z.output<typeof siteStatus>;
export type RunMode = SiteView['runMode'];
export type AccessMethod = SiteView['accessMethod'];
export type ListMode = SiteView['listMode'];
export type SiteList = SiteView['checkList'];
export type SourceIpMode = SiteView['sourceIp']['mode'];
export type XffMode = SiteView['sourceIp']['xffMode'];
export type AccountExtraction = SiteView['accountExtraction'];
export type AntiBot = z.output<typeof antiBotInput>;
export type GatewayAddressView = z.output<typeof gatewayAddressView>;
export type ConnectionTestView = z.output<typeof connectionTestView>;
