/**
 * The Access Key lets gateways ask for verdicts: only administrators read it in clear or rotate it
 * (rotating cuts every gateway off); users, who manage sites, see only that a key is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

const PASSWORD = 'Kettle#Blue7';
type Role = 'administrator' | 'user' | 'guest';

interface GlobalView {
  accessKey?: string;
  accessKeySet: boolean;
  accessKeyMasked: string;
  tokenCookieName: string;
}

let engine: TestEngine;
const clients = {} as Record<Role, ApiClient>;

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' });
  const admin = new ApiClient(engine.url);
  expect((await admin.setup('administrator@example.com', PASSWORD)).status).toBe(201);
  clients.administrator = admin;
  for (const role of ['user', 'guest'] as const) {
    const created = await admin.request<{ delivery: { link: string } }>('POST', '/accounts', {
      email: `${role}@example.com`,
      role,
    });
    expect(created.status).toBe(201);
    const token = new URL(created.body.delivery.link).searchParams.get('token');
    expect(
      (await new ApiClient(engine.url).request('POST', '/links/complete', { token, password: PASSWORD })).status,
    ).toBe(204);
    const client = new ApiClient(engine.url);
    expect((await client.signIn(`${role}@example.com`, PASSWORD)).status).toBe(200);
    clients[role] = client;
  }
});

afterAll(async () => {
  await engine?.dispose();
});

async function currentKey(): Promise<string> {
  const res = await clients.administrator.request<{ accessKey: string }>('GET', '/site-global/access-key');
  expect(res.status).toBe(200);
  return res.body.accessKey;
}

describe('reading the Access Key', () => {
  it('an administrator reads it in clear, never cached', async () => {
    const res = await clients.administrator.request<{ accessKey: string }>('GET', '/site-global/access-key');
    expect(res.status).toBe(200);
    expect(res.body.accessKey).toMatch(/^[\w-]{43}$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it.each(['user', 'guest'] as const)('a %s may not read it', async (role) => {
    const res = await clients[role].request('GET', '/site-global/access-key');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: 'FORBIDDEN_ROLE' } });
    expect(res.text).not.toContain(await currentKey());
  });

  it('a user sees the global configuration and that a key is set, but not the key', async () => {
    const key = await currentKey();
    const res = await clients.user.request<GlobalView>('GET', '/site-global');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accessKeySet: true, accessKeyMasked: '••••••••' + key.slice(-4) });
    expect(res.body).not.toHaveProperty('accessKey');
    expect(res.text).not.toContain(key.slice(0, -4));
  });

  it('a user saving the global configuration gets no key back either', async () => {
    const key = await currentKey();
    const res = await clients.user.request<GlobalView>('PUT', '/site-global', {
      tokenCookieName: 'shop_token',
      identityCookieName: 'shop_id',
      tokenExpirySeconds: 120,
      ipLock: false,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tokenCookieName: 'shop_token', accessKeySet: true });
    expect(res.text).not.toContain(key.slice(0, -4));
  });
});

describe('rotating the Access Key', () => {
  it.each(['user', 'guest'] as const)('a %s may not rotate it, and the key stays', async (role) => {
    const before = await currentKey();
    const res = await clients[role].request('POST', '/site-global/access-key');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: 'FORBIDDEN_ROLE' } });
    expect(await currentKey()).toBe(before);
  });

  it('an administrator rotates it and gets the new key, never cached', async () => {
    const before = await currentKey();
    const res = await clients.administrator.request<GlobalView>('POST', '/site-global/access-key');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const after = await currentKey();
    expect(after).not.toBe(before);
    expect(res.body).toMatchObject({
      accessKey: after,
      accessKeySet: true,
      accessKeyMasked: '••••••••' + after.slice(-4),
    });
  });
});
