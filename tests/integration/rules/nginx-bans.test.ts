/**
 * Issue 15 end to end through the real nginx: repeated failed logins (the origin answers 401) make
 * access records with nginx's status, a count event fires on them, a rule bans the client's IP on
 * its site, the next request gets the block response (REPUTATION), and once the ban's duration has
 * passed the client passes again. The same with a device ban: the device named by the client's
 * token stays banned from another address.
 */
import { request as httpRequest, createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import type { SiteRecord } from '#engine/config-store';
import { startTestEngine, freePort, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { startProtectedNginx, type TestNginx } from '../../support/nginx.ts';
import { freeUdpPort } from '../gateways/access-log-support.ts';
import { readConfigDocument } from '#engine/config-store';

let engine: TestEngine;
let admin: ApiClient;
let nginx: TestNginx;
let origin: Server;
let dir: string;
let site: SiteRecord;
let tokens: TokenService;
let nginxPort: number;
let accessConfigId: string;

const devices = new Map<string, string>();
/** The device id a name stands for (made on first use). */
const deviceOf = (name: string): string => {
  let id = devices.get(name);
  if (id === undefined) devices.set(name, (id = tokens.newDeviceId().deviceId));
  return id;
};

/** A request through nginx from a loopback address of our choice, with a token for the named device. */
function send(method: string, path: string, from: string, device: string): Promise<number> {
  const token = tokens.issue({ siteId: site.id, deviceId: deviceOf(device), ttlSeconds: 600, ip: from, bot: false });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: nginxPort,
        method,
        path,
        localAddress: from,
        agent: false,
        headers: { cookie: `rampart_token=${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error('timed out');
    await sleep(50);
  }
}

async function enabledEvent(body: Record<string, unknown>): Promise<string> {
  const created = await admin.request<{ id: string }>('POST', '/events', { sources: [accessConfigId], ...body });
  expect(created.status, created.text).toBe(201);
  const on = await admin.request('POST', `/events/${created.body.id}/enabled`, { enabled: true });
  expect(on.status, on.text).toBe(200);
  return created.body.id;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-nginx-bans-'));
  const logPort = await freeUdpPort();
  engine = await startTestEngine({
    RAMPART_EDITION: 'A',
    RAMPART_GATEWAY_LOG_PORT: String(logPort),
    RAMPART_ACCESS_MERGE_WAIT_MS: '1500',
    RAMPART_GATEWAY_TRUSTED: '127.0.0.1',
  });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  // Edition A with the threat-store switch off: only the rule's own ban acts, so its end is seen.
  const created = await admin.request<SiteRecord>('POST', '/sites', {
    name: 'shop',
    domain: 'localhost',
    runMode: 'block',
    accessMethod: 'plugin',
    queryThreatStore: false,
  });
  expect(created.status, created.text).toBe(201);
  site = created.body;
  const config = (await readConfigDocument(engine.dataDir)) as unknown as {
    secrets: { tokenKey: string };
  };
  tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);
  const configs = await admin.request<{ items: { id: string; kind: string; siteId: string | null }[] }>(
    'GET',
    '/log-configs',
  );
  accessConfigId = configs.body.items.find((c) => c.kind === 'access' && c.siteId === site.id)!.id;

  origin = createServer((req, res) => {
    res.writeHead(req.method === 'POST' && req.url === '/login' ? 401 : 200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  nginxPort = await freePort();
  nginx = await startProtectedNginx({
    dir,
    site,
    accessKey: (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey,
    gatewayUrl: engine.gatewayUrl,
    logPort,
    upstreamPort: (origin.address() as { port: number }).port,
    port: nginxPort,
  });

  const failedLogin = await enabledEvent({
    kind: 'simple',
    name: 'Login answered 401',
    relation: 'a & b',
    conditions: [
      { label: 'a', field: 'request', filter: 'string', mode: 'regex', value: '^POST /login ' },
      { label: 'b', field: 'status', filter: 'number', mode: '=', value: '401' },
    ],
  });
  await enabledEvent({
    kind: 'count',
    name: 'Brute force per IP',
    triggerEvent: failedLogin,
    object: 'ip',
    window: { value: 1, unit: 'minute' },
    comparator: '>=',
    threshold: 5,
  });
  await enabledEvent({
    kind: 'count',
    name: 'Brute force per device',
    triggerEvent: failedLogin,
    object: 'device',
    window: { value: 1, unit: 'minute' },
    comparator: '>=',
    threshold: 5,
  });
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await new Promise((resolve) => origin?.close(resolve));
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

async function eventId(name: string): Promise<string> {
  const list = await admin.request<{ items: { id: string; name: string }[] }>('GET', '/events');
  return list.body.items.find((e) => e.name === name)!.id;
}

describe('bans through nginx', () => {
  it('failed logins fire the count event, the rule bans the IP, and after the duration it passes', async () => {
    const rule = await admin.request<{ id: string }>('POST', '/rules', {
      name: 'Ban IP',
      siteId: site.id,
      events: [await eventId('Brute force per IP')],
      action: 'block',
      target: 'ip',
      durationSeconds: 3,
    });
    expect(rule.status, rule.text).toBe(201);
    for (let i = 0; i < 5; i++) expect(await send('POST', '/login', '127.0.0.5', `dev-ip-${i}`)).toBe(401);
    await until(async () => (await admin.request<{ total: number }>('GET', '/bans')).body.total === 1);
    expect(await send('GET', '/', '127.0.0.5', 'dev-ip-x')).toBe(site.blockStatus);
    expect(await send('GET', '/', '127.0.0.6', 'dev-other')).toBe(200);
    await sleep(3_100);
    expect(await send('GET', '/', '127.0.0.5', 'dev-ip-x')).toBe(200);
    await admin.request('DELETE', `/rules/${rule.body.id}`);
  });

  it('a device ban follows the device to another address', async () => {
    const rule = await admin.request<{ id: string }>('POST', '/rules', {
      name: 'Ban device',
      siteId: site.id,
      events: [await eventId('Brute force per device')],
      action: 'block',
      target: 'device',
      durationSeconds: 60,
    });
    expect(rule.status, rule.text).toBe(201);
    const device = 'laptop';
    for (let i = 0; i < 5; i++) expect(await send('POST', '/login', '127.0.0.7', device)).toBe(401);
    await until(async () =>
      (
        await admin.request<{ items: { object: string; value: string }[] }>('GET', '/bans?object=device')
      ).body.items.some((b) => b.value === deviceOf(device)),
    );
    expect(await send('GET', '/', '127.0.0.8', device)).toBe(site.blockStatus);
    expect(await send('GET', '/', '127.0.0.8', 'phone')).toBe(200);
    // Denied requests are logged as REPUTATION, with the device that was banned.
    await until(async () => {
      await engine.logStore.flush();
      const records = await engine.logStore.read(`access:${site.id}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
      return records.some(
        (r) => r.guard_status === 'REPUTATION' && r.fingerprint === deviceOf(device) && r.src_ip === '127.0.0.8',
      );
    });
  });
});
