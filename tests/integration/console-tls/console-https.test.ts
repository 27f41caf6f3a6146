/**
 * The console over HTTPS (issue 19, item 1): the appliance makes its own CA and a certificate for
 * its names at first start, serves HTTPS and plain HTTP on one port, redirects plain HTTP that is
 * not from this host, marks cookies Secure over TLS, takes an uploaded certificate without a
 * restart, and keeps all of it (keys sealed) across restarts.
 */
import { X509Certificate } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect } from 'node:net';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_FILE_NAME, readConfigDocument } from '#engine/config-store';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { testAuthority, testCertificate } from '../../support/certificates.ts';

const PASSWORD = 'Rampart#2026x';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One HTTPS request that trusts only `ca`. */
function secureRequest(
  url: string,
  ca: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; servername?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      { method: init.method ?? 'GET', headers: init.headers, ca, servername: init.servername, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

function plainRequest(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The certificate a TLS handshake on the console port presents (not verified). */
function presented(port: number): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate());
      socket.end();
    });
    socket.on('error', reject);
  });
}

const portOf = (engine: TestEngine): number => Number(new URL(engine.url).port);

describe('the console over HTTPS', () => {
  let engine: TestEngine;
  let admin: ApiClient;
  let ca: string;

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'B' });
    admin = new ApiClient(engine.url);
    expect((await admin.setup('admin@example.com', PASSWORD)).status).toBe(201);
    const download = await fetch(`${engine.url}/api/v1/system/console-certificate/ca`, {
      headers: { cookie: admin.cookie ?? '' },
    });
    expect(download.status).toBe(200);
    ca = await download.text();
  }, 60_000);

  afterAll(async () => {
    await engine?.dispose();
  });

  it('serves a certificate for its own names, signed by its own CA, on the console port', async () => {
    expect(engine.consoleHttps?.url).toBe(`https://127.0.0.1:${portOf(engine)}`);
    const caCert = new X509Certificate(ca);
    expect(caCert.ca).toBe(true);
    expect(engine.consoleHttps?.caFingerprint256).toBe(caCert.fingerprint256);

    const health = await secureRequest(`${engine.consoleHttps!.url}/api/v1/health`, ca);
    expect(health.status).toBe(200);
    // The same certificate names localhost too.
    const byName = await secureRequest(`https://localhost:${portOf(engine)}/api/v1/health`, ca);
    expect(byName.status).toBe(200);

    const served = new X509Certificate((await presented(portOf(engine))).raw);
    expect(served.verify(caCert.publicKey)).toBe(true);
    expect(served.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(served.checkHost('localhost')).toBe('localhost');

    const status = await admin.request<{
      source: string;
      certificate: { names: string[]; state: string };
      uncoveredNames: string[];
    }>('GET', '/system/console-certificate');
    expect(status.status).toBe(200);
    expect(status.body.source).toBe('generated');
    expect(status.body.certificate.state).toBe('valid');
    expect(status.body.uncoveredNames).toEqual([]);
    expect(status.text).not.toContain('PRIVATE KEY');
  });

  it('still serves plain HTTP to this host on the same port, and marks cookies Secure over TLS only', async () => {
    const plain = await plainRequest(`${engine.url}/api/v1/health`);
    expect(plain.status).toBe(200);

    const body = JSON.stringify({ email: 'admin@example.com', password: PASSWORD });
    const headers = { 'content-type': 'application/json' };
    const overTls = await secureRequest(`${engine.consoleHttps!.url}/api/v1/session`, ca, {
      method: 'POST',
      headers,
      body,
    });
    expect(overTls.status).toBe(200);
    const tlsCookies = [overTls.headers['set-cookie'] ?? []].flat();
    expect(tlsCookies.length).toBeGreaterThan(0);
    expect(tlsCookies.every((c) => /;\s*Secure/i.test(c))).toBe(true);

    const overPlain = await fetch(`${engine.url}/api/v1/session`, { method: 'POST', headers, body });
    expect(overPlain.status).toBe(200);
    expect(overPlain.headers.getSetCookie().some((c) => /;\s*Secure/i.test(c))).toBe(false);
  });

  it('sends HSTS over TLS to a host name, not to an address, localhost or plain HTTP', async () => {
    const byName = await secureRequest(`${engine.consoleHttps!.url}/api/v1/health`, ca, {
      headers: { host: `rampart.example.net:${portOf(engine)}` },
      servername: 'localhost',
    });
    expect(byName.headers['strict-transport-security']).toBe('max-age=15552000');
    const byAddress = await secureRequest(`${engine.consoleHttps!.url}/api/v1/health`, ca);
    expect(byAddress.headers['strict-transport-security']).toBeUndefined();
    const local = await secureRequest(`https://localhost:${portOf(engine)}/api/v1/health`, ca);
    expect(local.headers['strict-transport-security']).toBeUndefined();
    const plain = await plainRequest(`${engine.url}/api/v1/health`, { host: `rampart.example.net:${portOf(engine)}` });
    expect(plain.headers['strict-transport-security']).toBeUndefined();
  });

  it('takes an uploaded certificate without a restart, refuses a bad one by field, and goes back to its own', async () => {
    const authority = testAuthority('Customer CA');
    const uploaded = testCertificate(authority, ['rampart.example.com', 'localhost']);
    const before = (await presented(portOf(engine))).fingerprint256;

    const mismatched = testCertificate(authority, ['rampart.example.com']);
    const refused = await admin.request<{ error: { field: string } }>('PUT', '/system/console-certificate', {
      certificate: uploaded.chain,
      key: mismatched.key,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field).toBe('key');
    expect((await presented(portOf(engine))).fingerprint256).toBe(before);

    const saved = await admin.request<{ source: string; uncoveredNames: string[] }>(
      'PUT',
      '/system/console-certificate',
      { certificate: uploaded.chain, key: uploaded.key },
    );
    expect(saved.status).toBe(200);
    expect(saved.body.source).toBe('uploaded');
    expect(saved.body.uncoveredNames).toContain('127.0.0.1');
    expect((await presented(portOf(engine))).fingerprint256).toBe(new X509Certificate(uploaded.cert).fingerprint256);
    const trusted = await secureRequest(`https://localhost:${portOf(engine)}/api/v1/health`, authority.cert);
    expect(trusted.status).toBe(200);

    const reset = await admin.request<{ source: string }>('DELETE', '/system/console-certificate');
    expect(reset.status).toBe(200);
    expect(reset.body.source).toBe('generated');
    const again = new X509Certificate((await presented(portOf(engine))).raw);
    expect(again.verify(new X509Certificate(ca).publicKey)).toBe(true);
  });

  it('lets a user read the certificate but not change it', async () => {
    const created = await admin.request<{ delivery: { link: string } }>('POST', '/accounts', {
      email: 'user@example.com',
      role: 'user',
    });
    const token = new URL(created.body.delivery.link).searchParams.get('token');
    expect(
      (await new ApiClient(engine.url).request('POST', '/links/complete', { token, password: PASSWORD })).status,
    ).toBe(204);
    const user = new ApiClient(engine.url);
    expect((await user.signIn('user@example.com', PASSWORD)).status).toBe(200);
    expect((await user.request('GET', '/system/console-certificate')).status).toBe(200);
    expect((await user.request('DELETE', '/system/console-certificate')).status).toBe(403);
  });

  it('closes a connection that sends a broken handshake or garbage, and goes on serving', async () => {
    for (const bytes of [
      Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5]),
      Buffer.from('\x00\x01garbage\r\n\r\n'),
    ]) {
      const closed = await new Promise<boolean>((resolve) => {
        const socket = netConnect(portOf(engine), '127.0.0.1', () => socket.write(bytes));
        socket.on('data', () => undefined);
        socket.on('error', () => resolve(true));
        socket.on('close', () => resolve(true));
        setTimeout(() => {
          socket.destroy();
          resolve(false);
        }, 5_000);
      });
      expect(closed).toBe(true);
    }
    expect((await secureRequest(`${engine.consoleHttps!.url}/api/v1/health`, ca)).status).toBe(200);
  });

  it('keeps the keys sealed in the configuration file', async () => {
    const text = await readFile(join(engine.dataDir, CONFIG_FILE_NAME), 'utf8');
    expect(text).not.toContain('PRIVATE KEY');
    const doc = await readConfigDocument(engine.dataDir);
    expect(doc?.consoleTls?.keyPem).toContain('PRIVATE KEY');
    expect(doc?.consoleTls?.ca.keyPem).toContain('PRIVATE KEY');
  });
});

