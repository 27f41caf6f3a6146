import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenService } from '#engine/probe';
import { withIntelFields } from '#engine/verdict';
import { ManualClock } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { rawRequest } from '../../support/http.ts';
import { readConfigDocument } from '#engine/config-store';

const clock = new ManualClock(Date.UTC(2026, 10, 22, 8, 0, 0));
let engine: TestEngine;
let admin: ApiClient;
let key: string;
let tokens: TokenService;
const siteIds: Record<string, string> = {};

async function createSite(name: string, body: Record<string, unknown>): Promise<string> {
  const res = await admin.request<{ id: string }>('POST', '/sites', { name, domain: `${name}.example.com`, ...body });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

interface GatewayCall {
  site?: string;
  key?: string;
  cookie?: string;
  uri?: string;
  remote?: string;
  headers?: Record<string, string>;
}

async function verdict(call: GatewayCall): Promise<{ status: number; guard: string | null; body: string }> {
  const res = await rawRequest(`${engine.gatewayUrl}/_rampart/verdict`, {
    headers: {
      'x-rampart-site': call.site ?? '',
      'x-rampart-key': call.key ?? key,
      'x-original-uri': call.uri ?? '/products?id=1',
      'x-original-method': 'GET',
      host: 'shop.example.com',
      'x-rampart-remote-addr': call.remote ?? '198.51.100.20',
      'x-request-id': 'req-' + Math.random().toString(16).slice(2),
      'user-agent':
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
      ...(call.cookie ? { cookie: call.cookie } : {}),
      ...call.headers,
    },
  });
  const guard = res.headers['x-rampart-guard'];
  return { status: res.status, guard: typeof guard === 'string' ? guard : null, body: res.text };
}

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { clock });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  siteIds.block = await createSite('block', { runMode: 'block', accessMethod: 'plugin' });
  siteIds.monitor = await createSite('monitor', { runMode: 'monitor' });
  siteIds.pass = await createSite('pass', { runMode: 'pass' });
  const global = await admin.request<{ accessKey: string }>('PUT', '/site-global', {
    tokenCookieName: 'rampart_token',
    identityCookieName: 'rampart_id',
    tokenExpirySeconds: 60,
    ipLock: true,
  });
  key = global.body.accessKey;
  const config = (await readConfigDocument(engine.dataDir)) as unknown as {
    secrets: { tokenKey: string };
  };
  tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), clock);
});
afterAll(() => engine?.dispose());

const tokenFor = (site: string, ip = '198.51.100.20', bot = false) =>
  tokens.issue({ siteId: site, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 60, ip, bot });

