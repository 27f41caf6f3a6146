import { z } from 'zod';
import { checkGatewayAddress, siteInputSchema, siteGlobalInputSchema, type SitesService } from '#engine/sites';
import type { FastifyReply } from 'fastify';
import type { SiteRecord, SiteGlobalRecord } from '#engine/config-store';
import { RampartError } from '#engine/shared';
import { pluginBundle } from '#engine/gateways';
import { defineRoute, type AnyRoute, type Caller } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import { idParams } from '../schemas.ts';

/** Spec 5.2: administrators and users manage sites (configuration management). */
const MANAGERS = ['administrator', 'user'] as const;

const list = z.object({
  pathEnabled: z.boolean(),
  paths: z.array(z.string()),
  ipEnabled: z.boolean(),
  ips: z.array(z.string()),
});

const siteStatus = z.object({
  connected: z.boolean(),
  protection: z.boolean(),
  lastHeartbeatAt: z.number().nullable(),
  keeperVersion: z.string().nullable(),
});

const siteView = z.object({
  id: z.string(),
  name: z.string(),
  domain: z.string(),
  runMode: z.enum(['pass', 'monitor', 'block']),
  accessMethod: z.enum(['plugin', 'pluginless', 'cname', 'bypass']),
  listMode: z.enum(['all', 'only_listed', 'except_listed']),
  checkList: list,
  passList: list,
  blockList: list,
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
    mode: z.enum(['default', 'x_real_ip', 'xff', 'custom']),
    xffMode: z.enum(['leftmost', 'filter', 'rightmost']),
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
  createdAt: z.number(),
  updatedAt: z.number(),
  status: siteStatus,
});

/**
 * The Access Key lets a gateway ask for verdicts, and rotating it cuts every gateway off: reading
 * it and rotating it are for administrators. Everyone who manages sites sees that a key is set and
 * its last characters (to match a gateway's bundle against it).
 */
const KEY_HOLDERS = ['administrator'] as const;

