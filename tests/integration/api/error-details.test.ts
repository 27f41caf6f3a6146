import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

// A refused input says, per field, zod's issue code and its bounds, so that the console can say it
// in the reader's language; the console API and the gateway API answer with the same body.

const PASSWORD = 'Kettle#Blue7';
let engine: TestEngine;
let admin: ApiClient;
let siteId = '';
let accessKey = '';

interface Problem {
  field: string;
  message: string;
  params?: Record<string, unknown>;
}
interface ErrorBody {
  error: { code: string; message: string; field?: string; params?: Record<string, unknown>; problems?: Problem[] };
}

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' });
  admin = new ApiClient(engine.url);
  expect((await admin.setup('root@example.com', PASSWORD)).status).toBe(201);
  const site = await admin.request<{ id: string }>('POST', '/sites', { name: 'Shop', domain: 'shop.example.com' });
  expect(site.status, site.text).toBe(201);
  siteId = site.body.id;
  accessKey = (await admin.request<{ accessKey: string }>('GET', '/site-global/access-key')).body.accessKey;
});
afterAll(() => engine?.dispose());

describe('a refused console API input', () => {
  it('carries the issue code and maximum of a too-long field', async () => {
    const res = await admin.request<ErrorBody>('POST', '/accounts', { email: `${'a'.repeat(250)}@example.com` });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'email',
      params: { code: 'too_big', maximum: 254, origin: 'string' },
    });
  });

  it('carries the format an address failed', async () => {
    const res = await admin.request<ErrorBody>('POST', '/accounts', { email: 'not-an-address', role: 'user' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ field: 'email', params: { code: 'invalid_format', format: 'email' } });
  });

  it('carries the names of unknown fields', async () => {
    const res = await admin.request<ErrorBody>('POST', '/accounts', {
      email: 'a@example.com',
      role: 'user',
      colour: 'red',
    });
    expect(res.body.error).toMatchObject({
      field: 'colour',
      params: { code: 'unrecognized_keys', keys: 'colour' },
    });
  });

  it('gives every bad field its own code and bounds', async () => {
    const res = await admin.request<ErrorBody>('POST', '/sites', { name: '', tokenExpirySeconds: 5 });
    expect(res.status).toBe(400);
    expect(res.body.error.params).toMatchObject({ code: 'too_small', minimum: 1 });
    expect(res.body.error.problems).toMatchObject([
      { field: 'name', params: { code: 'too_small', minimum: 1 } },
      { field: 'tokenExpirySeconds', params: { code: 'too_small', minimum: 10, origin: 'number' } },
    ]);
  });

  it('carries the allowed values of an enumeration', async () => {
    const res = await admin.request<ErrorBody>('POST', '/accounts', { email: 'b@example.com', role: 'owner' });
    expect(res.body.error).toMatchObject({
      field: 'role',
      params: { code: 'invalid_value', values: 'administrator, user, guest' },
    });
  });
});

describe('a refused plug-in-less check (gateway API)', () => {
  const check = (body: unknown): Promise<Response> =>
    fetch(`${engine.gatewayUrl}/_rampart/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-rampart-site': siteId, 'x-rampart-key': accessKey },
      body: JSON.stringify(body),
    });

  it('answers 400 with the console API error body, naming each field with its code and bounds', async () => {
    const res = await check({ uri: '/'.repeat(8193), remoteAddr: 'somewhere' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'uri',
      params: { code: 'too_big', maximum: 8192 },
    });
    expect(body.error.problems).toMatchObject([
      { field: 'uri', params: { code: 'too_big', maximum: 8192 } },
      { field: 'remoteAddr', params: { code: 'custom', format: 'ip' } },
    ]);
    expect(body.error.problems?.[1]?.params).toEqual({ code: 'custom', format: 'ip' });
  });

  it('names the header whose value is not a string', async () => {
    const res = await check({ uri: '/', remoteAddr: '203.0.113.5', headers: { 'User-Agent': 7 } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error).toMatchObject({
      field: 'headers.User-Agent',
      params: { code: 'invalid_type', expected: 'string' },
    });
  });

  it('refuses a body that is not an object, naming the body', async () => {
    const res = await check(['GET', '/']);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error).toMatchObject({
      field: 'body',
      params: { code: 'invalid_type', expected: 'object' },
    });
  });

  it('still answers a good check with its verdict', async () => {
    const res = await check({
      method: 'GET',
      uri: '/',
      remoteAddr: '203.0.113.5',
      headers: { Host: 'shop.example.com' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ action: 'pass', src_ip: '203.0.113.5' });
  });
});