describe('gateway verdicts (nginx auth_request)', () => {
  it('refuses an unknown site (404) and a wrong Access Key (500: nginx would read 401 as "send to reload")', async () => {
    const unknown = await verdict({ site: 'site_nope' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ error: { code: 'SITE_UNKNOWN' } });
    for (const key of ['wrong', '']) {
      const refused = await verdict({ site: siteIds.block, key });
      expect(refused.status).toBe(500);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'ACCESS_KEY_INVALID' } });
    }
  });

  it('sends a client without a token to the reload response: 401 with TOKEN_MISS', async () => {
    expect(await verdict({ site: siteIds.block })).toMatchObject({ status: 401, guard: 'TOKEN_MISS' });
  });

  it('passes a valid token: 204 PASS', async () => {
    expect(await verdict({ site: siteIds.block, cookie: `rampart_token=${tokenFor(siteIds.block!)}` })).toMatchObject({
      status: 204,
      guard: 'PASS',
    });
  });

  it('an expired token gives TOKEN_EXPIRED', async () => {
    const token = tokenFor(siteIds.block!);
    clock.advance(61_000);
    expect(await verdict({ site: siteIds.block, cookie: `rampart_token=${token}` })).toMatchObject({
      status: 401,
      guard: 'TOKEN_EXPIRED',
    });
  });

  it('with IP lock, a token replayed from another source IP gives TOKEN_INVALID', async () => {
    const token = tokenFor(siteIds.block!, '198.51.100.20');
    expect(
      await verdict({ site: siteIds.block, cookie: `rampart_token=${token}`, remote: '203.0.113.99' }),
    ).toMatchObject({ guard: 'TOKEN_INVALID' });
  });

  it('a token of another site, a tampered one and an oversized cookie are TOKEN_INVALID', async () => {
    const other = tokenFor(siteIds.monitor!);
    expect((await verdict({ site: siteIds.block, cookie: `rampart_token=${other}` })).guard).toBe('TOKEN_INVALID');
    const good = tokenFor(siteIds.block!);
    const tampered = good.slice(0, -2) + (good.endsWith('A') ? 'BB' : 'AA');
    expect((await verdict({ site: siteIds.block, cookie: `rampart_token=${tampered}` })).guard).toBe('TOKEN_INVALID');
    expect((await verdict({ site: siteIds.block, cookie: `rampart_token=${'x'.repeat(9000)}` })).guard).toBe(
      'TOKEN_INVALID',
    );
  });

  it('a bot verdict carried by the token is blocked: 403 BOT', async () => {
    expect(
      await verdict({ site: siteIds.block, cookie: `rampart_token=${tokenFor(siteIds.block!, undefined, true)}` }),
    ).toMatchObject({
      status: 403,
      guard: 'BOT',
    });
  });

  it('monitor mode never blocks but records the verdict', async () => {
    expect(await verdict({ site: siteIds.monitor })).toMatchObject({ status: 204, guard: 'TOKEN_MISS' });
  });

  it('pass-through only logs', async () => {
    expect(await verdict({ site: siteIds.pass })).toMatchObject({ status: 204, guard: 'IGNORE' });
  });

  it('garbage X-Forwarded-For and odd headers get a defined verdict', async () => {
    const res = await verdict({
      site: siteIds.block,
      headers: { 'x-forwarded-for': ',,,garbage,[::1, 999.9.9.9', cookie: ';;==;' },
    });
    expect(res).toMatchObject({ status: 401, guard: 'TOKEN_MISS' });
  });
});

