import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenService } from '#engine/probe';
import { ManualClock } from '#engine/shared';
import {
  createGateway,
  type GatewayOptions,
  type GatewayProblem,
  type RampartGateway,
} from '../../../gateways/node/index.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { rawRequest, type RawResponse } from '../../support/http.ts';
import { readConfigDocument } from '#engine/config-store';

/**
 * The Node gateway middleware (gateways/node) in front of a small origin, against the real engine's
 * gateway API: node:http, an Express-shaped middleware chain and a real Fastify application.
 */

const clock = new ManualClock(Date.now());
const ORIGIN_BODY = 'hello from the origin';
let engine: TestEngine;
let admin: ApiClient;
let key: string;
let tokens: TokenService;
const siteIds: Record<string, string> = {};
let site: { reloadStatus: number; blockStatus: number; blockContent: string };
const gateways: RampartGateway[] = [];
const servers: Server[] = [];
const fastifyApps: FastifyInstance[] = [];

/** The application behind the gateway. */
const origin = (_req: IncomingMessage, res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(ORIGIN_BODY);
};

function gateway(options: Partial<GatewayOptions> & { siteId: string }): RampartGateway {
  const g = createGateway({
    engine: engine.gatewayUrl,
    accessKey: key,
    heartbeatIntervalSeconds: 0,
    trustedProxyHops: 1,
    onError: () => undefined,
    ...options,
  });
  gateways.push(g);
  return g;
}

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** node:http: the gateway wraps the application's request listener. */
function nodeHttpFront(g: RampartGateway): Promise<string> {
  return listen(createServer(g.listener(origin)));
}

/** Express's call shape: middleware `(req, res, next)` in order, `originalUrl` kept while a mount path cuts `url`. */
function expressFront(g: RampartGateway): Promise<string> {
  const stack = [g.express(), (req: IncomingMessage, res: ServerResponse) => origin(req, res)];
  return listen(
    createServer((req, res) => {
      (req as IncomingMessage & { originalUrl?: string }).originalUrl = req.url;
      req.url = (req.url ?? '/').replace(/^\/shop/, '') || '/';
      let i = 0;
      const next = (error?: unknown): void => {
        if (error !== undefined) {
          res.writeHead(500).end();
          return;
        }
        const layer = stack[i++];
        if (layer) layer(req, res, next);
      };
      next();
    }),
  );
}

/** A real Fastify application with the gateway registered as a plugin. */
async function fastifyFront(g: RampartGateway): Promise<string> {
  const app = Fastify();
  fastifyApps.push(app);
  await app.register(g.fastifyPlugin());
  app.all('/*', (_request, reply) => reply.type('text/plain').send(ORIGIN_BODY));
  return app.listen({ port: 0, host: '127.0.0.1' });
}

const tokenCookie = (siteId: string): string =>
  `rampart_token=${tokens.issue({ siteId, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 600, ip: '', bot: false })}`;

function get(url: string, from: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(url, {
    headers: { 'x-forwarded-for': from, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0', ...headers },
  });
}

/** Open TCP sockets of this process (both ends of loopback connections count). */
const openSockets = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;

async function until(check: () => boolean | Promise<boolean>, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { clock });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  const global = await admin.request<{ accessKey: string }>('PUT', '/site-global', {
    tokenCookieName: 'rampart_token',
    identityCookieName: 'rampart_id',
    tokenExpirySeconds: 600,
    ipLock: false,
  });
  key = global.body.accessKey;
  for (const name of ['block', 'heartbeat']) {
    const res = await admin.request<{ id: string }>('POST', '/sites', {
      name: `node ${name}`,
      domain: '127.0.0.1',
      runMode: 'block',
      accessMethod: 'plugin',
    });
    expect(res.status, res.text).toBe(201);
    siteIds[name] = res.body.id;
  }
  site = (await admin.request<typeof site>('GET', `/sites/${siteIds.block}`)).body;
  const config = (await readConfigDocument(engine.dataDir)) as unknown as {
    secrets: { tokenKey: string };
  };
  tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), clock);
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all(fastifyApps.map((app) => app.close()));
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await engine?.dispose();
});

