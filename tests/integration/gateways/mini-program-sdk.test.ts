/**
 * The mini-program SDK (issue 17 item 7) in Node against the real engine: a test double of the
 * platform object (`wx`-like) whose request function performs real HTTP. The SDK reports the
 * system information with the Access Key and gets a token; the requests it wraps reach the
 * application carrying the token and identity; the noted requests become records of the site's
 * messaging-app log with the pipeline's guard_status. A wrong Access Key gets no token, and the
 * application's requests still go through.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRampart,
  type MiniProgramPlatform,
  type PlatformRequestOptions,
} from '../../../gateways/mini-program/index.ts';
import { ApiClient } from '../../support/api-client.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

let engine: TestEngine;
let app: Server;
let appUrl: string;
let key: string;
let siteId: string;
let admin: ApiClient;
const seen: IncomingHttpHeaders[] = [];
const all = { from: 0, to: Number.MAX_SAFE_INTEGER };

/** A `wx`-like platform: request() is real HTTP (JSON answers parsed, as the platform does). */
function platform(storage = new Map<string, string>()): MiniProgramPlatform {
  return {
    request(options: PlatformRequestOptions): void {
      const url = new URL(options.url);
      const body =
        options.data === undefined
          ? undefined
          : typeof options.data === 'string'
            ? options.data
            : JSON.stringify(options.data);
      const req = httpRequest(
        url,
        { method: options.method ?? 'GET', headers: { 'user-agent': 'TestMiniProgram/1.0', ...options.header } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let data: unknown = text;
            if ((res.headers['content-type'] ?? '').includes('json')) {
              try {
                data = JSON.parse(text);
              } catch {
                data = text;
              }
            }
            options.success?.({ statusCode: res.statusCode ?? 0, data, header: res.headers as Record<string, string> });
          });
        },
      );
      req.on('error', (error) => options.fail?.({ errMsg: `request:fail ${error.message}` }));
      req.end(body);
    },
    getSystemInfoSync: () => ({
      brand: 'devtools',
      model: 'iPhone 12',
      system: 'iOS 15.0',
      platform: 'devtools',
      SDKVersion: '3.0.0',
    }),
    getStorageSync: (k: string) => storage.get(k) ?? '',
    setStorageSync: (k: string, v: string) => void storage.set(k, v),
  };
}

const call = (
  rampart: ReturnType<typeof createRampart>,
  options: { url: string; method?: string; data?: unknown; header?: Record<string, string> },
) =>
  new Promise<{ statusCode: number; data: unknown }>((resolve, reject) =>
    rampart.request({ ...options, success: resolve, fail: (e) => reject(new Error(e.errMsg)) }),
  );

async function messaging(): Promise<Record<string, unknown>[]> {
  await engine.logStore.flush();
  return engine.logStore.read(`messaging:${siteId}`, all);
}

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  const global = await admin.request<{ accessKey: string }>('PUT', '/site-global', {
    tokenCookieName: 'rampart_token',
    identityCookieName: 'rampart_id',
    tokenExpirySeconds: 600,
    ipLock: false,
  });
  key = global.body.accessKey;
  const made = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'shop app',
    domain: 'shop.test',
    runMode: 'block',
    accessMethod: 'bypass',
    miniProgramProtection: true,
  });
  expect(made.status, made.text).toBe(201);
  siteId = made.body.id;
  app = createServer((req, res) => {
    seen.push(req.headers);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ items: [1, 2], url: req.url }));
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  await engine?.dispose();
  await new Promise((resolve) => (app ? app.close(resolve) : resolve(undefined)));
});

