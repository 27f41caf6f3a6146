/**
 * The nginx bundle's inline mode (issue 17 item 2): a real nginx passes every request of a plugin
 * site through Rampart's inline proxy, so request bodies are inspected and blocked on; the client's
 * address comes from nginx; the probe and the pages work as in the default mode.
 */
import { execFileSync } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SiteRecord } from '#engine/config-store';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { startTestEngine, freePort, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { NGINX, TestNginx } from '../../support/nginx.ts';
import { skipAllWithout } from '../../support/skip.ts';
import { existsSync } from 'node:fs';
import { recordOf } from './access-log-support.ts';
import { readConfigDocument } from '#engine/config-store';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

let engine: TestEngine;
let admin: ApiClient;
let nginx: TestNginx;
let upstream: Server;
let dir: string;
let site: SiteRecord;
let port: number;
let tokens: TokenService;
let lastBody = '';

interface Answer {
  status: number;
  body: string;
  requestId: string;
}

function ask(options: {
  path?: string;
  method?: string;
  body?: string;
  type?: string;
  from?: string;
  cookie?: string;
}): Promise<Answer> {
  const requestId = 'inline-' + Math.random().toString(16).slice(2);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        localAddress: options.from ?? '127.0.0.1',
        agent: false,
        headers: {
          host: 'localhost',
          'user-agent': UA,
          'x-test-id': requestId,
          ...(options.cookie ? { cookie: options.cookie } : {}),
          ...(options.body !== undefined
            ? {
                'content-type': options.type ?? 'application/x-www-form-urlencoded',
                'content-length': Buffer.byteLength(options.body),
              }
            : {}),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, requestId: String(res.headers['x-test-request-id'] ?? '') }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const tokenFor = (ip: string): string =>
  `rampart_token=${tokens.issue({ siteId: site.id, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 600, ip, bot: false })}`;

describe('the nginx bundle in inline mode', () => {
  skipAllWithout(existsSync(NGINX) ? undefined : `${NGINX} is missing (apt-get install nginx)`);

  beforeAll(async () => {
    if (!existsSync(NGINX)) return;
    dir = await mkdtemp(join(tmpdir(), 'rampart-nginx-inline-'));
    upstream = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        lastBody = body;
        res.setHeader('content-type', 'text/html');
        res.end(`<html><body><h1>hello from upstream</h1><p>${req.method} ${req.url}</p></body></html>`);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    engine = await startTestEngine({ RAMPART_EDITION: 'B' });
    admin = new ApiClient(engine.url);
    await admin.setup('root@example.com', 'Kettle#Blue7');
    await admin.request('PUT', '/gateway-address', { address: `127.0.0.1:${new URL(engine.gatewayUrl).port}` });
    const inlinePort = await freePort();
    const made = await admin.request<SiteRecord>('POST', '/sites', {
      name: 'shop',
      domain: 'localhost',
      runMode: 'block',
      accessMethod: 'plugin',
      pluginMode: 'inline',
      cname: {
        http: true,
        https: false,
        httpPort: inlinePort,
        originAddress: `127.0.0.1:${(upstream.address() as { port: number }).port}`,
      },
    });
    expect(made.status, made.text).toBe(201);
    site = made.body;
    const config = (await readConfigDocument(engine.dataDir)) as unknown as {
      secrets: { tokenKey: string };
    };
    tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);

    const res = await fetch(`${engine.url}/api/v1/sites/${site.id}/plugin`, {
      headers: { cookie: admin.cookie ?? '' },
    });
    expect(res.status).toBe(200);
    const file = join(dir, 'bundle.tar.gz');
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    execFileSync('tar', ['xzf', file, '-C', dir]);
    const folder = join(dir, `rampart-nginx-${site.id}`);
    expect(await readFile(join(folder, 'rampart-protect.conf'), 'utf8')).toContain('proxy_pass http://rampart_inline;');

    port = await freePort();
    nginx = new TestNginx(join(dir, 'nginx'));
    await nginx.start(`
    include ${folder}/rampart-upstream.conf;
    server {
        listen 127.0.0.1:${port};
        server_name localhost;
        add_header X-Test-Request-Id $request_id always;
        include ${folder}/rampart-site.conf;
        location / {
            include ${folder}/rampart-protect.conf;
        }
    }`);
    // The inline proxy follows the site within a quarter second.
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      const status = await admin.request<{ listeners: { port: number; listening: boolean }[] }>('GET', '/proxy/status');
      if (status.body.listeners.some((l) => l.port === inlinePort && l.listening)) break;
      await sleep(50);
    }
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await new Promise((resolve) => (upstream ? upstream.close(resolve) : resolve(undefined)));
    await engine?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("sends a client without a token to the reload page, with the client's address from nginx", async () => {
    const answer = await ask({ path: '/products', from: '127.0.0.51' });
    expect(answer.status).toBe(412);
    expect(answer.body).toContain('Checking your browser');
    expect(await recordOf(engine, site.id, answer.requestId)).toMatchObject({
      src_ip: '127.0.0.51',
      guard_status: 'TOKEN_MISS',
      status: 412,
    });
    const probe = await ask({ path: '/_rampart/probe.js?mode=reload' });
    expect(probe.status).toBe(200);
  });

  it('passes a client with a token to the upstream, body and all, and records status and bytes', async () => {
    const answer = await ask({
      method: 'POST',
      path: '/cart',
      body: 'item=42&qty=2',
      from: '127.0.0.52',
      cookie: tokenFor('127.0.0.52'),
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('hello from upstream');
    expect(lastBody).toBe('item=42&qty=2');
    expect(await recordOf(engine, site.id, answer.requestId)).toMatchObject({
      src_ip: '127.0.0.52',
      guard_status: 'PASS',
      status: 200,
      body_bytes_sent: Buffer.byteLength(answer.body),
    });
  });

  it('blocks a SQL injection carried only in the POST body (auth_request mode cannot see it)', async () => {
    lastBody = '';
    const answer = await ask({
      method: 'POST',
      path: '/login',
      body: "user=admin' OR '1'='1' -- &password=x",
      from: '127.0.0.53',
      cookie: tokenFor('127.0.0.53'),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('Request blocked');
    expect(lastBody).toBe('');
    const record = await recordOf(engine, site.id, answer.requestId);
    expect(record).toMatchObject({ src_ip: '127.0.0.53', guard_status: 'OWASP', action: 'block' });
    expect(String(record?.waf_triggered_categories)).toContain('sqli');
  });

  it('nginx reported no errors talking to Rampart', async () => {
    const problems = (await nginx.errorLog()).split('\n').filter((l) => /\[(error|crit|alert|emerg)\]/.test(l));
    expect(problems).toEqual([]);
  });
});
