/**
 * The verdict endpoint in the forward-auth conventions (issue 17 item 3): Caddy `forward_auth`,
 * Traefik `ForwardAuth` and the HAProxy recipe (`/_rampart/verdict?gw=...`, the original request in
 * X-Forwarded-*) and Envoy `ext_authz` (the original path after ENVOY_PREFIX). These gateways read
 * any 2xx as allow and copy anything else to the client, so reload and block are the pages.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENVOY_PREFIX } from '#engine/gateways';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { recordOf } from './access-log-support.ts';
import { readConfigDocument } from '#engine/config-store';

let engine: TestEngine;
let admin: ApiClient;
let key: string;
let tokens: TokenService;
let siteId: string;
let quietSiteId: string;

const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  requestId: string;
}

/** A verdict request as a gateway sends it, from a loopback address of our choice. */
function ask(path: string, headers: Record<string, string>, from = '127.0.0.1', method = 'GET'): Promise<Answer> {
  const requestId = 'fa-' + Math.random().toString(16).slice(2);
  const port = Number(new URL(engine.gatewayUrl).port);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        localAddress: from,
        agent: false,
        headers: {
          'x-rampart-site': siteId,
          'x-rampart-key': key,
          'x-request-id': requestId,
          'user-agent': BROWSER,
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, requestId }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** What Caddy's forward_auth (and Traefik's ForwardAuth) send about the client's request. */
const forwarded = (uri: string, client = '198.51.100.30', extra: Record<string, string> = {}) => ({
  host: 'shop.example.com',
  'x-forwarded-method': 'GET',
  'x-forwarded-uri': uri,
  'x-forwarded-host': 'shop.example.com',
  'x-forwarded-proto': 'https',
  'x-forwarded-for': client,
  ...extra,
});

const tokenCookie = (ip: string): string =>
  `rampart_token=${tokens.issue({ siteId, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 600, ip, bot: false })}`;

beforeAll(async () => {
  // Only 127.0.0.1 is a trusted gateway: requests from 127.0.0.2 show what an untrusted peer gets.
  engine = await startTestEngine({ RAMPART_EDITION: 'B', RAMPART_GATEWAY_TRUSTED: '127.0.0.1' });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  const site = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'shop',
    domain: 'shop.example.com',
    runMode: 'block',
    accessMethod: 'plugin',
  });
  expect(site.status, site.text).toBe(201);
  siteId = site.body.id;
  const quiet = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'quiet',
    domain: 'quiet.example.com',
    runMode: 'block',
    accessMethod: 'plugin',
    blockStatus: 200,
    reloadStatus: 200,
  });
  expect(quiet.status, quiet.text).toBe(201);
  quietSiteId = quiet.body.id;
  key = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
  const config = (await readConfigDocument(engine.dataDir)) as unknown as {
    secrets: { tokenKey: string };
  };
  tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);
}, 60_000);

afterAll(() => engine?.dispose());