describe('the mini-program SDK', () => {
  it('gets a token with the Access Key, attaches it and the identity to requests, and feeds the messaging-app log', async () => {
    const storage = new Map<string, string>();
    const rampart = createRampart({
      platform: platform(storage),
      gateway: engine.gatewayUrl,
      siteId,
      accessKey: key,
      flushMs: 0,
    });
    try {
      expect(await rampart.start()).toBe(true);
      expect(rampart.cookie()).toMatch(/^rampart_token=[^;]+; rampart_id=.+$/);
      expect(storage.get('rampart_identity')).toMatch(/^rampart_id=/);

      const answer = await call(rampart, {
        url: `${appUrl}/api/items?page=2`,
        method: 'GET',
        header: { 'x-app': '1' },
      });
      expect(answer).toMatchObject({ statusCode: 200, data: { items: [1, 2] } });
      const headers = seen.at(-1)!;
      expect(headers.cookie).toBe(rampart.cookie());
      expect(headers['x-app']).toBe('1');

      await call(rampart, { url: `${appUrl}/api/search?q=1' OR '1'='1`, method: 'post', data: { q: 1 } });
      await rampart.flush();
      const records = await messaging();
      expect(records).toHaveLength(2);
      expect(records[0]).toMatchObject({
        request: 'GET /api/items?page=2 HTTP/1.1',
        status: 200,
        guard_status: 'PASS',
        source_type: 'mini_program',
        user_agent: 'TestMiniProgram/1.0',
      });
      expect(records[1]).toMatchObject({ status: 200, guard_status: 'OWASP' });
      expect(String(records[1]!.request)).toMatch(/^POST \/api\/search\?q=/);

      await engine.logStore.flush();
      const detections = await engine.logStore.read(`detection:${siteId}`, all);
      expect(detections.at(-1)).toMatchObject({ source_type: 'mini_program', detection_result: 'human' });
      expect(String(detections.at(-1)!.device)).toContain('iPhone 12');
    } finally {
      rampart.stop();
    }
  });

  it('keeps the identity of an earlier launch', async () => {
    const storage = new Map<string, string>();
    const first = createRampart({
      platform: platform(storage),
      gateway: engine.gatewayUrl,
      siteId,
      accessKey: key,
      flushMs: 0,
    });
    await first.start();
    first.stop();
    const identity = storage.get('rampart_identity');
    const second = createRampart({
      platform: platform(storage),
      gateway: engine.gatewayUrl,
      siteId,
      accessKey: key,
      flushMs: 0,
    });
    await second.start();
    second.stop();
    expect(second.cookie().endsWith(identity!)).toBe(true);
  });

  it('gets no token with a wrong Access Key, and the requests still go through without one', async () => {
    const before = (await messaging()).length;
    const rampart = createRampart({
      platform: platform(),
      gateway: engine.gatewayUrl,
      siteId,
      accessKey: 'wrong',
      flushMs: 0,
    });
    try {
      expect(await rampart.start()).toBe(false);
      expect(rampart.cookie()).toBe('');
      expect(await call(rampart, { url: `${appUrl}/api/items` })).toMatchObject({ statusCode: 200 });
      expect(seen.at(-1)!.cookie).toBeUndefined();
      await rampart.flush();
      expect((await messaging()).length).toBe(before);
    } finally {
      rampart.stop();
    }
  });

  it('notes a request that fails (application down) with status 0 and the error', async () => {
    const rampart = createRampart({
      platform: platform(),
      gateway: engine.gatewayUrl,
      siteId,
      accessKey: key,
      flushMs: 0,
    });
    try {
      await rampart.start();
      await expect(call(rampart, { url: 'http://127.0.0.1:9/api/down' })).rejects.toThrow(/request:fail/);
      await rampart.flush();
      expect((await messaging()).at(-1)).toMatchObject({ request: 'GET /api/down HTTP/1.1', status: 0 });
      expect(String((await messaging()).at(-1)!.error)).toContain('request:fail');
    } finally {
      rampart.stop();
    }
  });

  it('is downloaded from the site as one CommonJS file with config.js, and the shipped file works', async () => {
    const res = await fetch(`${engine.url}/api/v1/sites/${siteId}/mini-program-sdk`, {
      headers: { cookie: admin.cookie ?? '' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/gzip');
    const dir = await mkdtemp(join(tmpdir(), 'rampart-mp-'));
    try {
      await writeFile(join(dir, 'sdk.tar.gz'), Buffer.from(await res.arrayBuffer()));
      execFileSync('tar', ['-xzf', 'sdk.tar.gz'], { cwd: dir });
      const folder = join(dir, `rampart-mini-program-${siteId}`);
      // CommonJS, as the mini-program's build takes it (the folder has no package.json saying otherwise).
      const load = createRequire(join(folder, 'app.js'));
      const config = load('./config.js') as {
        gateway: string;
        siteId: string;
        accessKey: string;
      };
      expect(config).toEqual({ gateway: engine.gatewayUrl, siteId, accessKey: key });
      expect(await readFile(join(folder, 'README.md'), 'utf8')).toContain('createRampart({ platform: wx');
      const sdk = load('./rampart-mini-program.js') as {
        createRampart: typeof createRampart;
      };
      const rampart = sdk.createRampart({ platform: platform(), ...config, flushMs: 0 });
      try {
        expect(await rampart.start()).toBe(true);
        await call(rampart, { url: `${appUrl}/api/shipped` });
        expect(seen.at(-1)!.cookie).toBe(rampart.cookie());
        await rampart.flush();
        expect((await messaging()).at(-1)).toMatchObject({
          request: 'GET /api/shipped HTTP/1.1',
          guard_status: 'PASS',
        });
      } finally {
        rampart.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is not offered for a site without mini-program protection', async () => {
    const made = await admin.request<{ id: string }>('POST', '/sites', {
      name: 'web only',
      domain: 'web.test',
      runMode: 'monitor',
      accessMethod: 'bypass',
    });
    expect(made.status, made.text).toBe(201);
    const res = await admin.request('GET', `/sites/${made.body.id}/mini-program-sdk`);
    expect(res.status).toBe(400);
    expect(res.text).toContain('turn on mini-program protection');
  });

  describe('bad input to the report endpoint', () => {
    const post = (body: unknown, accessKey = key) =>
      fetch(`${engine.gatewayUrl}/_rampart/mp/report`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-rampart-site': siteId, 'x-rampart-key': accessKey },
        body: JSON.stringify(body),
      });

    it.each([
      ['an unknown event', { v: 1, event: 'crash' }, 'event'],
      ['a version it does not speak', { v: 2, event: 'launch' }, 'v'],
      [
        'a request without a status',
        { v: 1, event: 'requests', requests: [{ method: 'GET', url: 'http://a/' }] },
        'requests',
      ],
      [
        'more requests than one report may carry',
        {
          v: 1,
          event: 'requests',
          requests: Array.from({ length: 51 }, () => ({ method: 'GET', url: 'http://a/', status: 200, durationMs: 1 })),
        },
        'requests',
      ],
      ['an oversized device field', { v: 1, event: 'launch', device: { model: 'x'.repeat(257) } }, 'device'],
    ])('refuses %s with 400 naming the field, and writes nothing', async (_, body, field) => {
      const before = (await messaging()).length;
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain(field);
      expect((await messaging()).length).toBe(before);
    });

    it('refuses a wrong Access Key', async () => {
      const res = await post({ v: 1, event: 'launch' }, 'nope');
      expect(res.status).toBeGreaterThanOrEqual(401);
      expect(res.status).toBeLessThan(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ACCESS_KEY_INVALID');
    });
  });
});
