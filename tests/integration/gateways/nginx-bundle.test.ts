import { execFileSync, spawnSync } from 'node:child_process';
import { request as httpRequest, createServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nginxLogFormat, pluginBundle } from '#engine/gateways';
import type { SiteRecord } from '#engine/config-store';
import { startTestEngine, freePort, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { NGINX, TestNginx } from '../../support/nginx.ts';
import { ADD_REQUEST_ID, REQUEST_ID_HEADER, freeUdpPort, expectAccessLogAt, recordOf } from './access-log-support.ts';

// The plugin bundle as nginx reads it: no warning from nginx -t, user text that cannot add
// directives, and heads as large as nginx accepts answered with a verdict.

let engine: TestEngine;
let admin: ApiClient;
let nginx: TestNginx;
let upstream: Server;
let relay: TcpServer;
let dir: string;
let siteId: string;
let accessKey: string;
let gatewayPort: number;
let logPort: number;
/** What nginx sent on each connection of the verdict upstream, in order of connection. */
const verdictConnections: string[] = [];
const relaySockets = new Set<Socket>();
const ports = { bundle: 0, hostile: 0, wide: 0 };

const INJECTION = 'x\nlocation ^~ /open { return 200 "injected"; }\n#';

async function unpack(name: string, archive: Buffer): Promise<string> {
  const file = join(dir, `${name}.tar.gz`);
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(file, archive);
  execFileSync('tar', ['xzf', file, '-C', join(dir, name)]);
  return join(dir, name, `rampart-nginx-${siteId}`);
}

/** `nginx -t` of an http {} body on its own: its stderr. */
async function nginxTest(name: string, http: string): Promise<{ status: number | null; stderr: string }> {
  const prefix = join(dir, `t-${name}`);
  await mkdir(join(prefix, 'logs'), { recursive: true });
  const conf = join(prefix, 'nginx.conf');
  await writeFile(
    conf,
    `pid ${prefix}/nginx.pid;\nerror_log ${prefix}/logs/error.log warn;\nevents {}\nhttp {\n${http}\n}\n`,
  );
  const result = spawnSync(NGINX, ['-t', '-p', prefix, '-c', conf, '-e', join(prefix, 'logs/error.log')], {
    encoding: 'utf8',
  });
  return { status: result.status, stderr: result.stderr };
}

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; requestId: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, requestId: String(res.headers[REQUEST_ID_HEADER] ?? '') }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** The access record of a request through nginx (written once nginx's log line completed it). */
const accessRecord = (requestId: string): Promise<Record<string, unknown> | undefined> =>
  recordOf(engine, siteId, requestId);

const server = (port: number, folder: string, extra = ''): string => `
    server {
        listen 127.0.0.1:${port};
        server_name localhost;
        ${ADD_REQUEST_ID}
        ${extra}
        include ${folder}/rampart-site.conf;
        location / {
            include ${folder}/rampart-protect.conf;
            proxy_pass http://127.0.0.1:${(upstream.address() as { port: number }).port};
        }
    }`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-bundle-nginx-'));
  logPort = await freeUdpPort();
  engine = await startTestEngine({ RAMPART_EDITION: 'B', RAMPART_GATEWAY_LOG_PORT: String(logPort) });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  const created = await admin.request<SiteRecord>('POST', '/sites', {
    name: 'shop',
    domain: 'localhost',
    runMode: 'block',
    accessMethod: 'plugin',
  });
  expect(created.status, created.text).toBe(201);
  siteId = created.body.id;
  accessKey = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
  gatewayPort = Number(new URL(engine.gatewayUrl).port);

  upstream = createServer({ maxHeaderSize: 256 * 1024 }, (_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<html><body><h1>hello from upstream</h1></body></html>`);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  // Between nginx and the verdict port: records which connection carried which verdict request.
  relay = createTcpServer((client) => {
    const index = verdictConnections.push('') - 1;
    const target = connect(gatewayPort, '127.0.0.1');
    relaySockets.add(client).add(target);
    client.on('data', (chunk: Buffer) => (verdictConnections[index] += chunk.toString('latin1')));
    client.pipe(target).pipe(client);
    client.on('error', () => target.destroy());
    target.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const relayPort = (relay.address() as { port: number }).port;

  const res = await fetch(`${engine.url}/api/v1/sites/${siteId}/plugin`, { headers: { cookie: admin.cookie ?? '' } });
  expect(res.status).toBe(200);
  const folder = await unpack('bundle', Buffer.from(await res.arrayBuffer()));
  await expectAccessLogAt(folder, logPort);
  // The same site, as if its stored name carried directives (stored before names were validated).
  const record: SiteRecord = { ...created.body, name: INJECTION };
  const hostile = await unpack(
    'hostile',
    pluginBundle({
      site: record,
      accessKey,
      engineAddress: `127.0.0.1:${gatewayPort}`,
      logPort,
      version: '0.1.0',
      now: 0,
    }).content,
  );
  for (const key of Object.keys(ports) as (keyof typeof ports)[]) ports[key] = await freePort();

  nginx = new TestNginx(join(dir, 'nginx'));
  await nginx.start(`
    ${nginxLogFormat()}
    upstream rampart_engine { server 127.0.0.1:${relayPort}; keepalive 1; }
    upstream rampart_pages { server 127.0.0.1:${gatewayPort}; keepalive 4; }
    ${server(ports.bundle, folder)}
    ${server(ports.hostile, hostile)}
    ${server(ports.wide, folder, 'large_client_header_buffers 4 64k;')}
  `);
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  for (const socket of relaySockets) socket.destroy();
  await new Promise((resolve) => relay?.close(resolve));
  await new Promise((resolve) => upstream?.close(resolve));
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('the generated bundle under nginx -t', () => {
  it('passes with no warning', async () => {
    const folder = join(dir, 'bundle', `rampart-nginx-${siteId}`);
    const result = await nginxTest(
      'plain',
      `include ${folder}/rampart-upstream.conf;\n${server(await freePort(), folder)}`,
    );
    expect(result.stderr).toContain('syntax is ok');
    expect(result.stderr).not.toContain('[warn]');
    expect(result.status).toBe(0);
  });

  it('keeps a site name carrying directives in its comment: nginx -t passes and /open stays protected', async () => {
    const folder = join(dir, 'hostile', `rampart-nginx-${siteId}`);
    const result = await nginxTest(
      'hostile',
      `include ${folder}/rampart-upstream.conf;\n${server(await freePort(), folder)}`,
    );
    expect(result.stderr).not.toContain('[warn]');
    expect(result.status).toBe(0);
    const open = await get(ports.hostile, '/open');
    expect(open.status).toBe(412);
    expect(open.body).not.toContain('injected');
    expect(await accessRecord(open.requestId)).toMatchObject({
      request: 'GET /open HTTP/1.1',
      guard_status: 'TOKEN_MISS',
      status: 412,
    });
  });
});

describe('large heads through nginx', () => {
  it('a benign request with an 8 KB Cookie, an 8 KB Referer and a 6 KB query gets the reload page, is logged, and the connection serves the next verdict', async () => {
    const query = `/big?q=${'q'.repeat(6000)}`;
    const big = await get(ports.bundle, query, {
      cookie: `session=${'c'.repeat(8000)}`,
      referer: `http://localhost/${'r'.repeat(7950)}`,
      'user-agent':
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
    });
    expect(big.status).toBe(412);
    expect(big.body).toContain('Checking your browser');
    const record = await accessRecord(big.requestId);
    expect(record).toMatchObject({ guard_status: 'TOKEN_MISS', action: 'reload', status: 412 });
    expect(String(record?.request)).toMatch(/^GET \/big\?q=qqq/);

    const next = await get(ports.bundle, '/after');
    expect(next.status).toBe(412);
    expect(await accessRecord(next.requestId)).toMatchObject({
      request: 'GET /after HTTP/1.1',
      guard_status: 'TOKEN_MISS',
    });
    // Both verdicts went over one upstream connection (keepalive 1): nothing was reset in between.
    const carrying = (uri: string): number => verdictConnections.findIndex((c) => c.includes(`X-Original-URI: ${uri}`));
    expect(carrying('/after')).not.toBe(-1);
    expect(carrying('/after')).toBe(carrying(query));
    // nginx did not send the client's query again on the reload request
    expect(verdictConnections.join('')).not.toContain(`/_rampart/reload?q=`);
  });

  it('a head over 64 KB (nginx configured for larger ones) gets the oversize verdict, pass by default, with an access record; the next request is answered normally', async () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 3; i++) headers[`x-filler-${i}`] = 'f'.repeat(30_000);
    const oversize = await get(ports.wide, '/oversize', headers);
    expect(oversize.status).toBe(200);
    expect(oversize.body).toContain('hello from upstream');
    const record = await accessRecord(oversize.requestId);
    expect(record).toMatchObject({
      request: 'GET /oversize HTTP/1.1',
      guard_status: 'IGNORE',
      action: 'pass',
      status: 200,
    });
    // the page as sent (sub_filter added the probe, so it went chunked: nginx counts the chunk lines too)
    expect(record?.body_bytes_sent).toBeGreaterThanOrEqual(Buffer.byteLength(oversize.body));
    expect(record?.head_bytes).toBeGreaterThan(64 * 1024);
    const next = await get(ports.wide, '/next');
    expect(next.status).toBe(412);
    expect(await accessRecord(next.requestId)).toMatchObject({
      request: 'GET /next HTTP/1.1',
      guard_status: 'TOKEN_MISS',
    });
  });

  it('nginx reported no errors talking to Rampart', async () => {
    const problems = (await nginx.errorLog()).split('\n').filter((l) => /\[(error|crit|alert|emerg)\]/.test(l));
    expect(problems).toEqual([]);
  });
});
