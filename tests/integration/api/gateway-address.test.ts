/**
 * The address plugin bundles give gateways is a console setting: worked out from where the gateway
 * port listens until an administrator sets one, written into every bundle downloaded afterwards, and
 * checked by a connection test that also reports the site's last heartbeat.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

const PASSWORD = 'Kettle#Blue7';

interface AddressView {
  address: string;
  source: string;
  automatic: string;
  listening: string;
}

interface ConnectionTest {
  address: string;
  reachable: boolean;
  problem: string | null;
  heartbeat: { connected: boolean; from: string | null; keeperVersion: string | null };
}

let engine: TestEngine;
let admin: ApiClient;
let user: ApiClient;
let siteId: string;
let gatewayPort: string;

/** This engine's gateway log port (test engines each have their own). */
let LOG_PORT = 0;

beforeAll(async () => {
  LOG_PORT = await freePort();
  engine = await startTestEngine({ RAMPART_EDITION: 'B', RAMPART_GATEWAY_LOG_PORT: String(LOG_PORT) });
  gatewayPort = new URL(engine.gatewayUrl).port;
  admin = new ApiClient(engine.url);
  expect((await admin.setup('administrator@example.com', PASSWORD)).status).toBe(201);
  const created = await admin.request<{ delivery: { link: string } }>('POST', '/accounts', {
    email: 'user@example.com',
    role: 'user',
  });
  const token = new URL(created.body.delivery.link).searchParams.get('token');
  expect(
    (await new ApiClient(engine.url).request('POST', '/links/complete', { token, password: PASSWORD })).status,
  ).toBe(204);
  user = new ApiClient(engine.url);
  expect((await user.signIn('user@example.com', PASSWORD)).status).toBe(200);
  const site = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'Shop',
    domain: 'shop.example.com',
    accessMethod: 'plugin',
  });
  expect(site.status).toBe(201);
  siteId = site.body.id;
});

afterAll(async () => {
  await engine?.dispose();
});

async function bundleFile(name: string): Promise<string> {
  const response = await fetch(`${engine.url}/api/v1/sites/${siteId}/plugin`, {
    headers: { cookie: admin.cookie ?? '' },
  });
  expect(response.status).toBe(200);
  const dir = await mkdtemp(join(tmpdir(), 'rampart-bundle-'));
  try {
    await writeFile(join(dir, 'b.tar.gz'), Buffer.from(await response.arrayBuffer()));
    execFileSync('tar', ['xzf', join(dir, 'b.tar.gz'), '-C', dir]);
    return await readFile(join(dir, `rampart-nginx-${siteId}`, name), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the gateway address', () => {
  it('is worked out from a loopback listener until someone sets it', async () => {
    const res = await admin.request<AddressView>('GET', '/gateway-address');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      address: `127.0.0.1:${gatewayPort}`,
      source: 'detected',
      automatic: `127.0.0.1:${gatewayPort}`,
      listening: `127.0.0.1:${gatewayPort}`,
      logPort: LOG_PORT,
    });
  });

  it('an administrator sets it, and bundles downloaded afterwards point gateways there', async () => {
    const res = await admin.request<AddressView>('PUT', '/gateway-address', { address: '192.0.2.10:9081' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ address: '192.0.2.10:9081', source: 'console' });
    expect(await bundleFile('rampart-upstream.conf')).toContain('server 192.0.2.10:9081;');
    // nginx's access-log lines go to the same host, on the engine's gateway log port.
    expect(await bundleFile('rampart-site.conf')).toContain(`syslog:server=192.0.2.10:${LOG_PORT},`);
    expect(JSON.parse(await bundleFile('config.json'))).toMatchObject({ engine: { address: '192.0.2.10:9081' } });
  });

  it('a user sees the address but may not change it', async () => {
    expect((await user.request<AddressView>('GET', '/gateway-address')).body.address).toBe('192.0.2.10:9081');
    expect((await user.request('PUT', '/gateway-address', { address: '198.51.100.1:9081' })).status).toBe(403);
  });

  it.each(['192.0.2.10', 'rampart lan:9081', '192.0.2.10:70000', '[2001:db8::zz]:9081', 'x\n:9081'])(
    'refuses %j with a message naming the field',
    async (address) => {
      const res = await admin.request<{ error: { field: string; code: string } }>('PUT', '/gateway-address', {
        address,
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'address' });
    },
  );

  it('an empty address goes back to the automatic one', async () => {
    const res = await admin.request<AddressView>('PUT', '/gateway-address', { address: '' });
    expect(res.body).toMatchObject({ address: `127.0.0.1:${gatewayPort}`, source: 'detected' });
  });
});

describe('the connection test', () => {
  it('reaches the gateway API at the automatic address; no heartbeat yet', async () => {
    const res = await admin.request<ConnectionTest>('POST', `/sites/${siteId}/connection-test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ address: `127.0.0.1:${gatewayPort}`, reachable: true, problem: null });
    expect(res.body.heartbeat).toMatchObject({ connected: false, from: null });
  });

  it('reports the heartbeat of a gateway that sent one, with its address and keeper version', async () => {
    const key = (await admin.request<{ accessKey: string }>('GET', '/site-global/access-key')).body.accessKey;
    const beat = await fetch(`${engine.gatewayUrl}/_rampart/heartbeat`, {
      method: 'POST',
      headers: { 'x-rampart-site': siteId, 'x-rampart-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ version: '0.1.0' }),
    });
    expect(beat.status).toBe(204);
    const res = await user.request<ConnectionTest>('POST', `/sites/${siteId}/connection-test`);
    expect(res.body.heartbeat).toMatchObject({ connected: true, from: '127.0.0.1', keeperVersion: '0.1.0' });
  });

  it('says the address is refused when nothing listens there', async () => {
    await admin.request('PUT', '/gateway-address', { address: '127.0.0.1:1' });
    const res = await admin.request<ConnectionTest>('POST', `/sites/${siteId}/connection-test`);
    expect(res.body).toMatchObject({ address: '127.0.0.1:1', reachable: false, problem: 'refused' });
    await admin.request('PUT', '/gateway-address', { address: '' });
  });
});