describe('Caddy forward_auth and Traefik ForwardAuth (?gw=caddy, ?gw=traefik)', () => {
  it('answers a client without a token with the reload page itself, its status and headers, and logs the original request', async () => {
    const answer = await ask('/_rampart/verdict?gw=caddy', forwarded('/products?id=1'));
    expect(answer.status).toBe(412);
    expect(answer.headers['x-rampart-guard']).toBe('TOKEN_MISS');
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.headers['cache-control']).toContain('no-store');
    expect(answer.headers['content-security-policy']).toContain("script-src 'self'");
    expect(answer.body).toContain('Checking your browser');
    expect(await recordOf(engine, siteId, answer.requestId)).toMatchObject({
      request: 'GET /products?id=1 HTTP/1.1',
      src_ip: '198.51.100.30',
      guard_status: 'TOKEN_MISS',
      action: 'reload',
    });
  });

  it('passes a client with a valid token with 200 and an empty body', async () => {
    const answer = await ask(
      '/_rampart/verdict?gw=traefik',
      forwarded('/products', '198.51.100.31', { cookie: tokenCookie('198.51.100.31') }),
    );
    expect(answer).toMatchObject({ status: 200, body: '' });
    expect(answer.headers['x-rampart-guard']).toBe('PASS');
  });

  it('answers an attack in block mode with the block page and the site block status', async () => {
    const answer = await ask(
      '/_rampart/verdict?gw=caddy',
      forwarded('/?q=<script>alert(1)</script>', '198.51.100.32', { cookie: tokenCookie('198.51.100.32') }),
    );
    expect(answer.status).toBe(400);
    expect(answer.headers['x-rampart-guard']).toBe('OWASP');
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.body.length).toBeGreaterThan(0);
  });

  it('takes the original method from X-Forwarded-Method and the client from the last X-Forwarded-For entry', async () => {
    const answer = await ask(
      '/_rampart/verdict?gw=forward-auth',
      forwarded('/login', '203.0.113.1, 198.51.100.33', { 'x-forwarded-method': 'POST' }),
    );
    expect(await recordOf(engine, siteId, answer.requestId)).toMatchObject({
      request: 'POST /login HTTP/1.1',
      src_ip: '198.51.100.33',
    });
  });

  it('from a peer that is not a trusted gateway, ignores X-Forwarded-For: the client is the peer', async () => {
    const answer = await ask('/_rampart/verdict?gw=caddy', forwarded('/from-elsewhere', '198.51.100.34'), '127.0.0.2');
    expect(answer.status).toBe(412);
    expect(await recordOf(engine, siteId, answer.requestId)).toMatchObject({
      request: 'GET /from-elsewhere HTTP/1.1',
      src_ip: '127.0.0.2',
    });
  });

  it('answers 403 instead of a configured 2xx reload or block status, which these gateways would read as allow', async () => {
    const answer = await ask('/_rampart/verdict?gw=caddy', {
      ...forwarded('/'),
      'x-rampart-site': quietSiteId,
    });
    expect(answer.status).toBe(403);
    expect(answer.headers['x-rampart-guard']).toBe('TOKEN_MISS');
    expect(answer.body).toContain('Checking your browser');
  });

  it('refuses a wrong Access Key with a 500 error body, as for nginx, and an unknown gateway name with 404', async () => {
    const wrong = await ask('/_rampart/verdict?gw=caddy', { ...forwarded('/'), 'x-rampart-key': 'wrong' });
    expect(wrong.status).toBe(500);
    expect(JSON.parse(wrong.body)).toMatchObject({ error: { code: 'ACCESS_KEY_INVALID' } });
    const unknown = await ask('/_rampart/verdict?gw=squid', forwarded('/'));
    expect(unknown.status).toBe(404);
  });
});

describe('Envoy ext_authz (HTTP service, path_prefix)', () => {
  it('reads the original method and path from the check request itself', async () => {
    const answer = await ask(
      `${ENVOY_PREFIX}/cart?item=2`,
      { host: 'shop.example.com', 'x-forwarded-for': '198.51.100.40', 'x-forwarded-proto': 'https' },
      '127.0.0.1',
      'POST',
    );
    expect(answer.status).toBe(412);
    expect(answer.body).toContain('Checking your browser');
    expect(await recordOf(engine, siteId, answer.requestId)).toMatchObject({
      request: 'POST /cart?item=2 HTTP/1.1',
      src_ip: '198.51.100.40',
    });
  });

  it('passes with 200 (Envoy allows on 200 only) and blocks with the block page', async () => {
    const pass = await ask(`${ENVOY_PREFIX}/`, {
      host: 'shop.example.com',
      'x-forwarded-for': '198.51.100.41',
      cookie: tokenCookie('198.51.100.41'),
    });
    expect(pass).toMatchObject({ status: 200, body: '' });
    const block = await ask(`${ENVOY_PREFIX}/?q=<script>alert(1)</script>`, {
      host: 'shop.example.com',
      'x-forwarded-for': '198.51.100.42',
      cookie: tokenCookie('198.51.100.42'),
    });
    expect(block.status).toBe(400);
    expect(block.headers['x-rampart-guard']).toBe('OWASP');
  });
});
