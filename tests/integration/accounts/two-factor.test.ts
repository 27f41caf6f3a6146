/**
 * Two-factor sign-in over HTTP against a real engine: enrolment, the code step of a sign-in with an
 * authenticator code or a recovery code, replays and wrong codes refused, the administrators'
 * enforcement (System setting) and an administrator's reset of another account's second factor.
 * The engine runs on a manual clock, so the 30-second steps are the test's to turn.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '#engine/accounts';
import { AUDIT_LOG } from '#engine/audit';
import { ManualClock, MINUTE } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { TestSmtpServer } from '../../support/smtp.ts';
import { ApiClient, type ApiResponse } from '../../support/api-client.ts';

const ROOT = 'root@example.com';
const OPS = 'ops@example.com';
const PASSWORD = 'Kettle#Blue7';

interface Challenge {
  secondFactorRequired: true;
  challengeId: string;
  expiresAt: number;
}
interface ErrorAnswer {
  error: { code: string; field?: string; params?: Record<string, unknown> };
}

let engine: TestEngine;
let smtp: TestSmtpServer;
const clock = new ManualClock(Date.parse('2026-11-27T08:00:00Z'));
let root: ApiClient;
let rootSecret = '';
let rootRecoveryCodes: string[] = [];
let opsId = '';
let opsSecret = '';

/** The next 30-second step's code: a code is accepted once, so each use turns the clock on. */
function nextCode(secret: string): string {
  clock.advance(30_000);
  return totpCode(secret, clock.now());
}

async function passwordStep(email: string, client = new ApiClient(engine.url)): Promise<[ApiClient, Challenge]> {
  const res = await client.request<Challenge>('POST', '/session', { email, password: PASSWORD });
  expect(res.status).toBe(200);
  expect(res.body.secondFactorRequired).toBe(true);
  return [client, res.body];
}

async function secondStep(
  client: ApiClient,
  body: Record<string, string>,
): Promise<ApiResponse<ErrorAnswer & { csrfToken: string }>> {
  const res = await client.request<ErrorAnswer & { csrfToken: string }>('POST', '/session/second-factor', body);
  if (res.status === 200) client.csrf = res.body.csrfToken;
  return res;
}

async function enrol(client: ApiClient): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await client.request<{ secret: string; otpauthUri: string }>('POST', '/me/two-factor/enrolment');
  expect(started.status).toBe(200);
  const confirmed = await client.request<{ recoveryCodes: string[] }>('POST', '/me/two-factor/enrolment/confirm', {
    code: nextCode(started.body.secret),
  });
  expect(confirmed.status).toBe(200);
  return { secret: started.body.secret, recoveryCodes: confirmed.body.recoveryCodes };
}

beforeAll(async () => {
  smtp = await new TestSmtpServer().start();
  engine = await startTestEngine(smtp.env(), { clock });
  root = new ApiClient(engine.url);
  expect((await root.setup(ROOT, PASSWORD)).status).toBe(201);
  const created = await root.request<{ account: { id: string } }>('POST', '/accounts', {
    email: OPS,
    role: 'administrator',
  });
  expect(created.status).toBe(201);
  opsId = created.body.account.id;
  const token = new URL(TestSmtpServer.linkIn(await smtp.waitFor(OPS))).searchParams.get('token');
  expect(
    (await new ApiClient(engine.url).request('POST', '/links/complete', { token, password: PASSWORD })).status,
  ).toBe(204);
});

afterAll(async () => {
  await engine?.dispose();
  await smtp?.stop();
});

