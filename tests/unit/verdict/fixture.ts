import { compileSite, siteInputSchema, type CompiledSite, type SiteInput } from '#engine/sites';
import { defaultSiteGlobal, type SiteRecord } from '#engine/config-store';
import { NO_WAF_MATCH, type RequestFacts, type TokenCheck, type VerdictPorts } from '#engine/verdict';
import type { Edition } from '#engine/shared';

export function site(input: Partial<SiteInput> = {}, edition: Edition = 'B', ipLock = false): CompiledSite {
  const settings = siteInputSchema.parse({ name: 'shop', domain: 'shop.example.com', runMode: 'block', ...input });
  const record: SiteRecord = { ...settings, id: 'site_1', createdAt: 0, updatedAt: 0 };
  return compileSite(record, { ...defaultSiteGlobal('key'), ipLock }, edition);
}

export function request(over: Partial<RequestFacts> & { cookie?: string; ua?: string } = {}): RequestFacts {
  const { cookie, ua, headers, ...rest } = over;
  return {
    method: 'GET',
    scheme: 'https',
    host: 'shop.example.com',
    uri: '/',
    protocol: 'HTTP/1.1',
    remoteAddr: '203.0.113.9',
    requestId: 'req-1',
    headers: {
      'user-agent': ua ?? 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36',
      ...(cookie === undefined ? { cookie: 'rampart_token=good' } : cookie === '' ? {} : { cookie }),
      ...headers,
    },
    ...rest,
  };
}

/** Ports over plain data: tokens by value, bans by IP, bot types by user agent. */
export function ports(
  over: Partial<VerdictPorts> & {
    tokens?: Record<string, TokenCheck>;
    /** IPs in the threat store. */
    banned?: string[];
    /** IPs banned on a site by a rule: `site:ip`. */
    siteBans?: string[];
  } = {},
): VerdictPorts {
  const tokens: Record<string, TokenCheck> = {
    good: { kind: 'valid', deviceId: 'dev-1', bot: false },
    bot: { kind: 'valid', deviceId: 'dev-2', bot: true },
    old: { kind: 'expired', deviceId: 'dev-3' },
    ...over.tokens,
  };
  return {
    edition: 'B',
    now: () => 1_000,
    verifyToken: (t) => (t === '' ? { kind: 'missing' } : (tokens[t] ?? { kind: 'invalid', reason: 'signature' })),
    deviceOf: (v) => (v.startsWith('dev-') ? v : ''),
    isBanned: (siteId, ip, _device, _now, threatStore) =>
      (over.siteBans ?? []).includes(`${siteId}:${ip}`) || (threatStore && (over.banned ?? []).includes(ip)),
    botTypeOf: (ua) =>
      /sqlmap/.test(ua) ? 'scanner' : /curl/.test(ua) ? 'script_tool' : /crawler/.test(ua) ? 'other_crawler' : null,
    globalList: () => null,
    inspect: () => NO_WAF_MATCH,
    wafDenied: () => false,
    ...over,
  };
}