describe('reload and block responses', () => {
  it('the reload response has the configured status, the content and the probe', async () => {
    const res = await fetch(`${engine.gatewayUrl}/_rampart/reload`, { headers: { 'x-rampart-site': siteIds.block! } });
    expect(res.status).toBe(412);
    expect(res.headers.get('cache-control')).toContain('no-store');
    const html = await res.text();
    expect(html).toContain('Checking your browser');
    expect(html).toContain('/_rampart/probe.js?mode=reload');
  });

  it('the block response has the configured status and content', async () => {
    const res = await fetch(`${engine.gatewayUrl}/_rampart/block`, { headers: { 'x-rampart-site': siteIds.block! } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Request blocked');
  });

  it('serves the probe script and writes each download to the site probe log', async () => {
    const res = await fetch(`${engine.gatewayUrl}/_rampart/probe.js?mode=page`, {
      headers: { 'x-rampart-site': siteIds.block!, referer: 'https://shop.example.com/cart?x=1' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(await res.text()).toContain('/_rampart/report');
    await engine.logStore.flush();
    const downloads = await engine.logStore.read(`probe:${siteIds.block!}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    expect(downloads).toHaveLength(1);
    expect(downloads[0]).toMatchObject({
      site_id: siteIds.block,
      mode: 'page',
      referrer: 'https://shop.example.com/cart?x=1',
    });
  });
});

describe('probe reports', () => {
  const report = (body: unknown, extra: Record<string, string> = {}) =>
    fetch(`${engine.gatewayUrl}/_rampart/report`, {
      method: 'POST',
      headers: {
        'x-rampart-site': siteIds.block!,
        'content-type': 'application/json',
        'x-rampart-remote-addr': '198.51.100.20',
        ...extra,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('a human report gets the token and identity cookies, and the token passes', async () => {
    const res = await report({ v: 1, mode: 'reload', event: 'load', signs: [], fp: 'abcdef0123456789' });
    expect(res.status).toBe(200);
    const cookies = res.headers.getSetCookie();
    expect(cookies.some((c) => c.startsWith('rampart_id=') && c.includes('HttpOnly'))).toBe(true);
    const token = cookies.find((c) => c.startsWith('rampart_token='))?.split(';')[0];
    expect(token).toBeDefined();
    expect(await verdict({ site: siteIds.block, cookie: token })).toMatchObject({ status: 204, guard: 'PASS' });
  });

  it('a bot report on a blocking site gets the block status and content and no token', async () => {
    const res = await report({ v: 1, mode: 'reload', event: 'load', signs: ['webdriver'], fp: 'abcdef0123456789' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { blocked: boolean; html: string }).html).toContain('Request blocked');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('rampart_token='))).toBe(false);
  });

  it('a malformed or oversized report is refused with 400 and counted, not logged', async () => {
    expect((await report('{not json')).status).toBe(400);
    const bad = await report({ v: 1, mode: 'reload', event: 'load', signs: [], fp: 'NOT HEX' });
    expect(bad.status).toBe(400);
    expect((await report({ v: 1, mode: 'x'.repeat(300_000) })).status).toBe(413);
    await engine.logStore.flush();
    const records = await engine.logStore.read(`detection:${siteIds.block}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    expect(records.some((r) => r.detection_result === 'refused')).toBe(false);
    expect(records.some((r) => r.detection_result === 'human' && typeof r.fingerprint === 'string')).toBe(true);
  });
});

describe('heartbeats, plug-in-less checks and logs', () => {
  it('a heartbeat with the Access Key marks the site connected', async () => {
    const beat = await fetch(`${engine.gatewayUrl}/_rampart/heartbeat`, {
      method: 'POST',
      headers: { 'x-rampart-site': siteIds.pass!, 'x-rampart-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ version: '0.1.0' }),
    });
    expect(beat.status).toBe(204);
    const site = await admin.request<{ status: { connected: boolean; keeperVersion: string } }>(
      'GET',
      `/sites/${siteIds.pass}`,
    );
    expect(site.body.status).toMatchObject({ connected: true, keeperVersion: '0.1.0' });
  });

  it('a plug-in-less check answers with the verdict as JSON', async () => {
    const res = await fetch(`${engine.gatewayUrl}/_rampart/check`, {
      method: 'POST',
      headers: { 'x-rampart-site': siteIds.block!, 'x-rampart-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        method: 'GET',
        uri: '/a',
        remoteAddr: '198.51.100.1',
        headers: { 'user-agent': 'curl/8.0' },
      }),
    });
    expect(await res.json()).toMatchObject({
      action: 'reload',
      guard_status: 'TOKEN_MISS',
      status: 412,
      src_ip: '198.51.100.1',
    });
    const bad = await fetch(`${engine.gatewayUrl}/_rampart/check`, {
      method: 'POST',
      headers: { 'x-rampart-site': siteIds.block!, 'x-rampart-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ uri: 42 }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { field: 'uri' } });
  });

  it('writes one access log record per verdict with the spec fields', async () => {
    await engine.logStore.flush();
    const records = await engine.logStore.read(`access:${siteIds.block}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    expect(records.length).toBeGreaterThanOrEqual(8);
    // Stored records keep _intelligence_result once; readers add the flat spec fields from it.
    const stored = records.find((r) => r.guard_status === 'PASS');
    expect(stored).not.toHaveProperty('ua_family');
    const record = stored && withIntelFields(stored);
    expect(record).toMatchObject({
      site_id: siteIds.block,
      src_ip: '198.51.100.20',
      request: 'GET /products?id=1 HTTP/1.1',
      guard_status: 'PASS',
      ua_family: 'Chrome',
      ua_os: 'Windows',
      ua_classification: 'desktop',
      ip_classification: expect.any(String) as unknown,
      waf_triggered_rules: '',
      waf_triggered_score: 0,
    });
    expect(record?._intelligence_result).toMatchObject({ intel: { ua_family: 'Chrome' } });
    expect(typeof record?.fingerprint).toBe('string');
  });
});