const globalView = z.object({
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

const accessKeyView = z.object({ accessKey: z.string() });

const maskKey = (key: string): string => (key ? '•'.repeat(8) + key.slice(-4) : '');

function globalViewFor(
  caller: Caller | undefined,
  global: SiteGlobalRecord,
  reply: FastifyReply,
): z.infer<typeof globalView> {
  reply.header('cache-control', 'no-store');
  const { accessKey, ...settings } = global;
  const view = { ...settings, accessKeySet: accessKey.length > 0, accessKeyMasked: maskKey(accessKey) };
  return caller?.account.role === 'administrator' ? { ...view, accessKey } : view;
}

const gatewayAddressView = z.object({
  address: z.string().describe('host:port that plugin bundles tell gateways to reach the gateway API at'),
  source: z
    .enum(['console', 'environment', 'detected'])
    .describe('set in the console, given at start-up, or worked out'),
  automatic: z.string().describe('the address used when none is set in the console'),
  listening: z.string().describe('where the gateway API listens'),
});

const gatewayAddressInput = z
  .object({
    address: z.string().trim().max(300, 'must be at most 300 characters').describe("host:port, or '' for automatic"),
  })
  .strict();

const connectionTestView = z.object({
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

const antiBotInput = z
  .object({ enabled: z.boolean(), scanner: z.boolean(), scriptTool: z.boolean(), otherCrawler: z.boolean() })
  .strict();

const withStatus = (sites: SitesService, site: SiteRecord) => ({ ...site, status: sites.status(site.id) });

export function siteRoutes(deps: ApiDeps): AnyRoute[] {
  const sites = deps.sites;
  return [
    defineRoute({
      method: 'GET',
      path: '/sites',
      operationId: 'listSites',
      summary: 'Sites, newest first, with connection status; search by name or domain',
      tag: 'sites',
      access: MANAGERS,
      query: z.object({ search: z.string().max(64, 'must be at most 64 characters').optional() }).strict(),
      response: z.object({ items: z.array(siteView) }),
      handler: ({ query }) => ({ items: sites.list(query.search).map((s) => withStatus(sites, s)) }),
    }),
    defineRoute({
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
      handler: async ({ body }) => withStatus(sites, await sites.create(body)),
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id',
      operationId: 'getSite',
      summary: 'One site with its status (refresh)',
      tag: 'sites',
      access: MANAGERS,
      params: idParams,
      response: siteView,
      handler: ({ params }) => withStatus(sites, sites.get(params.id)),
    }),
    defineRoute({
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
      handler: async ({ params, body }) => withStatus(sites, await sites.update(params.id, body)),
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/copy',
      operationId: 'copySite',
      summary: 'Copy a site under a new name',
      tag: 'sites',
      access: MANAGERS,
      params: idParams,
      status: 201,
      response: siteView,
      handler: async ({ params }) => {
        const copy = await sites.copy(params.id);
        await deps.basicRules.copySite(params.id, copy.id);
        return withStatus(sites, copy);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/sites/:id',
      operationId: 'deleteSite',
      summary: 'Delete a site and its access log configuration',
      tag: 'sites',
      access: MANAGERS,
      params: idParams,
      status: 204,
      handler: async ({ params }) => {
        await sites.remove(params.id);
        await deps.basicRules.removeSite(params.id);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/plugin',
      operationId: 'downloadSitePlugin',
      summary: 'Download the nginx plugin bundle of a plugin-access site (.tar.gz)',
      tag: 'sites',
      access: MANAGERS,
      params: idParams,
      produces: 'download',
      downloadType: 'application/gzip',
      handler: ({ params }) => {
        const site = sites.get(params.id);
        if (site.accessMethod !== 'plugin') {
          throw new RampartError('VALIDATION_FAILED', 'accessMethod: the plugin bundle is for plugin-access sites', {
            field: 'accessMethod',
          });
        }
        const bundle = pluginBundle({
          site,
          accessKey: sites.global().accessKey,
          engineAddress: sites.gatewayAddress().address,
          version: deps.version,
          now: Date.now(),
        });
        return { fileName: bundle.fileName, contentType: 'application/gzip', content: bundle.content };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/connection-test',
      operationId: 'testSiteConnection',
      summary:
        "Test a plugin site's gateway connection: whether the advertised address answers, and the last heartbeat",
      tag: 'sites',
      access: MANAGERS,
      params: idParams,
      response: connectionTestView,
      handler: async ({ params }) => {
        const site = sites.get(params.id);
        const { address } = sites.gatewayAddress();
        const check = await checkGatewayAddress(address, site.id);
        const beat = sites.heartbeatOf(site.id);
        const status = sites.status(site.id);
        return {
          address,
          ...check,
          heartbeat: {
            connected: status.connected,
            lastHeartbeatAt: status.lastHeartbeatAt,
            from: beat?.address || null,
            keeperVersion: status.keeperVersion || null,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/gateway-address',
      operationId: 'getGatewayAddress',
      summary: 'The address plugin bundles tell gateways to reach Rampart at',
      tag: 'sites',
      access: MANAGERS,
      response: gatewayAddressView,
      handler: () => sites.gatewayAddress(),
    }),
    defineRoute({
      method: 'PUT',
      path: '/gateway-address',
      operationId: 'setGatewayAddress',
      summary:
        "Set the address plugin bundles advertise ('' for automatic; administrators); download bundles again afterwards",
      tag: 'sites',
      access: ['administrator'],
      body: gatewayAddressInput,
      response: gatewayAddressView,
      handler: async ({ body }) => sites.setGatewayAddress(body.address),
    }),
    defineRoute({
      method: 'PUT',
      path: '/sites/:id/anti-bot',
      operationId: 'updateSiteAntiBot',
      summary: 'Anti-bot rules of a site (edition B): master switch and per-type switches',
      tag: 'rules',
      access: MANAGERS,
      params: idParams,
      body: antiBotInput,
      response: siteView,
      handler: async ({ params, body }) => {
        const { id: _id, createdAt: _c, updatedAt: _u, ...settings } = sites.get(params.id);
        return withStatus(sites, await sites.update(params.id, { ...settings, antiBot: body }));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/site-global',
      operationId: 'getSiteGlobal',
      summary: 'Global site configuration: cookie names, expiry, IP lock, whether an Access Key is set',
      tag: 'sites',
      access: MANAGERS,
      response: globalView,
      handler: ({ caller, reply }) => globalViewFor(caller, sites.global(), reply),
    }),
    defineRoute({
      method: 'PUT',
      path: '/site-global',
      operationId: 'updateSiteGlobal',
      summary: 'Change the global site configuration',
      tag: 'sites',
      access: MANAGERS,
      body: siteGlobalInputSchema,
      response: globalView,
      handler: async ({ body, caller, reply }) => globalViewFor(caller, await sites.updateGlobal(body), reply),
    }),
    defineRoute({
      method: 'GET',
      path: '/site-global/access-key',
      operationId: 'revealAccessKey',
      summary: 'The Access Key in clear (administrators)',
      tag: 'sites',
      access: KEY_HOLDERS,
      response: accessKeyView,
      handler: ({ reply }) => {
        reply.header('cache-control', 'no-store');
        return { accessKey: sites.global().accessKey };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/site-global/access-key',
      operationId: 'rotateAccessKey',
      summary: 'Generate a new Access Key (administrators; every gateway is cut off until it gets the new key)',
      tag: 'sites',
      access: KEY_HOLDERS,
      response: globalView,
      handler: async ({ caller, reply }) => globalViewFor(caller, await sites.rotateAccessKey(), reply),
    }),
  ];
}