describe('the console certificate across restarts and policies', () => {
  it('keeps its CA and certificate across a restart, and redirects every plain request when told to', async () => {
    const first = await startTestEngine();
    const dataDir = first.dataDir;
    const fingerprint = first.consoleHttps?.caFingerprint256;
    const served = (await presented(portOf(first))).fingerprint256;
    await first.stop();
    const second = await startTestEngine({ RAMPART_CONSOLE_PLAIN_HTTP: 'redirect' }, { dataDir });
    try {
      expect(second.consoleHttps?.caFingerprint256).toBe(fingerprint);
      expect((await presented(portOf(second))).fingerprint256).toBe(served);
      expect(second.consoleUrl.startsWith('https://')).toBe(true);

      const port = portOf(second);
      const redirected = await plainRequest(`http://127.0.0.1:${port}/api/v1/health?x=1`);
      expect(redirected.status).toBe(308);
      expect(redirected.headers.location).toBe(`https://127.0.0.1:${port}/api/v1/health?x=1`);
      const badHost = await plainRequest(`http://127.0.0.1:${port}/`, { host: 'evil.example/"><x' });
      expect(badHost.status).toBe(400);
    } finally {
      await second.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('speaks plain HTTP only with RAMPART_CONSOLE_TLS=off, and makes no certificate', async () => {
    const engine = await startTestEngine({ RAMPART_CONSOLE_TLS: 'off' });
    try {
      expect(engine.consoleHttps).toBeUndefined();
      expect((await plainRequest(`${engine.url}/api/v1/health`)).status).toBe(200);
      const doc = await readConfigDocument(engine.dataDir);
      expect(doc?.consoleTls).toBeNull();
    } finally {
      await engine.dispose();
    }
  });
});
