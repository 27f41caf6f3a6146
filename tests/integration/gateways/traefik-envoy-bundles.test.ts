/**
 * The Traefik and Envoy plugin bundles against the real engine (issue 17 item 3): downloaded from
 * the site's plugin route, and their configuration played as Traefik's forwardAuth and Envoy's
 * ext_authz would send it: the verdict address or prefix, the site and Access Key headers, and the
 * /_rampart/ route's headers. No Traefik or Envoy runs here (neither is packaged for Debian), so this
 * shows the bundles' values fit the engine, not how the gateways read them.
 */
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { readConfigDocument } from '#engine/config-store';

let engine: TestEngine;
let admin: ApiClient;
let siteId: string;
let tokens: TokenService;

const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request to the gateway API from 127.0.0.1 (the trusted gateway of this engine). */
function send(path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<Answer> {
  const port = Number(new URL(engine.gatewayUrl).port);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent: false,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One file of a downloaded bundle, read from its ustar archive in memory. */
function fileOf(archive: Buffer, name: string): string {
  const tar = gunzipSync(archive);
  for (let offset = 0; offset + 512 <= tar.length && tar[offset] !== 0;) {
    const header = (start: number, length: number): string =>
      tar
        .subarray(offset + start, offset + start + length)
        .toString('utf8')
        .replace(/\0[\s\S]*$/, '');
    const size = parseInt(header(124, 12), 8);
    if (header(0, 100) === name) return tar.subarray(offset + 512, offset + 512 + size).toString('utf8');
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${name} is not in the bundle`);
}

async function download(gateway: string): Promise<{ res: Response; archive: Buffer }> {
  const res = await fetch(`${engine.url}/api/v1/sites/${siteId}/plugin?gateway=${gateway}`, {
    headers: { cookie: admin.cookie ?? '' },
  });
  return { res, archive: Buffer.from(await res.arrayBuffer()) };
}

const tokenCookie = (ip: string): string =>
  `rampart_token=${tokens.issue({ siteId, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 600, ip, bot: false })}`;

/** The path and query of an address in a bundle, after checking it names this engine's gateway port. */
function onGatewayPort(address: string): string {
  const url = new URL(address);
  expect(url.port).toBe(new URL(engine.gatewayUrl).port);
  return url.pathname + url.search;
}

beforeAll(async () => {
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
  const config = (await readConfigDocument(engine.dataDir)) as unknown as {
    secrets: { tokenKey: string };
  };
  tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);
}, 60_000);

afterAll(() => engine?.dispose());

describe('the Traefik bundle', () => {
  type Headers = Record<string, string>;
  let middlewares: Record<string, { headers?: { customRequestHeaders: Headers }; forwardAuth?: { address: string } }>;
  let serviceUrl: string;

  beforeAll(async () => {
    const { res, archive } = await download('traefik');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/gzip');
    expect(res.headers.get('content-disposition')).toContain(`rampart-traefik-${siteId}.tar.gz`);
    const config = parse(fileOf(archive, `rampart-traefik-${siteId}/rampart-traefik.yml`)) as {
      http: {
        middlewares: typeof middlewares;
        services: Record<string, { loadBalancer: { servers: { url: string }[] } }>;
      };
    };
    middlewares = config.http.middlewares;
    serviceUrl = config.http.services[`rampart-${siteId}`]?.loadBalancer.servers[0]?.url ?? '';
  });

  /** The forwardAuth request Traefik sends: the client's headers, the signing middleware's, and X-Forwarded-*. */
  const forwardAuth = (uri: string, client: string, extra: Headers = {}): Promise<Answer> => {
    const verdict = middlewares[`rampart-${siteId}-verdict`]?.forwardAuth?.address ?? '';
    return send(onGatewayPort(verdict), {
      host: 'shop.example.com',
      'user-agent': BROWSER,
      ...extra,
      ...middlewares[`rampart-${siteId}-sign`]?.headers?.customRequestHeaders,
      'x-forwarded-method': 'GET',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'shop.example.com',
      'x-forwarded-uri': uri,
      'x-forwarded-for': client,
    });
  };

  it('is downloaded with the site and Access Key the engine accepts: a client without a token gets the reload page', async () => {
    const answer = await forwardAuth('/products?id=1', '198.51.100.40');
    expect(answer.status).toBe(412);
    expect(answer.headers['x-rampart-guard']).toBe('TOKEN_MISS');
    expect(answer.body).toContain('Checking your browser');
  });

  it('passes a client with a token bound to its address, and blocks an attack', async () => {
    const cookie = tokenCookie('198.51.100.41');
    expect((await forwardAuth('/products', '198.51.100.41', { cookie })).status).toBe(200);
    const attack = await forwardAuth('/?q=<script>alert(1)</script>', '198.51.100.41', { cookie });
    expect(attack.status).toBe(400);
    expect(attack.headers['x-rampart-guard']).toBe('OWASP');
  });

  it("serves the probe through the pages service with the pages middleware's headers", async () => {
    const pages = middlewares[`rampart-${siteId}-pages-tls`]?.headers?.customRequestHeaders ?? {};
    const present = Object.fromEntries(Object.entries(pages).filter(([, value]) => value !== ''));
    const answer = await send(`${onGatewayPort(serviceUrl)}_rampart/probe.js`, {
      host: 'shop.example.com',
      'user-agent': BROWSER,
      'x-forwarded-for': '198.51.100.42',
      ...present,
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('javascript');
  });
});

describe('the Envoy bundle', () => {
  interface HeaderValue {
    key: string;
    value: string;
  }
  let prefix: string;
  let checkHeaders: Record<string, string>;
  let routeHeaders: HeaderValue[];

  beforeAll(async () => {
    const { res, archive } = await download('envoy');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain(`rampart-envoy-${siteId}.tar.gz`);
    const config = parse(fileOf(archive, `rampart-envoy-${siteId}/rampart-envoy.yaml`)) as {
      http_filters: {
        typed_config: {
          http_service: {
            server_uri: { uri: string };
            path_prefix: string;
            authorization_request: { headers_to_add: HeaderValue[] };
          };
        };
      }[];
      routes: { request_headers_to_add: { header: HeaderValue }[] }[];
    };
    const service = config.http_filters[0]?.typed_config.http_service;
    onGatewayPort(service?.server_uri.uri ?? '');
    prefix = service?.path_prefix ?? '';
    checkHeaders = Object.fromEntries(
      (service?.authorization_request.headers_to_add ?? []).map((h) => [h.key, h.value]),
    );
    routeHeaders = (config.routes[0]?.request_headers_to_add ?? []).map((h) => h.header);
  });

  /** The check request ext_authz sends: the prefix and original path, the allowed headers, the added ones. */
  const check = (path: string, client: string, extra: Record<string, string> = {}, method = 'GET', body?: string) =>
    send(
      `${prefix}${path}`,
      {
        host: 'shop.example.com',
        'user-agent': BROWSER,
        'x-forwarded-proto': 'https',
        'x-forwarded-for': client,
        ...extra,
        ...checkHeaders,
      },
      method,
      body,
    );

  it('is downloaded with the site and Access Key the engine accepts: a client without a token gets the reload page', async () => {
    const answer = await check('/products?id=1', '198.51.100.50');
    expect(answer.status).toBe(412);
    expect(answer.body).toContain('Checking your browser');
  });

  it('passes a client with a token bound to its address', async () => {
    const answer = await check('/products', '198.51.100.51', { cookie: tokenCookie('198.51.100.51') });
    expect(answer).toMatchObject({ status: 200, body: '' });
  });

  it('blocks an attack carried in the request body that ext_authz sends along', async () => {
    const answer = await check(
      '/search',
      '198.51.100.52',
      { cookie: tokenCookie('198.51.100.52'), 'content-type': 'application/x-www-form-urlencoded' },
      'POST',
      "q=1' UNION SELECT username, password FROM users--",
    );
    expect(answer.status).toBe(400);
    expect(answer.headers['x-rampart-guard']).toBe('OWASP');
    // From another client: the attacker's address may be banned by now.
    const harmless = await check(
      '/search',
      '198.51.100.54',
      { cookie: tokenCookie('198.51.100.54'), 'content-type': 'application/x-www-form-urlencoded' },
      'POST',
      'q=blue+shoes',
    );
    expect(harmless.status, String(harmless.headers['x-rampart-guard'])).toBe(200);
  });

  it("serves the probe on the /_rampart/ route with the route's headers, Envoy's commands filled in", async () => {
    const filled: Record<string, string> = {
      '%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%': '198.51.100.53',
      '%REQ(:SCHEME)%': 'https',
    };
    const headers = Object.fromEntries(routeHeaders.map((h) => [h.key, filled[h.value] ?? h.value]));
    expect(headers['X-Rampart-Site']).toBe(siteId);
    const answer = await send('/_rampart/probe.js', { host: 'shop.example.com', 'user-agent': BROWSER, ...headers });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('javascript');
  });
});
