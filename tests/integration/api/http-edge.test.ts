import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

const PASSWORD = 'Kettle#Blue7';
let engine: TestEngine;
let admin: ApiClient;
let rendererDir: string;

beforeAll(async () => {
  // A stand-in for the built console: what Vite emits is an index.html, module scripts and styles.
  rendererDir = await mkdtemp(join(tmpdir(), 'rampart-renderer-'));
  await mkdir(join(rendererDir, 'assets'));
  await writeFile(
    join(rendererDir, 'index.html'),
    '<!doctype html><script type="module" src="/assets/app.js"></script>',
  );
  await writeFile(join(rendererDir, 'assets', 'app.js'), 'export {};');
  engine = await startTestEngine({}, { rendererDir });
  admin = new ApiClient(engine.url);
  expect((await admin.setup('root@example.com', PASSWORD)).status).toBe(201);
});
afterAll(async () => {
  await engine?.dispose();
  await rm(rendererDir, { recursive: true, force: true });
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request whose path goes on the wire exactly as written (fetch would normalise it). */
function raw(method: string, path: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(engine.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

function expectErrorShape(answer: RawAnswer, status: number, field?: string): void {
  expect(answer.status, answer.text).toBe(status);
  const body = JSON.parse(answer.text) as { error: { code: string; message: string; field?: string } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(typeof body.error.code).toBe('string');
  expect(typeof body.error.message).toBe('string');
  if (field) expect(body.error.field).toBe(field);
  expect(answer.text).not.toContain('<script>');
}

function expectSecurityHeaders(headers: RawAnswer['headers']): void {
  expect(headers['content-security-policy']).toContain("script-src 'self'");
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['referrer-policy']).toBe('no-referrer');
}

describe('console pages', () => {
  it('carry a Content-Security-Policy that allows only same-origin scripts', async () => {
    for (const path of ['/', '/config/sites', '/assets/app.js']) {
      const answer = await raw('GET', path);
      expect(answer.status).toBe(200);
      expectSecurityHeaders(answer.headers);
      const csp = String(answer.headers['content-security-policy']);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
    }
  });
});

describe('answers that carry secrets', () => {
  it('are not stored by caches: session view, site-global, activation links', async () => {
    const session = await admin.request('GET', '/session');
    expect(session.body.csrfToken).toBeTruthy();
    expect(session.headers.get('cache-control')).toBe('no-store');
    const signIn = await new ApiClient(engine.url).signIn('root@example.com', PASSWORD);
    expect(signIn.headers.get('cache-control')).toBe('no-store');
    const global = await admin.request('GET', '/site-global');
    expect(global.status).toBe(200);
    expect(global.headers.get('cache-control')).toBe('no-store');
    const created = await admin.request('POST', '/accounts', { email: 'cache@example.com', role: 'user' });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
  });
});

describe("the HTTP layer's own refusals", () => {
  it('a path that does not percent-decode is a 400 in the error shape, with the security headers', async () => {
    const answer = await raw('GET', '/api/v1/%zz<script>');
    expectErrorShape(answer, 400, 'path');
    expectSecurityHeaders(answer.headers);
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('a path parameter over 200 characters is a 414 in the error shape, with the security headers', async () => {
    const answer = await raw('GET', `/api/v1/sites/${'a'.repeat(201)}`);
    expectErrorShape(answer, 414, 'path');
    expectSecurityHeaders(answer.headers);
  });

  it('a request the HTTP parser refuses is answered in the error shape and the connection closed', async () => {
    const { hostname, port } = new URL(engine.url);
    const text = await new Promise<string>((resolve, reject) => {
      let received = '';
      const socket = connect(Number(port), hostname, () =>
        socket.write('GET / HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n'),
      );
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
    const [head = '', payload = ''] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head.toLowerCase()).toContain('connection: close');
    expect(head).toContain('Content-Security-Policy:');
    expect((JSON.parse(payload) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
  });
});

describe('methods', () => {
  it('an undeclared method on a known path is a 405 with Allow', async () => {
    const health = await raw('DELETE', '/api/v1/health');
    expectErrorShape(health, 405);
    expect(health.headers.allow).toBe('GET, HEAD');
    expectSecurityHeaders(health.headers);
    const site = await raw('PATCH', '/api/v1/sites/site_x');
    expectErrorShape(site, 405);
    expect(site.headers.allow).toBe('DELETE, GET, HEAD, PUT');
  });

  it('a method Fastify checks before routing (QUERY without a Content-Type) on a known path is a 405 too', async () => {
    const query = await raw('QUERY', '/api/v1/health');
    expectErrorShape(query, 405);
    expect(query.headers.allow).toBe('GET, HEAD');
  });

  it('an unknown path stays a 404', async () => {
    expectErrorShape(await raw('DELETE', '/api/v1/no/such/thing'), 404);
  });
});

describe('JSON bodies', () => {
  it('a repeated key is refused, so one body cannot say two roles', async () => {
    const res = await admin.request('POST', '/accounts', undefined, {
      rawBody: '{"email":"twice@example.com","role":"guest","role":"administrator"}',
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'INVALID_JSON', field: 'role' } });
    const list = await admin.request<{ items: { email: string }[] }>('GET', '/accounts');
    expect(list.body.items.map((a) => a.email)).not.toContain('twice@example.com');
  });

  it('a repeated key deep inside a body is refused by its path', async () => {
    const res = await admin.request('PUT', '/site-global', undefined, { rawBody: '{"a":{"b":1,"b":2}}' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'INVALID_JSON', field: 'a.b' } });
  });
});