describe('enrolment', () => {
  it('starts with a secret and an otpauth URI, and stays off until a code confirms it', async () => {
    const started = await root.request<{ secret: string; otpauthUri: string }>('POST', '/me/two-factor/enrolment');
    expect(started.status).toBe(200);
    expect(started.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(started.body.otpauthUri).toBe(
      `otpauth://totp/Rampart:${encodeURIComponent(ROOT)}?secret=${started.body.secret}&issuer=Rampart&algorithm=SHA1&digits=6&period=30`,
    );
    expect((await root.request('GET', '/me/two-factor')).body).toMatchObject({ enabled: false, recoveryCodesLeft: 0 });
    rootSecret = started.body.secret;
  });

  it('refuses a wrong code, naming the field', async () => {
    const res = await root.request<ErrorAnswer>('POST', '/me/two-factor/enrolment/confirm', { code: '000000' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'TWO_FACTOR_CODE_WRONG', field: 'code' });
    const malformed = await root.request<ErrorAnswer>('POST', '/me/two-factor/enrolment/confirm', { code: '12ab' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'code' });
  });

  it('turns on with a current code and answers the ten recovery codes once', async () => {
    const res = await root.request<{ recoveryCodes: string[] }>('POST', '/me/two-factor/enrolment/confirm', {
      code: nextCode(rootSecret),
    });
    expect(res.status).toBe(200);
    expect(res.body.recoveryCodes).toHaveLength(10);
    rootRecoveryCodes = res.body.recoveryCodes;
    expect((await root.request('GET', '/me/two-factor')).body).toEqual({
      enabled: true,
      enabledAt: clock.now(),
      recoveryCodesLeft: 10,
      required: false,
    });
  });

  it('never answers the secret or the recovery codes again, and keeps the secret sealed on disk', async () => {
    for (const path of ['/me', '/me/two-factor', '/accounts', '/session']) {
      const res = await root.request('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toContain(rootSecret);
      for (const code of rootRecoveryCodes) expect(res.text, path).not.toContain(code);
    }
    const list = await root.request<{ items: { email: string; twoFactorEnabled: boolean }[] }>('GET', '/accounts');
    expect(list.body.items.map((a) => [a.email, a.twoFactorEnabled])).toEqual(
      expect.arrayContaining([
        [ROOT, true],
        [OPS, false],
      ]),
    );
    const stored = await readFile(join(engine.dataDir, 'config.json'), 'utf8');
    expect(stored).toContain(ROOT);
    expect(stored).not.toContain(rootSecret);
  });
});

describe('sign-in with two-factor on', () => {
  it('answers the password with a challenge, not a session', async () => {
    const [client, challenge] = await passwordStep(ROOT);
    expect(challenge.expiresAt).toBe(clock.now() + 5 * MINUTE);
    expect(client.cookie).toBeUndefined();
    expect((await client.request('GET', '/session')).status).toBe(401);
  });

  it('signs in with the challenge and a code of the app', async () => {
    const [client, { challengeId }] = await passwordStep(ROOT);
    const res = await secondStep(client, { challengeId, code: nextCode(rootSecret) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ account: { email: ROOT, twoFactorEnabled: true } });
    expect((await client.request('GET', '/me')).status).toBe(200);
  });

  it('refuses a code used before, and a challenge used before', async () => {
    const code = nextCode(rootSecret);
    const [first, used] = await passwordStep(ROOT);
    expect((await secondStep(first, { challengeId: used.challengeId, code })).status).toBe(200);

    const [client, { challengeId }] = await passwordStep(ROOT);
    const replay = await secondStep(client, { challengeId, code });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toMatchObject({ code: 'TWO_FACTOR_CODE_WRONG', field: 'code' });

    const again = await secondStep(new ApiClient(engine.url), {
      challengeId: used.challengeId,
      code: nextCode(rootSecret),
    });
    expect(again.status).toBe(401);
    expect(again.body.error).toMatchObject({ code: 'TWO_FACTOR_CHALLENGE_INVALID', field: 'challengeId' });
  });

  it('refuses a challenge after its 5 minutes', async () => {
    const [client, { challengeId }] = await passwordStep(ROOT);
    clock.advance(5 * MINUTE);
    const res = await secondStep(client, { challengeId, code: nextCode(rootSecret) });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('TWO_FACTOR_CHALLENGE_INVALID');
  });

  it('signs in with a recovery code, once', async () => {
    const code = rootRecoveryCodes[0]!;
    const [client, { challengeId }] = await passwordStep(ROOT);
    expect((await secondStep(client, { challengeId, recoveryCode: code.toUpperCase() })).status).toBe(200);
    expect((await client.request('GET', '/me/two-factor')).body).toMatchObject({ recoveryCodesLeft: 9 });

    const [other, second] = await passwordStep(ROOT);
    const reused = await secondStep(other, { challengeId: second.challengeId, recoveryCode: code });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toMatchObject({ code: 'TWO_FACTOR_CODE_WRONG', field: 'recoveryCode' });
  });

  it('wants exactly one of code and recoveryCode', async () => {
    const [client, { challengeId }] = await passwordStep(ROOT);
    const neither = await secondStep(client, { challengeId });
    expect(neither.status).toBe(400);
    expect(neither.body.error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'code' });
    const both = await secondStep(client, { challengeId, code: '123456', recoveryCode: 'abcd-efgh' });
    expect(both.body.error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'recoveryCode' });
  });

  it('rate-limits wrong codes like passwords: 5 in 15 minutes, then 429 even for the right one', async () => {
    clock.advance(15 * MINUTE); // the wrong codes of the tests before
    const [client, { challengeId }] = await passwordStep(ROOT);
    for (let i = 0; i < 5; i++) {
      const res = await secondStep(client, { challengeId, recoveryCode: 'zzzz-zzzz' });
      expect(res.status).toBe(400);
    }
    const locked = await secondStep(client, { challengeId, code: totpCode(rootSecret, clock.now() + 30_000) });
    expect(locked.status).toBe(429);
    expect(locked.body.error).toMatchObject({ code: 'RATE_LIMITED', params: { reason: 'twoFactor' } });
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    clock.advance(15 * MINUTE);
    const [fresh, next] = await passwordStep(ROOT);
    expect((await secondStep(fresh, { challengeId: next.challengeId, code: nextCode(rootSecret) })).status).toBe(200);
    root = fresh;
  });
});

