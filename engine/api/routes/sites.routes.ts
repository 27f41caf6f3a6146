import { checkGatewayAddress, describeCertificate, type SitesService } from '#engine/sites';
import type { FastifyReply } from 'fastify';
import type { SiteRecord, SiteGlobalRecord } from '#engine/config-store';
import { DEFAULT_CNAME, RampartError } from '#engine/shared';
import {
  caddyBundle,
  envoyBundle,
  haproxyBundle,
  miniProgramSdkBundle,
  miniProgramSdkCode,
  nodeGatewayBundle,
  nodeGatewayCode,
  pluginBundle,
  traefikBundle,
} from '#engine/gateways';
import { bindRoute, type AnyRoute, type Caller } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import {
  copySite,
  createSite,
  deleteSite,
  deleteSiteCertificate,
  downloadMiniProgramSdk,
  downloadSitePlugin,
  getGatewayAddress,
  getProxyStatus,
  getSite,
  getSiteGlobal,
  listSites,
  revealAccessKey,
  rotateAccessKey,
  setGatewayAddress,
  setSiteCertificate,
  testSiteConnection,
  updateSite,
  updateSiteAntiBot,
  updateSiteGlobal,
  type SiteGlobalView,
} from '../schemas.ts';

const maskKey = (key: string): string => (key ? '•'.repeat(8) + key.slice(-4) : '');

function globalViewFor(caller: Caller | undefined, global: SiteGlobalRecord, reply: FastifyReply): SiteGlobalView {
  reply.header('cache-control', 'no-store');
  const { accessKey, ...settings } = global;
  const view = { ...settings, accessKeySet: accessKey.length > 0, accessKeyMasked: maskKey(accessKey) };
  return caller?.account.role === 'administrator' ? { ...view, accessKey } : view;
}

/** A site for the API: its settings and status, and of its certificate what it says, never the key. */
function withStatus(sites: SitesService, site: SiteRecord) {
  const { certificate, ...settings } = site;
  return {
    ...settings,
    cname: settings.cname ?? DEFAULT_CNAME,
    pluginMode: settings.pluginMode ?? 'verdict',
    status: sites.status(site.id),
    certificate: certificate ? describeCertificate(certificate, Date.now()) : null,
  };
}

export function siteRoutes(deps: ApiDeps): AnyRoute[] {
  const sites = deps.sites;
  return [
    bindRoute(listSites, ({ query }) => ({ items: sites.list(query.search).map((s) => withStatus(sites, s)) })),
    bindRoute(createSite, async ({ body }) => withStatus(sites, await sites.create(body))),
    bindRoute(getSite, ({ params }) => withStatus(sites, sites.get(params.id))),
    bindRoute(updateSite, async ({ params, body }) => withStatus(sites, await sites.update(params.id, body))),
    bindRoute(
      getProxyStatus,
      () => deps.proxy?.() ?? { listeners: [], problems: [], clientConnections: 0, originConnections: 0 },
    ),
    bindRoute(setSiteCertificate, async ({ params, body }) =>
      withStatus(sites, await sites.setCertificate(params.id, body)),
    ),
    bindRoute(deleteSiteCertificate, async ({ params }) => withStatus(sites, await sites.removeCertificate(params.id))),
    bindRoute(copySite, async ({ params }) => {
      const copy = await sites.copy(params.id);
      await deps.basicRules.copySite(params.id, copy.id);
      return withStatus(sites, copy);
    }),
    bindRoute(deleteSite, async ({ params }) => {
      await sites.remove(params.id);
      await deps.basicRules.removeSite(params.id);
    }),
    bindRoute(downloadSitePlugin, async ({ params, query }) => {
      const site = sites.get(params.id);
      if (site.accessMethod !== 'plugin') {
        throw new RampartError('VALIDATION_FAILED', 'accessMethod: the plugin bundle is for plugin-access sites', {
          field: 'accessMethod',
        });
      }
      if (query.gateway === 'node') {
        const bundle = nodeGatewayBundle({
          site,
          accessKey: sites.global().accessKey,
          engineAddress: sites.gatewayAddress().address,
          version: deps.version,
          now: Date.now(),
          code: await nodeGatewayCode(),
        });
        return { fileName: bundle.fileName, contentType: 'application/gzip', content: bundle.content };
      }
      if (query.gateway !== undefined && query.gateway !== 'nginx') {
        const make = { caddy: caddyBundle, haproxy: haproxyBundle, traefik: traefikBundle, envoy: envoyBundle }[
          query.gateway
        ];
        const bundle = make({
          site,
          accessKey: sites.global().accessKey,
          engineAddress: sites.gatewayAddress().address,
          version: deps.version,
          now: Date.now(),
        });
        return { fileName: bundle.fileName, contentType: 'application/gzip', content: bundle.content };
      }
      const bundle = pluginBundle({
        site,
        accessKey: sites.global().accessKey,
        engineAddress: sites.gatewayAddress().address,
        ...(deps.gatewayLogPort > 0 ? { logPort: deps.gatewayLogPort } : {}),
        version: deps.version,
        now: Date.now(),
      });
      return { fileName: bundle.fileName, contentType: 'application/gzip', content: bundle.content };
    }),
    bindRoute(downloadMiniProgramSdk, async ({ params }) => {
      const site = sites.get(params.id);
      if (!site.miniProgramProtection) {
        throw new RampartError(
          'VALIDATION_FAILED',
          'miniProgramProtection: turn on mini-program protection for this site, save, then download the SDK',
          { field: 'miniProgramProtection' },
        );
      }
      const bundle = miniProgramSdkBundle({
        site,
        accessKey: sites.global().accessKey,
        engineAddress: sites.gatewayAddress().address,
        version: deps.version,
        now: Date.now(),
        code: await miniProgramSdkCode(),
      });
      return { fileName: bundle.fileName, contentType: 'application/gzip', content: bundle.content };
    }),
    bindRoute(testSiteConnection, async ({ params }) => {
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
    }),
    bindRoute(getGatewayAddress, () => ({ ...sites.gatewayAddress(), logPort: deps.gatewayLogPort })),
    bindRoute(setGatewayAddress, async ({ body }) => ({
      ...(await sites.setGatewayAddress(body.address)),
      logPort: deps.gatewayLogPort,
    })),
    bindRoute(updateSiteAntiBot, async ({ params, body }) => {
      const { id: _id, createdAt: _c, updatedAt: _u, certificate: _t, ...settings } = sites.get(params.id);
      return withStatus(
        sites,
        await sites.update(params.id, {
          ...settings,
          cname: settings.cname ?? DEFAULT_CNAME,
          pluginMode: settings.pluginMode ?? 'verdict',
          antiBot: body,
        }),
      );
    }),
    bindRoute(getSiteGlobal, ({ caller, reply }) => globalViewFor(caller, sites.global(), reply)),
    bindRoute(updateSiteGlobal, async ({ body, caller, reply }) =>
      globalViewFor(caller, await sites.updateGlobal(body), reply),
    ),
    bindRoute(revealAccessKey, ({ reply }) => {
      reply.header('cache-control', 'no-store');
      return { accessKey: sites.global().accessKey };
    }),
    bindRoute(rotateAccessKey, async ({ caller, reply }) =>
      globalViewFor(caller, await sites.rotateAccessKey(), reply),
    ),
  ];
}
