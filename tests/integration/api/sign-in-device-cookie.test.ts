/**
 * Sign-in lockout and device cookies over HTTP: failed guesses from unknown browsers lock unknown
 * browsers out of the account, while the browser that signed in before (it holds the device
 * cookie) still signs in with the right password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

const EMAIL = 'admin@example.com';
const PASSWORD = 'Kettle#Blue7';

let engine: TestEngine;
let setCookie: string;

beforeAll(async () => {
  engine = await startTestEngine();
  const res = await fetch(`${engine.url}/api/v1/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  expect(res.status).toBe(201);
  setCookie = res.headers.getSetCookie().find((c) => c.startsWith('rampart_device=')) ?? '';
});

afterAll(async () => {
  await engine?.dispose();
});

function withCookie(cookie?: string): ApiClient {
  const client = new ApiClient(engine.url);
  client.cookie = cookie;
  return client;
}

describe('device cookie', () => {
  it('is set at sign-in: HttpOnly, SameSite=Strict, long-lived, sent only to the sign-in route', () => {
    expect(setCookie).toMatch(/^rampart_device=[^;]+;/);
    expect(setCookie).toMatch(/; HttpOnly/i);
    expect(setCookie).toMatch(/; SameSite=Strict/i);
    expect(setCookie).toMatch(/; Path=\/api\/v1\/session(;|$)/);
    expect(setCookie).toMatch(/; Max-Age=31536000(;|$)/);
  });

  it("lets the browser that signed in before in while someone else's guesses lock unknown browsers out", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await withCookie().signIn(EMAIL, 'Wrong#Pass1');
      expect(res.status).toBe(401);
    }
    const unknown = await withCookie().signIn(EMAIL, PASSWORD);
    expect(unknown.status).toBe(429);
    expect(unknown.body).toMatchObject({ error: { code: 'RATE_LIMITED', params: { reason: 'signInAccount' } } });

    const known = withCookie(setCookie.split(';')[0]);
    const res = await known.signIn(EMAIL, PASSWORD);
    expect(res.status).toBe(200);
    expect((await known.request('GET', '/session')).status).toBe(200);
  });
});
