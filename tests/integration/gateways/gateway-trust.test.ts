import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

// The unauthenticated /_rampart/ routes believe a gateway's word on the client (address, scheme,
// host) only from configured gateways (here 127.0.0.2) and gateways that sent a heartbeat.

let engine: TestEngine;
let siteId: string;
let key: string;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(
  method: string,
  path: string,
  options: { from?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const url = new URL(path, engine.gatewayUrl);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress: options.from ?? '127.0.0.1',
        agent: false,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
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

const HUMAN = { v: 1, mode: 'reload', event: 'load', signs: [], fp: 'abcdef0123456789' };
const CLAIMS = { 'x-rampart-remote-addr': '203.0.113.5', 'x-rampart-scheme': 'https', host: 'shop.example.com' };

async function lastDetection(): Promise<Record<string, unknown> | undefined> {
  await engine.logStore.flush();
  return (await engine.logStore.read(`detection:${siteId}`, { from: 0, to: Number.MAX_SAFE_INTEGER })).at(-1);
}

const report = (from: string): Promise<Answer> =>
  call('POST', '/_rampart/report', { from, headers: { 'x-rampart-site': siteId, ...CLAIMS }, body: HUMAN });

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B', RAMPART_GATEWAY_TRUSTED: '127.0.0.2' });
  const admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  const site = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'trust',
    domain: 'shop.example.com',
    runMode: 'block',
    accessMethod: 'plugin',
  });
  siteId = site.body.id;
  key = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
});

afterAll(() => engine?.dispose());

describe("a gateway's word on the client", () => {
  it('is believed from a configured gateway address', async () => {
    const res = await report('127.0.0.2');
    expect(res.status).toBe(200);
    expect(await lastDetection()).toMatchObject({ src_ip: '203.0.113.5', hostname: 'shop.example.com' });
    expect(String(res.headers['set-cookie'])).toContain('Secure');
  });

  it('is the last X-Forwarded-For entry from a gateway that cannot send X-Rampart-Remote-Addr (Traefik), and only from a gateway', async () => {
    const forwarded = {
      'x-rampart-site': siteId,
      'x-forwarded-for': '198.51.100.1, 203.0.113.9',
      host: 'shop.example.com',
    };
    expect(
      (await call('POST', '/_rampart/report', { from: '127.0.0.2', headers: forwarded, body: HUMAN })).status,
    ).toBe(200);
    expect(await lastDetection()).toMatchObject({ src_ip: '203.0.113.9' });
    expect(
      (await call('POST', '/_rampart/report', { from: '127.0.0.1', headers: forwarded, body: HUMAN })).status,
    ).toBe(200);
    expect(await lastDetection()).toMatchObject({ src_ip: '127.0.0.1' });
  });

  it('is ignored from another peer: its own address counts, and no https', async () => {
    const res = await report('127.0.0.1');
    expect(res.status).toBe(200);
    expect(await lastDetection()).toMatchObject({ src_ip: '127.0.0.1', hostname: '' });
    expect(String(res.headers['set-cookie'])).not.toContain('Secure');
  });

  it('is believed from a peer that sent a heartbeat with the Access Key', async () => {
    await report('127.0.0.3');
    expect(await lastDetection()).toMatchObject({ src_ip: '127.0.0.3' });
    const beat = await call('POST', '/_rampart/heartbeat', {
      from: '127.0.0.3',
      headers: { 'x-rampart-site': siteId, 'x-rampart-key': key },
      body: { version: '0.1.0' },
    });
    expect(beat.status).toBe(204);
    await report('127.0.0.3');
    expect(await lastDetection()).toMatchObject({ src_ip: '203.0.113.5' });
  });
});

describe('plug-in-less checks', () => {
  it('refuse a remoteAddr that is not an IP address, naming the field', async () => {
    const res = await call('POST', '/_rampart/check', {
      headers: { 'x-rampart-site': siteId, 'x-rampart-key': key },
      body: { method: 'GET', uri: '/', remoteAddr: '203.0.113.5, 10.0.0.1' },
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'remoteAddr' } });
    const ok = await call('POST', '/_rampart/check', {
      headers: { 'x-rampart-site': siteId, 'x-rampart-key': key },
      body: { method: 'GET', uri: '/', remoteAddr: '2001:db8::5' },
    });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ src_ip: '2001:db8::5' });
  });
});

describe('reload and block pages', () => {
  it('carry a Content-Security-Policy that runs scripts from the origin (the probe) and nothing inline', async () => {
    for (const path of ['/_rampart/reload', '/_rampart/block']) {
      const res = await call('GET', path, { headers: { 'x-rampart-site': siteId } });
      const csp = String(res.headers['content-security-policy']);
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(csp, path).toContain("object-src 'none'");
      expect(csp, path).toContain("base-uri 'none'");
    }
    const reload = await call('GET', '/_rampart/reload', { headers: { 'x-rampart-site': siteId } });
    expect(reload.body).toContain('<script src="/_rampart/probe.js?mode=reload"');
  });

  it('allow inline scripts and styles when the administrator switches inline content on', async () => {
    const own = await startTestEngine({ RAMPART_GATEWAY_PAGES_INLINE: 'true' });
    try {
      const admin = new ApiClient(own.url);
      await admin.setup('root@example.com', 'Kettle#Blue7');
      const site = await admin.request<{ id: string }>('POST', '/sites', {
        name: 'inline',
        domain: 'inline.example.com',
        runMode: 'block',
      });
      const res = await fetch(`${own.gatewayUrl}/_rampart/block`, { headers: { 'x-rampart-site': site.body.id } });
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self' 'unsafe-inline'");
    } finally {
      await own.dispose();
    }
  });
});