const FRONTS = [
  ['node:http', nodeHttpFront],
  ['Express', expressFront],
  ['Fastify', fastifyFront],
] as const;

describe.each(FRONTS)('the Node gateway through %s', (name, front) => {
  let url: string;
  // Each front its own client addresses: a blocked attack denies its address for a minute.
  const from = (n: number): string => `198.51.100.${FRONTS.findIndex(([f]) => f === name) * 10 + n}`;
  beforeAll(async () => {
    url = await front(gateway({ siteId: siteIds.block! }));
  });

  it('passes a client with a valid token to the origin', async () => {
    const res = await get(`${url}/shop/products?id=1`, from(1), { cookie: tokenCookie(siteIds.block!) });
    expect(res.status).toBe(200);
    expect(res.text).toBe(ORIGIN_BODY);
  });

  it('answers a client without a token with the reload page and the site reload status', async () => {
    const res = await get(`${url}/shop/products?id=1`, from(2));
    expect(res.status).toBe(site.reloadStatus);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.text).toContain('/_rampart/probe.js');
    expect(res.text).not.toContain(ORIGIN_BODY);
  });

  it('answers an SQL injection with the block page and the site block status', async () => {
    const res = await get(`${url}/shop/item?id=1'%20OR%20'1'='1`, from(3), { cookie: tokenCookie(siteIds.block!) });
    expect(res.status).toBe(site.blockStatus);
    expect(res.text).toBe(site.blockContent);
  });

  it('passes the probe script and its reports to the engine', async () => {
    const script = await get(`${url}/_rampart/probe.js?mode=page`, from(4));
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toContain('javascript');
    const report = await rawRequest(`${url}/_rampart/report`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from(4) },
      body: JSON.stringify({ nonsense: true }),
    });
    // The engine's answer (JSON, no-store), whatever it makes of a report without a probe.
    expect(report.headers['content-type']).toContain('application/json');
    expect(report.headers['cache-control']).toContain('no-store');
    expect(report.status).not.toBe(503);
  });
});

describe('the heartbeat and the connections', () => {
  it('marks the gateway connected with its version', async () => {
    gateway({ siteId: siteIds.heartbeat!, heartbeatIntervalSeconds: 3, version: '9.9.9-node' });
    const connected = await until(async () => {
      const res = await admin.request<{ status: { connected: boolean; keeperVersion: string | null } }>(
        'GET',
        `/sites/${siteIds.heartbeat}`,
      );
      return res.body.status.connected && res.body.status.keeperVersion === '9.9.9-node';
    });
    expect(connected).toBe(true);
  });

  it('leaves no socket open after close', async () => {
    const before = openSockets();
    const g = createGateway({ engine: engine.gatewayUrl, siteId: siteIds.block!, accessKey: key, trustedProxyHops: 1 });
    const server = createServer(g.listener(origin));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    expect((await get(`${url}/`, '198.51.100.200', { cookie: tokenCookie(siteIds.block!) })).status).toBe(200);
    expect((await get(`${url}/`, '198.51.100.200')).status).toBe(site.reloadStatus);
    expect(openSockets()).toBeGreaterThan(before);
    await g.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    expect(await until(() => openSockets() <= before)).toBe(true);
  });
});

