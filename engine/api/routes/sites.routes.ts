import { z } from 'zod';
import { siteInputSchema, siteGlobalInputSchema, type SitesService } from '#engine/sites';
import type { SiteRecord } from '#engine/config-store';
import { RampartError } from '#engine/shared';
import { pluginBundle } from '#engine/gateways';
import { defineRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import { idParams } from '../schemas.ts';

/** Spec 5.2: administrators and users manage sites (configuration management). */
const MANAGERS = ['administrator', 'user'] as const;

const list = z.object({ pathEnabled: z.boolean(), paths: z.array(z.string()), ipEnabled: z.boolean(), ips: z.array(z.string()) });

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

const globalView = z.object({
  tokenCookieName: z.string(),
  identityCookieName: z.string(),
  tokenExpirySeconds: z.number(),
  accessKey: z.string(),
  ipLock: z.boolean(),
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
      handler: ({ params }) => {
        const site = sites.get(params.id);
        if (site.accessMethod !== 'plugin') {
          throw new RampartError('VALIDATION_FAILED', 'accessMethod: the plugin bundle is for plugin-access sites', { field: 'accessMethod' });
        }
        const bundle = pluginBundle({
          site,
          accessKey: sites.global().accessKey,
          engineAddress: deps.gatewayAddress,
          version: deps.version,
          now: Date.now(),
        });
        return { fileName: bundle.fileName, contentType: 'application/gzip', content: bundle.content };
      },
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
      summary: 'Global site configuration: cookie names, expiry, Access Key, IP lock',
      tag: 'sites',
      access: MANAGERS,
      response: globalView,
      handler: () => sites.global(),
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
      handler: ({ body }) => sites.updateGlobal(body),
    }),
    defineRoute({
      method: 'POST',
      path: '/site-global/access-key',
      operationId: 'rotateAccessKey',
      summary: 'Generate a new Access Key (gateways must be updated)',
      tag: 'sites',
      access: MANAGERS,
      response: globalView,
      handler: () => sites.rotateAccessKey(),
    }),
  ];
}
