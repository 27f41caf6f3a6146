/**
 * The verdict benches' site, shared by bench/events-verdict.ts and bench/soak.ts: a site in block
 * mode with every basic-rule group switched off (the request-path pipeline without CRS), and the
 * headers nginx's auth_request would send for one browser with a valid token.
 */
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { readConfigDocument } from '#engine/config-store';
import type { ApiClient } from '../tests/support/api-client.ts';

export interface VerdictSite {
  siteId: string;
  accessKey: string;
}

const GROUPS = ['001', '002', '003', '004', '005', '006', '007', '008', '009', '010', '011', '012'];

/** Creates the site through the console API (signed in as an administrator). */
export async function createVerdictSite(admin: ApiClient): Promise<VerdictSite> {
  const global = await admin.request<{ accessKey: string }>('PUT', '/site-global', {
    tokenCookieName: 'rampart_token',
    identityCookieName: 'rampart_id',
    tokenExpirySeconds: 86_400,
    ipLock: false,
  });
  const site = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'bench',
    domain: 'shop.example.com',
    runMode: 'block',
  });
  const siteId = site.body.id;
  for (const group of GROUPS)
    await admin.request('PUT', `/sites/${siteId}/basic-rules/groups/${group}`, { enabled: false, level: 'loose' });
  return { siteId, accessKey: global.body.accessKey };
}

/** A verdict request's headers with a token signed by the engine's key in `dataDir` (valid a day). */
export async function verdictHeaders(dataDir: string, site: VerdictSite): Promise<Record<string, string>> {
  const config = (await readConfigDocument(dataDir)) as unknown as { secrets: { tokenKey: string } };
  const tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);
  const token = tokens.issue({ siteId: site.siteId, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 86_400 });
  return {
    'x-rampart-site': site.siteId,
    'x-rampart-key': site.accessKey,
    'x-original-uri': '/products/42?ref=home',
    'x-original-method': 'GET',
    'x-rampart-remote-addr': '198.51.100.20',
    host: 'shop.example.com',
    'user-agent':
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
    cookie: `rampart_token=${token}`,
  };
}
