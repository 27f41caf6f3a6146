import { createSocket } from 'node:dgram';
import { request as httpRequest, createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SiteRecord } from '#engine/config-store';
import { startTestEngine, freePort, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { startProtectedNginx, type TestNginx } from '../../support/nginx.ts';
import { freeUdpPort } from './access-log-support.ts';

// Complete access records through the real nginx: the bundle's access_log sends nginx's line of
// each protected request to the gateway log port, and the verdict's record gets the origin's
// status, the bytes nginx sent and the request time.

const MERGE_WAIT_MS = 1500;
const ORIGIN_DELAY_MS = 100;
const BODY = Buffer.alloc(1234, 'b');

let engine: TestEngine;
let nginx: TestNginx;
let origin: Server;
let dir: string;
let site: SiteRecord;
let accessKey: string;
let logPort: number;
let nginxPort: number;

/** Sends one datagram to a log port from a loopback address of our choice. */
async function sendDatagram(port: number, message: string, from = '127.0.0.1'): Promise<void> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, from, resolve));
  await new Promise<void>((resolve, reject) =>
    socket.send(Buffer.from(message), port, '127.0.0.1', (error) => (error ? reject(error) : resolve())),
  );
  await new Promise<void>((resolve) => socket.close(resolve));
}

const syslogLine = (fields: Record<string, string>): string =>
  `<190>Jan  1 00:00:00 rampart: ${JSON.stringify({
    rampart: '1',
    site: site.id,
    status: '200',
    bytes: '10',
    time: '0.005',
    msec: (Date.now() / 1000).toFixed(3),
    guard: 'IGNORE',
    addr: '127.0.0.1',
    scheme: 'http',
    host: 'localhost',
    request: 'GET /udp HTTP/1.1',
    user_agent: 'test',
    referrer: '',
    xff: '',
    real_ip: '',
    ...fields,
  })}`;

