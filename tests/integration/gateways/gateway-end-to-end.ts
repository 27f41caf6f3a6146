/**
 * The end-to-end suite every forward-auth gateway's bundle passes (caddy.test.ts, haproxy.test.ts):
 * one scenario list, each gateway giving how it is started from its bundle.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest, createServer, type Server } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BundleInput } from '#engine/gateways';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import type { SiteRecord } from '#engine/config-store';
import { startTestEngine, freePort, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { skipAllWithout } from '../../support/skip.ts';
import { recordOf } from './access-log-support.ts';
import { readConfigDocument } from '#engine/config-store';

let engine: TestEngine;
let admin: ApiClient;
let gatewayServer: { stop(): Promise<void> };
let origin: Server;
let keeper: ChildProcess | undefined;
let dir: string;
let site: SiteRecord;
let accessKey: string;
let tokens: TokenService;
let gatewayPort: number;
let folder: string;

const originPort = (): number => (origin.address() as { port: number }).port;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  requestId: string;
}

/** A request through the gateway from a loopback address of our choice; its X-Request-Id names its access record. */
function get(path: string, options: { from?: string; cookie?: string; port?: number } = {}): Promise<Answer> {
  const requestId = 'gateway-' + Math.random().toString(16).slice(2);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: options.port ?? gatewayPort,
        path,
        localAddress: options.from ?? '127.0.0.1',
        agent: false,
        headers: {
          host: 'localhost',
          'x-request-id': requestId,
          'user-agent':
            'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
          ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
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

const tokenFor = (ip: string): string =>
  `rampart_token=${tokens.issue({ siteId: site.id, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 600, ip, bot: false })}`;

async function unpack(kind: string, name: string, archive: Buffer): Promise<string> {
  const file = join(dir, `${name}.tar.gz`);
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(file, archive);
  execFileSync('tar', ['xzf', file, '-C', join(dir, name)]);
  return join(dir, name, `rampart-${kind}-${site.id}`);
}

/** A gateway tested end to end with its bundle, as nginx is. */
export interface GatewayUnderTest {
  /** Its name in test names: Caddy, HAProxy. */
  label: string;
  /** The plugin download's `gateway` value and the bundle folder's prefix. */
  kind: string;
  /** Why it cannot run here, or undefined when it can. */
  missing: string | undefined;
  bundle(input: BundleInput): { content: Buffer };
  /** A site name carrying the gateway's own directives: the bundle must keep them in comments. */
  injection: string;
  /** Starts the gateway (files in `dir`) from an unpacked bundle, on `port`, in front of the origin. */
  start(dir: string, bundle: string, port: number, originPort: number): Promise<{ stop(): Promise<void> }>;
  /** What else the hostile bundle's files and its /open answer must show. */
  checkHostile(bundle: string, open: Answer): Promise<void> | void;
}

/**
 * A forward-auth gateway's bundle end to end (issue 17 item 3): the real gateway on loopback,
 * configured with the bundle downloaded through the console API, in front of a small origin, with
 * the real engine: pass, reload, block (WAF in block mode), REPUTATION (a ban), the probe through the
 * gateway, the bundle's keeper marking the gateway connected, and a hostile site name.
 */
export function describeGatewayEndToEnd(gateway: GatewayUnderTest): void {
  describe(`the ${gateway.label} bundle end to end`, () => {
    skipAllWithout(gateway.missing);

    beforeAll(async () => {
      if (gateway.missing !== undefined) return;
      dir = await mkdtemp(join(tmpdir(), `rampart-${gateway.kind}-`));
      // The gateway reaches the engine from 127.0.0.1 only: the trusted gateway.
      engine = await startTestEngine({ RAMPART_EDITION: 'B', RAMPART_GATEWAY_TRUSTED: '127.0.0.1' });
      admin = new ApiClient(engine.url);
      await admin.setup('root@example.com', 'Kettle#Blue7');
      const address = await admin.request('PUT', '/gateway-address', {
        address: `127.0.0.1:${new URL(engine.gatewayUrl).port}`,
      });
      expect(address.status, address.text).toBe(200);
      const created = await admin.request<SiteRecord>('POST', '/sites', {
        name: 'shop',
        domain: 'localhost',
        runMode: 'block',
        accessMethod: 'plugin',
      });
      expect(created.status, created.text).toBe(201);
      site = created.body;
      accessKey = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
      const config = (await readConfigDocument(engine.dataDir)) as unknown as {
        secrets: { tokenKey: string };
      };
      tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);

      origin = createServer((_req, res) => {
        res.setHeader('Content-Type', 'text/html');
        res.end('<html><body><h1>hello from origin</h1></body></html>');
      });
      await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));

      const res = await fetch(`${engine.url}/api/v1/sites/${site.id}/plugin?gateway=${gateway.kind}`, {
        headers: { cookie: admin.cookie ?? '' },
      });
      expect(res.status).toBe(200);
      folder = await unpack(gateway.kind, 'bundle', Buffer.from(await res.arrayBuffer()));
      gatewayPort = await freePort();
      gatewayServer = await gateway.start(join(dir, gateway.kind), folder, gatewayPort, originPort());
    }, 60_000);

    afterAll(async () => {
      if (keeper?.pid !== undefined && keeper.exitCode === null) keeper.kill('SIGTERM');
      await gatewayServer?.stop();
      await new Promise((resolve) => (origin ? origin.close(resolve) : resolve(undefined)));
      await engine?.dispose();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('sends a client without a token to the reload page, with the site reload status, and logs it', async () => {
      const answer = await get('/products?id=1');
      expect(answer.status).toBe(412);
      expect(answer.body).toContain('Checking your browser');
      expect(answer.headers['content-security-policy']).toContain("script-src 'self'");
      expect(await recordOf(engine, site.id, answer.requestId)).toMatchObject({
        request: 'GET /products?id=1 HTTP/1.1',
        src_ip: '127.0.0.1',
        guard_status: 'TOKEN_MISS',
        action: 'reload',
      });
    });

    it(`serves the probe script through ${gateway.label} from the engine`, async () => {
      const probe = await get('/_rampart/probe.js?mode=reload');
      expect(probe.status).toBe(200);
      expect(probe.headers['content-type']).toContain('javascript');
    });

    it('passes a client with a valid token to the origin', async () => {
      const answer = await get('/products', { cookie: tokenFor('127.0.0.1') });
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('hello from origin');
      expect(await recordOf(engine, site.id, answer.requestId)).toMatchObject({ guard_status: 'PASS', action: 'pass' });
    });

    it('blocks an attack (WAF in block mode) with the block page and the site block status', async () => {
      // From an address of its own: the WAF's block denies that address for a while afterwards.
      const answer = await get('/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E', {
        from: '127.0.0.12',
        cookie: tokenFor('127.0.0.12'),
      });
      expect(answer.status).toBe(400);
      expect(answer.body).not.toContain('hello from origin');
      expect(answer.headers['x-rampart-guard']).toBe('OWASP');
      expect(await recordOf(engine, site.id, answer.requestId)).toMatchObject({
        src_ip: '127.0.0.12',
        guard_status: 'OWASP',
        action: 'block',
      });
    });

    it(`blocks a banned client address (REPUTATION), as ${gateway.label} reports it, and passes its neighbour`, async () => {
      const ban = await admin.request('POST', '/bans', {
        siteId: site.id,
        object: 'ip',
        value: '127.0.0.9',
        durationSeconds: 120,
        reason: `${gateway.kind} end-to-end test`,
      });
      expect(ban.status, ban.text).toBe(201);
      const banned = await get('/products', { from: '127.0.0.9', cookie: tokenFor('127.0.0.9') });
      expect(banned.status).toBe(400);
      expect(banned.body).not.toContain('hello from origin');
      expect(await recordOf(engine, site.id, banned.requestId)).toMatchObject({
        src_ip: '127.0.0.9',
        guard_status: 'REPUTATION',
        action: 'block',
      });
      const neighbour = await get('/products', { from: '127.0.0.10', cookie: tokenFor('127.0.0.10') });
      expect(neighbour.status).toBe(200);
    });

    it("runs the bundle's keeper: the site's gateway shows as connected", async () => {
      keeper = spawn('sh', [join(folder, 'rampart-keeper.sh'), join(folder, 'config.json')], { stdio: 'ignore' });
      const connected = async (): Promise<boolean> => {
        const res = await admin.request<{ heartbeat: { connected: boolean } }>(
          'POST',
          `/sites/${site.id}/connection-test`,
        );
        return res.body.heartbeat.connected;
      };
      const deadline = Date.now() + 10_000;
      while (!(await connected())) {
        if (Date.now() > deadline) throw new Error('no heartbeat from the keeper');
        await sleep(100);
      }
      keeper.kill('SIGTERM');
    });

    it('keeps a site name carrying directives in its comments: the gateway takes the configuration and /open stays protected', async () => {
      const hostile = await unpack(
        gateway.kind,
        'hostile',
        gateway.bundle({
          site: { ...site, name: gateway.injection },
          accessKey,
          engineAddress: `127.0.0.1:${new URL(engine.gatewayUrl).port}`,
          version: '0.1.0',
          now: 0,
        }).content,
      );
      const port = await freePort();
      const other = await gateway.start(join(dir, `${gateway.kind}-hostile`), hostile, port, originPort());
      try {
        const open = await get('/open', { port, from: '127.0.0.13' });
        expect(open.status).toBe(412);
        await gateway.checkHostile(hostile, open);
      } finally {
        await other.stop();
      }
    });
  });
}