describe('enforcement for administrators', () => {
  it('holds an administrator without a second factor to enrolment while the setting is on', async () => {
    const policy = await root.request('PUT', '/system/two-factor', { requireTwoFactorForAdmins: true });
    expect(policy.status).toBe(200);

    const ops = new ApiClient(engine.url);
    const signedIn = await ops.signIn(OPS, PASSWORD);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ twoFactorEnrolmentRequired: true });

    for (const path of ['/sites', '/accounts', '/system/two-factor']) {
      const res = await ops.request<ErrorAnswer>('GET', path);
      expect(res.status, path).toBe(403);
      expect(res.body.error.code, path).toBe('TWO_FACTOR_REQUIRED');
    }
    expect((await ops.request('POST', '/accounts', { email: 'x@example.com', role: 'guest' })).status).toBe(403);
    for (const path of ['/session', '/me']) expect((await ops.request('GET', path)).status, path).toBe(200);
    expect((await ops.request('GET', '/me/two-factor')).body).toMatchObject({ enabled: false, required: true });

    opsSecret = (await enrol(ops)).secret;
    expect((await ops.request('GET', '/sites')).status).toBe(200);
    expect((await ops.request('GET', '/session')).body).toMatchObject({ twoFactorEnrolmentRequired: false });
  });
});