function get(port: number, path: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A verdict asked straight at the gateway API, as the bundle's auth_request location asks it. */
function verdict(gatewayUrl: string, siteId: string, key: string, uri: string, requestId: string): Promise<number> {
  const url = new URL('/_rampart/verdict', gatewayUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        agent: false,
        headers: {
          'x-rampart-site': siteId,
          'x-rampart-key': key,
          'x-rampart-request-id': requestId,
          'x-request-id': requestId,
          'x-original-uri': uri,
        },
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

async function recordsOf(of: TestEngine, siteId: string, request: string): Promise<Record<string, unknown>[]> {
  await of.logStore.flush();
  const records = await of.logStore.read(`access:${siteId}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
  return records.filter((r) => r.request === request);
}

/** The records of a request once one is there (a held record appears merged or after the bound). */
async function recordsOnceWritten(
  request: string,
  of: TestEngine = engine,
  siteId: string = site.id,
): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + MERGE_WAIT_MS + 3000;
  for (;;) {
    const records = await recordsOf(of, siteId, request);
    if (records.length > 0 || Date.now() > deadline) return records;
    await sleep(25);
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-nginx-log-'));
  logPort = await freeUdpPort();
  engine = await startTestEngine({
    RAMPART_EDITION: 'B',
    RAMPART_GATEWAY_LOG_PORT: String(logPort),
    RAMPART_ACCESS_MERGE_WAIT_MS: String(MERGE_WAIT_MS),
    // nginx and its log lines come from 127.0.0.1; 127.0.0.2 plays an address that is no gateway.
    RAMPART_GATEWAY_TRUSTED: '127.0.0.1',
  });
  const admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  const created = await admin.request<SiteRecord>('POST', '/sites', {
    name: 'shop',
    domain: 'localhost',
    runMode: 'block',
    accessMethod: 'plugin',
    blockStatus: 403,
    passList: { pathEnabled: true, paths: ['/api/*'] },
    blockList: { pathEnabled: true, paths: ['/admin'] },
  });
  expect(created.status, created.text).toBe(201);
  site = created.body;
  accessKey = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;

  origin = createServer((_req, res) => {
    setTimeout(() => {
      res.writeHead(201, { 'content-type': 'application/octet-stream', 'content-length': BODY.length });
      res.end(BODY);
    }, ORIGIN_DELAY_MS);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));

  nginxPort = await freePort();
  nginx = await startProtectedNginx({
    dir,
    site,
    accessKey,
    gatewayUrl: engine.gatewayUrl,
    logPort,
    upstreamPort: (origin.address() as { port: number }).port,
    port: nginxPort,
  });
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await new Promise((resolve) => origin?.close(resolve));
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('access records through nginx', () => {
  it("a passed request gets one record with the origin's status 201, body_bytes_sent 1234 and its request time, at its verdict time", async () => {
    const before = Date.now();
    const res = await get(nginxPort, '/api/orders');
    const after = Date.now();
    expect(res.status).toBe(201);
    expect(res.body.length).toBe(1234);
    const records = await recordsOnceWritten('GET /api/orders HTTP/1.1');
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(record).toMatchObject({ status: 201, body_bytes_sent: 1234, guard_status: 'IGNORE', action: 'pass' });
    expect(record?.request_time).toBeGreaterThanOrEqual((ORIGIN_DELAY_MS - 5) / 1000);
    expect(record?.request_time).toBeLessThan(5);
    // the verdict's time (before the origin answered), not the time the line came
    expect(record?._timestamp).toBeGreaterThanOrEqual(before);
    expect(record?._timestamp).toBeLessThanOrEqual(after - ORIGIN_DELAY_MS + 5);
    expect(String(record?.log_id)).toMatch(/^[0-9a-f]{32}$/);
  });

  it("a blocked request gets one record with nginx's 403 and the bytes of the block page", async () => {
    const res = await get(nginxPort, '/admin');
    expect(res.status).toBe(403);
    const records = await recordsOnceWritten('GET /admin HTTP/1.1');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      status: 403,
      body_bytes_sent: res.body.length,
      guard_status: 'BLOCKLIST',
      action: 'block',
    });
    expect(typeof records[0]?.request_time).toBe('number');
  });

  it('a reload (no token) gets its record with the reload status nginx sent', async () => {
    const res = await get(nginxPort, '/shop');
    expect(res.status).toBe(412);
    const records = await recordsOnceWritten('GET /shop HTTP/1.1');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: 412, guard_status: 'TOKEN_MISS', body_bytes_sent: res.body.length });
  });

  it('nginx reported no errors sending its lines or asking for verdicts', async () => {
    const problems = (await nginx.errorLog()).split('\n').filter((l) => /\[(error|crit|alert|emerg)\]/.test(l));
    expect(problems).toEqual([]);
  });
});

describe('records whose line does not come, and lines without a record', () => {
  it('a verdict whose line never comes is written after the bound, without status, bytes and time', async () => {
    const asked = Date.now();
    expect(await verdict(engine.gatewayUrl, site.id, accessKey, '/lost', 'lost0001')).toBe(401);
    expect(await recordsOf(engine, site.id, 'GET /lost HTTP/1.1')).toEqual([]);
    const records = await recordsOnceWritten('GET /lost HTTP/1.1');
    expect(Date.now() - asked).toBeGreaterThanOrEqual(MERGE_WAIT_MS - 50);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ guard_status: 'TOKEN_MISS', log_id: 'lost0001' });
    expect(records[0]).not.toHaveProperty('status');
    expect(records[0]).not.toHaveProperty('body_bytes_sent');
    expect(records[0]).not.toHaveProperty('request_time');
  });

  it('a line whose record is gone is stored alone with what it has', async () => {
    await sendDatagram(
      logPort,
      syslogLine({ id: 'alone0001', request: 'GET /alone HTTP/1.1', status: '502', bytes: '77', time: '1.250' }),
    );
    const records = await recordsOnceWritten('GET /alone HTTP/1.1');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      log_id: 'alone0001',
      site_id: site.id,
      status: 502,
      body_bytes_sent: 77,
      request_time: 1.25,
      guard_status: 'IGNORE',
      src_ip: '127.0.0.1',
    });
  });

  it('drops lines from an address that is no gateway, of unknown sites and malformed ones, and goes on', async () => {
    await sendDatagram(logPort, syslogLine({ id: 'spoof0001', request: 'GET /spoofed HTTP/1.1' }), '127.0.0.2');
    await sendDatagram(
      logPort,
      syslogLine({ id: 'gone0001', site: 'site_doesnotexist', request: 'GET /gone HTTP/1.1' }),
    );
    await sendDatagram(logPort, '<190>Jan  1 00:00:00 rampart: {"rampart":"1",');
    await sendDatagram(logPort, '\u0000\u00ff garbage');
    await sendDatagram(logPort, syslogLine({ id: 'after0001', request: 'GET /after-garbage HTTP/1.1' }));
    expect(await recordsOnceWritten('GET /after-garbage HTTP/1.1')).toHaveLength(1);
    expect(await recordsOf(engine, site.id, 'GET /spoofed HTTP/1.1')).toEqual([]);
    expect(await recordsOf(engine, 'site_doesnotexist', 'GET /gone HTTP/1.1')).toEqual([]);
  });

  it('the plug-in-less check writes its record at once, whatever headers it names', async () => {
    const res = await fetch(new URL('/_rampart/check', engine.gatewayUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-rampart-site': site.id, 'x-rampart-key': accessKey },
      body: JSON.stringify({
        uri: '/api/checked',
        remoteAddr: '203.0.113.5',
        headers: { 'X-Rampart-Request-Id': 'check0001' },
      }),
    });
    expect(res.status).toBe(200);
    expect(await recordsOf(engine, site.id, 'GET /api/checked HTTP/1.1')).toHaveLength(1);
  });
});

describe('stop and restart', () => {
  it('writes the records held at stop, and stores a line that comes after the restart alone', async () => {
    const data = await mkdtemp(join(tmpdir(), 'rampart-merge-stop-'));
    const port = await freeUdpPort();
    const env = { RAMPART_EDITION: 'B', RAMPART_GATEWAY_LOG_PORT: String(port), RAMPART_ACCESS_MERGE_WAIT_MS: '60000' };
    try {
      const first = await startTestEngine(env, { dataDir: data });
      const admin = new ApiClient(first.url);
      await admin.setup('root@example.com', 'Kettle#Blue7');
      const own = await admin.request<SiteRecord>('POST', '/sites', {
        name: 'stop',
        domain: 'localhost',
        runMode: 'block',
        accessMethod: 'plugin',
      });
      expect(own.status, own.text).toBe(201);
      const key = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
      expect(await verdict(first.gatewayUrl, own.body.id, key, '/held', 'held0001')).toBe(401);
      expect(await recordsOf(first, own.body.id, 'GET /held HTTP/1.1')).toEqual([]);
      await first.stop();

      const second = await startTestEngine(env, { dataDir: data });
      try {
        const held = await recordsOf(second, own.body.id, 'GET /held HTTP/1.1');
        expect(held).toHaveLength(1);
        expect(held[0]).toMatchObject({ log_id: 'held0001', guard_status: 'TOKEN_MISS' });
        expect(held[0]).not.toHaveProperty('status');
        await sendDatagram(
          port,
          syslogLine({ site: own.body.id, id: 'held0001', request: 'GET /held HTTP/1.1', status: '412' }),
        );
        const deadline = Date.now() + 3000;
        let records = await recordsOf(second, own.body.id, 'GET /held HTTP/1.1');
        while (records.length < 2 && Date.now() < deadline) {
          await sleep(25);
          records = await recordsOf(second, own.body.id, 'GET /held HTTP/1.1');
        }
        expect(records.map((r) => r.status)).toEqual([undefined, 412]);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  }, 30_000);
});