describe("the site page's Node gateway download", () => {
  it('is a tar.gz of plain JavaScript that works as it is, with the site settings in files only its owner reads', async () => {
    const res = await fetch(`${engine.url}/api/v1/sites/${siteIds.block}/plugin?gateway=node`, {
      headers: { cookie: admin.cookie ?? '' },
    });
    expect(res.status).toBe(200);
    const dir = await mkdtemp(join(tmpdir(), 'rampart-node-gateway-'));
    try {
      await writeFile(join(dir, 'bundle.tar.gz'), Buffer.from(await res.arrayBuffer()));
      execFileSync('tar', ['xzf', join(dir, 'bundle.tar.gz'), '-C', dir]);
      const folder = join(dir, `rampart-node-${siteIds.block}`);
      expect((await readdir(folder)).toSorted()).toEqual(['README.md', 'config.json', 'index.js', 'package.json']);
      for (const secret of ['config.json', 'README.md'])
        expect((await stat(join(folder, secret))).mode & 0o777).toBe(0o600);
      const config = JSON.parse(await readFile(join(folder, 'config.json'), 'utf8')) as GatewayOptions;
      expect(config).toMatchObject({
        engine: engine.gatewayUrl,
        siteId: siteIds.block,
        accessKey: key,
        failMode: 'closed',
      });
      const readme = await readFile(join(folder, 'README.md'), 'utf8');
      expect(readme).toContain(siteIds.block!.replace(/_/g, '\\_'));
      const code = await readFile(join(folder, 'index.js'), 'utf8');
      // One module that imports Node's built-ins only.
      for (const [, spec] of code.matchAll(/(?:from|import)\s*["']([^"']+)["']/g)) expect(spec).toMatch(/^node:/);
      const shipped = (await import(pathToFileURL(join(folder, 'index.js')).href)) as {
        createGateway: typeof createGateway;
      };
      const g = shipped.createGateway({ ...config, heartbeatIntervalSeconds: 0, trustedProxyHops: 1 });
      gateways.push(g);
      const url = await nodeHttpFront(g);
      expect((await get(`${url}/`, '198.51.100.210')).status).toBe(site.reloadStatus);
      const passed = await get(`${url}/`, '198.51.100.210', { cookie: tokenCookie(siteIds.block!) });
      expect(passed.text).toBe(ORIGIN_BODY);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('when the engine does not answer', () => {
  it('fails closed (503) after the timeout when the engine accepts but never answers', async () => {
    const held: Socket[] = [];
    const silent = createServer();
    silent.on('connection', (socket) => held.push(socket));
    silent.on('request', () => undefined);
    const silentUrl = await listen(silent);
    const problems: GatewayProblem[] = [];
    const g = gateway({ siteId: siteIds.block!, engine: silentUrl, timeoutMs: 300, onError: (p) => problems.push(p) });
    const url = await nodeHttpFront(g);
    const started = Date.now();
    const res = await get(`${url}/`, '198.51.100.201');
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(problems[0]).toMatchObject({ kind: 'timeout', during: 'verdict' });
    for (const socket of held) socket.destroy();
  });

  describe('with the engine stopped', () => {
    let urls: { open: string; closed: string; fastifyOpen: string };
    beforeAll(async () => {
      const gatewayUrl = engine.gatewayUrl;
      await engine.stop();
      urls = {
        open: await nodeHttpFront(gateway({ siteId: siteIds.block!, engine: gatewayUrl, failMode: 'open' })),
        closed: await expressFront(gateway({ siteId: siteIds.block!, engine: gatewayUrl })),
        fastifyOpen: await fastifyFront(gateway({ siteId: siteIds.block!, engine: gatewayUrl, failMode: 'open' })),
      };
    });

    it('fails open: the origin answers', async () => {
      for (const url of [urls.open, urls.fastifyOpen]) {
        const res = await get(`${url}/`, '198.51.100.202');
        expect(res.status).toBe(200);
        expect(res.text).toBe(ORIGIN_BODY);
      }
    });

    it('fails closed by default: 503, and the origin is not asked', async () => {
      const res = await get(`${urls.closed}/`, '198.51.100.203');
      expect(res.status).toBe(503);
      expect(res.text).not.toContain(ORIGIN_BODY);
    });

    it('answers the probe routes 503 in either mode', async () => {
      expect((await get(`${urls.open}/_rampart/probe.js`, '198.51.100.204')).status).toBe(503);
    });
  });
});