describe("an administrator's reset of another account", () => {
  it('turns the second factor off, and the owner is held to enrolment again', async () => {
    expect(opsSecret).not.toBe('');
    const res = await root.request<{ twoFactorEnabled: boolean }>('DELETE', `/accounts/${opsId}/two-factor`);
    expect(res.status).toBe(200);
    expect(res.body.twoFactorEnabled).toBe(false);

    const ops = new ApiClient(engine.url);
    expect((await ops.signIn(OPS, PASSWORD)).body).toMatchObject({ twoFactorEnrolmentRequired: true });
    expect((await ops.request<ErrorAnswer>('GET', '/sites')).body.error.code).toBe('TWO_FACTOR_REQUIRED');
  });

  it("refuses one's own account and an account without a second factor", async () => {
    const me = await root.request<{ id: string }>('GET', '/me');
    const own = await root.request<ErrorAnswer>('DELETE', `/accounts/${me.body.id}/two-factor`);
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe('OWN_ACCOUNT_PROTECTED');
    const off = await root.request<ErrorAnswer>('DELETE', `/accounts/${opsId}/two-factor`);
    expect(off.status).toBe(409);
    expect(off.body.error.code).toBe('TWO_FACTOR_OFF');
  });
});

describe('turning it off and new recovery codes', () => {
  it('gives new recovery codes for a current code; the old ones stop working', async () => {
    const res = await root.request<{ recoveryCodes: string[] }>('POST', '/me/two-factor/recovery-codes', {
      code: nextCode(rootSecret),
    });
    expect(res.status).toBe(200);
    const [client, { challengeId }] = await passwordStep(ROOT);
    expect((await secondStep(client, { challengeId, recoveryCode: rootRecoveryCodes[1]! })).status).toBe(400);
    expect((await secondStep(client, { challengeId, recoveryCode: res.body.recoveryCodes[0]! })).status).toBe(200);
    root = client;
  });

  it('turns off with the current password and a code; sign-in is then the password alone', async () => {
    const policyOff = await root.request('PUT', '/system/two-factor', { requireTwoFactorForAdmins: false });
    expect(policyOff.status).toBe(200);
    const wrong = await root.request<ErrorAnswer>('POST', '/me/two-factor/disable', {
      currentPassword: 'Wrong#Pass1',
      code: nextCode(rootSecret),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'PASSWORD_WRONG', field: 'currentPassword' });
    const res = await root.request('POST', '/me/two-factor/disable', {
      currentPassword: PASSWORD,
      code: nextCode(rootSecret),
    });
    expect(res.status).toBe(204);
    const client = new ApiClient(engine.url);
    const signedIn = await client.signIn(ROOT, PASSWORD);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ account: { twoFactorEnabled: false } });
  });
});

describe('the audit trail', () => {
  it('records each two-factor change and second step, without the secret or the recovery codes', async () => {
    await engine.logStore.flush();
    const records = (await engine.logStore.read(AUDIT_LOG, { from: 0, to: clock.now() + 60_000 })) as unknown as {
      action: string;
      outcome: string;
      resource_id: string;
      account: string;
      error_code?: string;
      after?: { twoFactor?: unknown };
    }[];
    const actions = new Set(records.map((r) => `${r.action} ${r.outcome}`));
    for (const action of [
      'startTwoFactor success',
      'confirmTwoFactor success',
      'confirmTwoFactor failure',
      'signInSecondFactor success',
      'signInSecondFactor failure',
      'regenerateRecoveryCodes success',
      'disableTwoFactor success',
      'resetAccountTwoFactor success',
    ]) {
      expect(actions, action).toContain(action);
    }
    const reset = records.find((r) => r.action === 'resetAccountTwoFactor' && r.outcome === 'success');
    expect(reset).toMatchObject({ resource_id: opsId, account: ROOT });
    const confirmed = records.find((r) => r.action === 'confirmTwoFactor' && r.outcome === 'success');
    expect(confirmed?.after?.twoFactor).toMatchObject({ secret: '[masked]', recoveryCodeHashes: '[masked]' });
    const text = JSON.stringify(records);
    expect(text).not.toContain(rootSecret);
    expect(text).not.toContain(opsSecret);
    for (const code of rootRecoveryCodes) expect(text).not.toContain(code);
    expect(text).toContain('[masked]');
  });
});
