import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient, type ApiResponse } from '../../support/api-client.ts';

const PASSWORD = 'Kettle#Blue7';
let engine: TestEngine;
let admin: ApiClient;

beforeAll(async () => {
  engine = await startTestEngine();
  admin = new ApiClient(engine.url);
  expect((await admin.setup('root@example.com', PASSWORD)).status).toBe(201);
});
afterAll(() => engine?.dispose());

type ErrorBody = { error: { code: string; message: string; field?: string } };

function expectError(res: ApiResponse<unknown>, status: number, code: string, field?: string): void {
  expect(res.status, res.text).toBe(status);
  const body = res.body as ErrorBody;
  expect(body.error.code).toBe(code);
  if (field !== undefined) {
    expect(body.error.field).toBe(field);
    expect(body.error.message).toContain(field);
  }
  expect(res.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

describe('bad input', () => {
  it('malformed JSON is a 400 naming the body', async () => {
    expectError(
      await admin.request('POST', '/accounts', undefined, { rawBody: '{"email": "a@b.c",' }),
      400,
      'INVALID_JSON',
      'body',
    );
  });

  it('unknown fields are refused by name', async () => {
    expectError(
      await admin.request('POST', '/accounts', { email: 'a@example.com', role: 'user', admin: true }),
      400,
      'VALIDATION_FAILED',
      'admin',
    );
  });

  it('wrong types are refused by field', async () => {
    expectError(
      await admin.request('POST', '/accounts', { email: 42, role: 'user' }),
      400,
      'VALIDATION_FAILED',
      'email',
    );
    expectError(
      await admin.request('POST', '/accounts', { email: 'a@example.com', role: 'root' }),
      400,
      'VALIDATION_FAILED',
      'role',
    );
    expectError(await admin.request('POST', '/accounts', ['a']), 400, 'VALIDATION_FAILED');
  });

  it('invalid and over-long e-mail addresses are refused', async () => {
    expectError(
      await admin.request('POST', '/accounts', { email: 'not-an-address', role: 'user' }),
      400,
      'VALIDATION_FAILED',
      'email',
    );
    const long = `${'a'.repeat(250)}@example.com`;
    const res = await admin.request('POST', '/accounts', { email: long, role: 'user' });
    expectError(res, 400, 'VALIDATION_FAILED', 'email');
    expect((res.body as ErrorBody).error.message).toContain('254');
  });

  it('over-long strings elsewhere are refused with the limit', async () => {
    expectError(
      await admin.request('POST', '/session', { email: 'root@example.com', password: 'x'.repeat(129) }),
      400,
      'VALIDATION_FAILED',
      'password',
    );
    expectError(
      await admin.request('POST', '/links/inspect', { token: 't'.repeat(129) }),
      400,
      'VALIDATION_FAILED',
      'token',
    );
    expectError(
      await admin.request('POST', '/licence', { content: 'x'.repeat(70_000) }),
      400,
      'VALIDATION_FAILED',
      'content',
    );
  });

  it('a body over 1 MiB is a 413', async () => {
    expectError(await admin.request('POST', '/licence', { content: 'x'.repeat(1_100_000) }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('a wrong content type is refused', async () => {
    const res = await admin.request('POST', '/accounts', undefined, {
      rawBody: 'email=a',
      contentType: 'application/x-www-form-urlencoded',
    });
    expectError(res, 415, 'VALIDATION_FAILED', 'body');
  });

  it('bad query parameters are refused by name', async () => {
    expectError(await admin.request('GET', '/accounts?enabled=maybe'), 400, 'VALIDATION_FAILED', 'enabled');
    expectError(await admin.request('GET', '/accounts?limit=0'), 400, 'VALIDATION_FAILED', 'limit');
    expectError(await admin.request('GET', '/accounts?cursor=%21%21'), 400, 'VALIDATION_FAILED', 'cursor');
    expectError(await admin.request('GET', '/accounts?colour=red'), 400, 'VALIDATION_FAILED', 'colour');
  });

  it('unknown routes and unknown accounts are 404', async () => {
    expectError(await admin.request('GET', '/no/such/route'), 404, 'ROUTE_NOT_FOUND');
    expectError(await admin.request('POST', '/accounts/acc_missing/disable', {}), 404, 'NOT_FOUND');
  });

  it('a weak password at setup or activation names the rule', async () => {
    expectError(
      await admin.request('PUT', '/me/password', { currentPassword: PASSWORD, newPassword: 'Password1' }),
      400,
      'PASSWORD_COMMON',
      'newPassword',
    );
    expectError(
      await admin.request('PUT', '/me/password', { currentPassword: PASSWORD, newPassword: 'short' }),
      400,
      'PASSWORD_LENGTH',
      'newPassword',
    );
  });

  it('rate limits answer 429 with Retry-After', async () => {
    const client = new ApiClient(engine.url);
    for (let i = 0; i < 5; i++)
      await client.request('POST', '/session', { email: 'victim@example.com', password: 'Wrong#Pass1' });
    const res = await client.request('POST', '/session', { email: 'victim@example.com', password: 'Wrong#Pass1' });
    expectError(res, 429, 'RATE_LIMITED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('setup cannot be repeated once an account exists', async () => {
    expectError(
      await new ApiClient(engine.url).request('POST', '/setup', { email: 'evil@example.com', password: PASSWORD }),
      409,
      'SETUP_ALREADY_DONE',
    );
  });

  it('the engine keeps serving after all of that', async () => {
    expect((await admin.request('GET', '/health')).status).toBe(200);
  });
});

describe('API documents itself', () => {
  it('serves an OpenAPI document whose every operation has an operationId', async () => {
    const res = await admin.request<{
      openapi: string;
      paths: Record<string, Record<string, { operationId?: string }>>;
    }>('GET', '/openapi.json');
    expect(res.body.openapi).toBe('3.0.3');
    const ops = Object.values(res.body.paths).flatMap((m) => Object.values(m));
    expect(ops.length).toBeGreaterThan(20);
    for (const op of ops) expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
    expect(new Set(ops.map((o) => o.operationId)).size).toBe(ops.length);
  });

  it('reports health without sign-in', async () => {
    const res = await new ApiClient(engine.url).request('GET', '/health');
    expect(res.body).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/) as unknown });
  });
});
