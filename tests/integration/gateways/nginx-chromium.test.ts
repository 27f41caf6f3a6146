import { execFile, execFileSync } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '#engine/shared';
import { withIntelFields } from '#engine/verdict';
import { nginxLogFormat } from '#engine/gateways';
import { startTestEngine, freePort, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { TestNginx } from '../../support/nginx.ts';
import { ADD_REQUEST_ID, REQUEST_ID_HEADER, freeUdpPort, expectAccessLogAt, recordOf } from './access-log-support.ts';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const DESKTOP_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

const clock = new ManualClock(Date.now());
let engine: TestEngine;
let admin: ApiClient;
let nginx: TestNginx;
let upstream: Server;
let dir: string;
let logPort: number;
const ports: Record<'block' | 'monitor' | 'pass', number> = { block: 0, monitor: 0, pass: 0 };
const sites: Record<'block' | 'monitor' | 'pass', string> = { block: '', monitor: '', pass: '' };

/** Downloads the site's plugin bundle through the console API and unpacks it. */
async function bundle(siteId: string): Promise<string> {
  const res = await fetch(`${engine.url}/api/v1/sites/${siteId}/plugin`, { headers: { cookie: admin.cookie ?? '' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-disposition')).toContain(`rampart-nginx-${siteId}.tar.gz`);
  const file = join(dir, `${siteId}.tar.gz`);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  execFileSync('tar', ['xzf', file, '-C', dir]);
  const folder = join(dir, `rampart-nginx-${siteId}`);
  await expectAccessLogAt(folder, logPort);
  return folder;
}

/** A plain HTTP GET through nginx, optionally from another loopback source address. */
function get(
  port: number,
  path: string,
  options: { cookie?: string; from?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string; requestId: string }> {
  return new Promise((resolve, reject) => {
    const headers = { ...(options.cookie ? { cookie: options.cookie } : {}), ...options.headers };
    const req = httpRequest({ host: '127.0.0.1', port, path, localAddress: options.from, headers }, (res) => {
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

async function accessLog(site: string): Promise<Record<string, unknown>[]> {
  await engine.logStore.flush();
  const records = await engine.logStore.read(`access:${site}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
  return records.map((r) => withIntelFields(r));
}

/** The access record of a request through nginx, once nginx's log line completed it. */
async function accessRecord(site: string, requestId: string): Promise<Record<string, unknown> | undefined> {
  const record = await recordOf(engine, site, requestId);
  return record && withIntelFields(record);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-nginx-'));
  logPort = await freeUdpPort();
  engine = await startTestEngine({ RAMPART_EDITION: 'B', RAMPART_GATEWAY_LOG_PORT: String(logPort) }, { clock });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  await admin.request('PUT', '/site-global', {
    tokenCookieName: 'rampart_token',
    identityCookieName: 'rampart_id',
    tokenExpirySeconds: 10,
    ipLock: true,
  });
  for (const mode of ['block', 'monitor', 'pass'] as const) {
    const res = await admin.request<{ id: string }>('POST', '/sites', {
      name: `${mode} site`,
      domain: 'localhost',
      runMode: mode,
      accessMethod: 'plugin',
    });
    expect(res.status, res.text).toBe(201);
    sites[mode] = res.body.id;
    ports[mode] = await freePort();
  }
  upstream = createServer((req, res) => {
    res.setHeader('Server', 'upstream-secret/1.0');
    res.setHeader('Content-Type', 'text/html');
    res.end(`<html><body><h1>hello from upstream</h1><p>${req.url}</p></body></html>`);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamPort = (upstream.address() as { port: number }).port;
  const gatewayPort = new URL(engine.gatewayUrl).port;

  let http = `    ${nginxLogFormat()}
    upstream rampart_engine { server 127.0.0.1:${gatewayPort}; keepalive 16; }
    upstream rampart_pages { server 127.0.0.1:${gatewayPort}; keepalive 16; }\n`;
  for (const mode of ['block', 'monitor', 'pass'] as const) {
    const folder = await bundle(sites[mode]);
    http += `
    server {
        listen 127.0.0.1:${ports[mode]};
        server_name localhost;
        ${ADD_REQUEST_ID}
        include ${folder}/rampart-site.conf;
        location / {
            include ${folder}/rampart-protect.conf;
            proxy_pass http://127.0.0.1:${upstreamPort};
        }
    }`;
  }
  nginx = new TestNginx(join(dir, 'nginx'));
  await nginx.start(http);
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await new Promise((resolve) => upstream?.close(resolve));
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('block mode through nginx with the downloaded bundle', () => {
  let browser: Browser | undefined;
  afterAll(() => browser?.close());

  it('a client without a token (curl) gets 412 and the reload page', async () => {
    const res = await get(ports.block, '/shop');
    expect(res.status).toBe(412);
    expect(res.body).toContain('Checking your browser');
    expect(res.body).toContain('/_rampart/probe.js?mode=reload');
    expect(await accessRecord(sites.block, res.requestId)).toMatchObject({
      guard_status: 'TOKEN_MISS',
      src_ip: '127.0.0.1',
      request: 'GET /shop HTTP/1.1',
      status: 412,
    });
  });

  it('headless Chromium under Playwright is caught by the probe (webdriver) and gets 400 and the block page', async () => {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const page = await browser.newPage();
    const report = page.waitForResponse((r) => r.url().endsWith('/_rampart/report'));
    await page.goto(`http://127.0.0.1:${ports.block}/shop`);
    const response = await report;
    expect(response.status()).toBe(400);
    await page.getByText('Request blocked').waitFor();
    await engine.logStore.flush();
    const detections = await engine.logStore.read(`detection:${sites.block}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    expect(detections.at(-1)).toMatchObject({
      detection_result: 'bot',
      client_bot_type: 'webdriver',
      site_id: sites.block,
    });
    await page.close();
  });

  let humanToken = '';
  it('Chromium without automation flags and with a normal user agent gets a token and the upstream page', async () => {
    const human = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [...CHROMIUM_ARGS, '--disable-blink-features=AutomationControlled', `--user-agent=${DESKTOP_UA}`],
    });
    try {
      const context = await human.newContext({ userAgent: DESKTOP_UA });
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${ports.block}/shop`);
      await page.getByText('hello from upstream').waitFor({ timeout: 20_000 });
      const cookies = await context.cookies();
      humanToken = cookies.find((c) => c.name === 'rampart_token')?.value ?? '';
      expect(humanToken).not.toBe('');
      expect(cookies.find((c) => c.name === 'rampart_token')?.httpOnly).toBe(true);
      // (the page's record is written once nginx's log line of it arrives)
      await expect
        .poll(async () => (await accessLog(sites.block)).at(-1), { timeout: 5000 })
        .toMatchObject({ guard_status: 'PASS', ua_family: 'Chrome' });

      // The page got the probe in page mode: it renews the token at 70 % of its 10 s life, with
      // no reload, so the person never sees the reload response.
      clock.advance(5_000);
      const renewal = await page.waitForResponse((r) => r.url().endsWith('/_rampart/report'), { timeout: 15_000 });
      expect(renewal.status()).toBe(200);
      expect(renewal.request().postDataJSON()).toMatchObject({ mode: 'page' });
      const renewed = (await context.cookies()).find((c) => c.name === 'rampart_token')?.value ?? '';
      expect(renewed).not.toBe('');
      expect(renewed).not.toBe(humanToken);
      expect(page.url()).toBe(`http://127.0.0.1:${ports.block}/shop`);
      await expect(page.getByText('hello from upstream').isVisible()).resolves.toBe(true);
      humanToken = renewed;
    } finally {
      await human.close();
    }
  });

  it('hides the upstream server information', async () => {
    const res = await new Promise<{ server: string | undefined }>((resolve) => {
      httpRequest(
        { host: '127.0.0.1', port: ports.block, path: '/x', headers: { cookie: `rampart_token=${humanToken}` } },
        (r) => {
          r.resume();
          resolve({ server: String(r.headers.server ?? '') });
        },
      ).end();
    });
    expect(res.server ?? '').not.toContain('upstream-secret');
  });

  it('with IP lock, the token replayed from another source IP gives TOKEN_INVALID and the reload page', async () => {
    const replay = await get(ports.block, '/shop', { cookie: `rampart_token=${humanToken}`, from: '127.0.0.2' });
    expect(replay.status).toBe(412);
    expect(await accessRecord(sites.block, replay.requestId)).toMatchObject({
      guard_status: 'TOKEN_INVALID',
      src_ip: '127.0.0.2',
    });
    expect((await get(ports.block, '/shop', { cookie: `rampart_token=${humanToken}` })).status).toBe(200);
  });

  it('an expired token (clock moved past the 10 s expiry) gives TOKEN_EXPIRED', async () => {
    clock.advance(61_000);
    const res = await get(ports.block, '/shop', { cookie: `rampart_token=${humanToken}` });
    expect(res.status).toBe(412);
    expect(await accessRecord(sites.block, res.requestId)).toMatchObject({ guard_status: 'TOKEN_EXPIRED' });
  });
});

describe('other run modes through nginx', () => {
  it('monitor mode never blocks but logs the verdict', async () => {
    const res = await get(ports.monitor, '/shop');
    expect(res.status).toBe(200);
    expect(res.body).toContain('hello from upstream');
    expect(await accessRecord(sites.monitor, res.requestId)).toMatchObject({
      guard_status: 'TOKEN_MISS',
      action: 'pass',
      status: 200,
    });
  });

  it('pass-through only logs', async () => {
    const res = await get(ports.pass, '/shop');
    expect(res.status).toBe(200);
    expect(await accessRecord(sites.pass, res.requestId)).toMatchObject({ guard_status: 'IGNORE', status: 200 });
  });

  it("the bundle's keeper script sends heartbeats that show the site connected", async () => {
    const folder = join(dir, `rampart-nginx-${sites.pass}`);
    const before = await admin.request<{ status: { keeperVersion: string | null } }>('GET', `/sites/${sites.pass}`);
    expect(before.body.status.keeperVersion).toBe('');
    // Asynchronously: the engine runs in this process and must be free to answer the keeper.
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        'timeout',
        ['1.5', 'sh', join(folder, 'rampart-keeper.sh'), join(folder, 'config.json')],
        (error, _stdout, stderr) => resolve({ code: (error as { code?: number } | null)?.code ?? 0, stderr }),
      );
    });
    expect(result).toEqual({ code: 124, stderr: '' }); // stopped by timeout, as intended, without a failed heartbeat
    const after = await admin.request<{ status: { connected: boolean; keeperVersion: string } }>(
      'GET',
      `/sites/${sites.pass}`,
    );
    expect(after.body.status).toMatchObject({ connected: true, keeperVersion: '0.1.0' });
  });

  it('nginx reported no errors talking to Rampart', async () => {
    const problems = (await nginx.errorLog()).split('\n').filter((l) => /\[(error|crit|alert|emerg)\]/.test(l));
    expect(problems).toEqual([]);
  });
});

describe('basic application rules (CRS 3.3.4 at loose) through nginx', () => {
  /** One attack per group, each from its own loopback address (a fired rule denies its client for a minute). */
  const ATTACKS: { group: string; rule: string; path: string; headers?: Record<string, string> }[] = [
    { group: '001 Java', rule: '944130', path: '/?foo=java.lang.Runtime.getRuntime().exec(%22id%22)' },
    { group: '002 file and path', rule: '930100', path: '/download?file=../../../../etc/passwd' },
    {
      group: '003 Node.js',
      rule: '934100',
      path: '/?x=_%24%24ND_FUNC%24%24_function()%7Brequire(%22child_process%22)%7D',
    },
    { group: '004 PHP', rule: '933100', path: "/?x=%3C%3Fphp%20system('id')%3B%20%3F%3E" },
    { group: '005 remote code execution', rule: '932160', path: '/ping?host=127.0.0.1;cat%20/etc/passwd' },
    { group: '006 remote file inclusion', rule: '931100', path: '/?url=http://203.0.113.5/evil.txt' },
    { group: '007 session fixation', rule: '943120', path: '/login?jsessionid=1234567890' },
    { group: '008 SQL injection', rule: '942100', path: "/item?id=1'%20OR%20'1'='1" },
    { group: '009 XSS', rule: '941100', path: '/search?q=%3Cscript%3Ealert(1)%3C/script%3E' },
    {
      group: '010 protocol attack',
      rule: '921130',
      path: '/?lang=en%0d%0aContent-Length:%200%0d%0a%0d%0aHTTP/1.1%20200%20OK',
    },
    { group: '011 protocol enforcement', rule: '920270', path: '/?x=a%00b' },
    {
      group: '012 scanners',
      rule: '913100',
      path: '/',
      headers: { 'user-agent': 'sqlmap/1.7.2#stable (https://sqlmap.org)' },
    },
  ];

  it('blocks an attack of each of the 12 groups with the block page, and the access log names the rule', async () => {
    const site = await admin.request<{ blockStatus: number; blockContent: string }>('GET', `/sites/${sites.block}`);
    for (const [i, attack] of ATTACKS.entries()) {
      const from = `127.0.0.${60 + i}`;
      const res = await get(ports.block, attack.path, {
        from,
        headers: { 'user-agent': DESKTOP_UA, ...attack.headers },
      });
      expect(res.status, attack.group).toBe(site.body.blockStatus);
      expect(res.body, attack.group).not.toContain('hello from upstream');
      const record = await accessRecord(sites.block, res.requestId);
      expect(record, attack.group).toMatchObject({
        src_ip: from,
        guard_status: 'OWASP',
        action: 'block',
        status: site.body.blockStatus,
      });
      expect(String(record?.waf_triggered_rules).split(','), attack.group).toContain(attack.rule);
    }
  });

  it('denies the client for a minute after a rule fired, while others pass on', async () => {
    const res = await get(ports.block, '/shop', { from: '127.0.0.60', headers: { 'user-agent': DESKTOP_UA } });
    expect(res.status).not.toBe(200);
    expect(await accessRecord(sites.block, res.requestId)).toMatchObject({
      src_ip: '127.0.0.60',
      guard_status: 'OWASP',
      waf_triggered_rules: '',
    });
    expect((await get(ports.block, '/shop', { from: '127.0.0.90' })).status).toBe(412); // no token: the reload page
  });

  it('monitor mode lets an attack through and logs the rule', async () => {
    const res = await get(ports.monitor, "/item?id=1'%20OR%20'1'='1", { from: '127.0.0.91' });
    expect(res.status).toBe(200);
    expect(await accessRecord(sites.monitor, res.requestId)).toMatchObject({
      src_ip: '127.0.0.91',
      guard_status: 'OWASP',
      action: 'pass',
    });
  });

  it('nginx still reported no errors', async () => {
    const problems = (await nginx.errorLog()).split('\n').filter((l) => /\[(error|crit|alert|emerg)\]/.test(l));
    expect(problems).toEqual([]);
  });
});
