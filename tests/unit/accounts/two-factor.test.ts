import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { totpCode, type SignInStep } from '#engine/accounts';
import { RampartError, MINUTE } from '#engine/shared';
import { fixture, STRONG, type Fixture } from './fixture.ts';

let f: Fixture;
beforeEach(async () => {
  f = await fixture();
});
afterEach(async () => {
  await f.dispose();
});

const ROOT = 'root@example.com';
const IP = '192.0.2.10';

async function failure(promise: Promise<unknown>): Promise<{ code: string; field?: string } | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (!(error instanceof RampartError)) throw error;
    return error.field === undefined ? { code: error.code } : { code: error.code, field: error.field };
  }
}

/** Turns two-factor on for the tenant administrator; the secret and the recovery codes. */
async function enrol(): Promise<{ secret: string; recoveryCodes: string[] }> {
  const { secret } = f.accounts.startTwoFactor(f.admin);
  const { recoveryCodes } = await f.accounts.confirmTwoFactor(f.admin, totpCode(secret, f.clock.now()));
  return { secret, recoveryCodes };
}

function challengeOf(step: SignInStep): string {
  if (step.kind !== 'secondFactor') throw new Error('expected a challenge');
  return step.challengeId;
}

describe('enrolment', () => {
  it('is not on until a code of the new secret is confirmed', async () => {
    f.accounts.startTwoFactor(f.admin);
    expect(f.accounts.twoFactorStatus(f.admin.accountId)).toMatchObject({ enabled: false, recoveryCodesLeft: 0 });
    expect((await f.accounts.beginSignIn(ROOT, STRONG, IP)).kind).toBe('signedIn');
  });

  it('refuses a wrong code, naming the field, and stays off', async () => {
    f.accounts.startTwoFactor(f.admin);
    expect(await failure(f.accounts.confirmTwoFactor(f.admin, '000000'))).toEqual({
      code: 'TWO_FACTOR_CODE_WRONG',
      field: 'code',
    });
    expect(f.accounts.twoFactorStatus(f.admin.accountId).enabled).toBe(false);
  });

  it('refuses a confirmation without a started enrolment', async () => {
    expect(await failure(f.accounts.confirmTwoFactor(f.admin, '123456'))).toEqual({ code: 'TWO_FACTOR_NOT_STARTED' });
  });

  it('turns on with a current code and gives ten recovery codes, stored only as hashes', async () => {
    const { secret, recoveryCodes } = await enrol();
    expect(recoveryCodes).toHaveLength(10);
    expect(f.accounts.twoFactorStatus(f.admin.accountId)).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    const stored = JSON.stringify(f.store.data.accounts);
    for (const code of recoveryCodes) expect(stored).not.toContain(code);
    expect(f.accounts.get(f.admin.accountId).twoFactor?.secret).toBe(secret);
  });
});

describe('sign-in with two-factor on', () => {
  it('answers the password with a challenge instead of a session', async () => {
    await enrol();
    const step = await f.accounts.beginSignIn(ROOT, STRONG, IP);
    expect(step).toMatchObject({ kind: 'secondFactor', expiresAt: f.clock.now() + 5 * MINUTE });
    expect(await failure(f.accounts.signIn(ROOT, STRONG, IP))).toEqual({ code: 'TWO_FACTOR_REQUIRED' });
  });

  it('signs in with the next code, and never twice with one code', async () => {
    const { secret } = await enrol();
    f.clock.advance(30_000);
    const code = totpCode(secret, f.clock.now());
    const signedIn = await f.accounts.completeSignIn(challengeOf(await f.accounts.beginSignIn(ROOT, STRONG, IP)), {
      kind: 'totp',
      code,
    });
    expect(signedIn.account.email).toBe(ROOT);
    const again = challengeOf(await f.accounts.beginSignIn(ROOT, STRONG, IP));
    expect(await failure(f.accounts.completeSignIn(again, { kind: 'totp', code }))).toEqual({
      code: 'TWO_FACTOR_CODE_WRONG',
      field: 'code',
    });
  });

  it('uses a challenge once only', async () => {
    const { secret } = await enrol();
    const challenge = challengeOf(await f.accounts.beginSignIn(ROOT, STRONG, IP));
    f.clock.advance(30_000);
    await f.accounts.completeSignIn(challenge, { kind: 'totp', code: totpCode(secret, f.clock.now()) });
    f.clock.advance(30_000);
    expect(
      await failure(f.accounts.completeSignIn(challenge, { kind: 'totp', code: totpCode(secret, f.clock.now()) })),
    ).toEqual({ code: 'TWO_FACTOR_CHALLENGE_INVALID', field: 'challengeId' });
  });

  it('lets a challenge expire after 5 minutes', async () => {
    const { secret } = await enrol();
    const challenge = challengeOf(await f.accounts.beginSignIn(ROOT, STRONG, IP));
    f.clock.advance(5 * MINUTE);
    expect(
      await failure(f.accounts.completeSignIn(challenge, { kind: 'totp', code: totpCode(secret, f.clock.now()) })),
    ).toEqual({ code: 'TWO_FACTOR_CHALLENGE_INVALID', field: 'challengeId' });
  });

  it('takes each recovery code once', async () => {
    const { recoveryCodes } = await enrol();
    const code = recoveryCodes[0]!;
    await f.accounts.completeSignIn(challengeOf(await f.accounts.beginSignIn(ROOT, STRONG, IP)), {
      kind: 'recovery',
      code,
    });
    expect(f.accounts.twoFactorStatus(f.admin.accountId).recoveryCodesLeft).toBe(9);
    const again = challengeOf(await f.accounts.beginSignIn(ROOT, STRONG, IP));
    expect(await failure(f.accounts.completeSignIn(again, { kind: 'recovery', code }))).toEqual({
      code: 'TWO_FACTOR_CODE_WRONG',
      field: 'recoveryCode',
    });
  });

  it('locks the second step after 5 wrong codes in 15 minutes, even with the right one', async () => {
    const { secret } = await enrol();
    const challenge = challengeOf(await f.accounts.beginSignIn(ROOT, STRONG, IP));
    for (let i = 0; i < 5; i++) {
      expect((await failure(f.accounts.completeSignIn(challenge, { kind: 'recovery', code: 'zzzz-zzzz' })))?.code).toBe(
        'TWO_FACTOR_CODE_WRONG',
      );
    }
    f.clock.advance(30_000);
    expect(
      (await failure(f.accounts.completeSignIn(challenge, { kind: 'totp', code: totpCode(secret, f.clock.now()) })))
        ?.code,
    ).toBe('RATE_LIMITED');
  });
});

describe('turning it off, new recovery codes, reset', () => {
  it('turns off with the password and a code, not with a wrong password', async () => {
    const { secret } = await enrol();
    f.clock.advance(30_000);
    const code = totpCode(secret, f.clock.now());
    expect(await failure(f.accounts.disableTwoFactor(f.admin, 'Wrong#Pass1', { kind: 'totp', code }))).toEqual({
      code: 'PASSWORD_WRONG',
      field: 'currentPassword',
    });
    await f.accounts.disableTwoFactor(f.admin, STRONG, { kind: 'totp', code });
    expect(f.accounts.twoFactorStatus(f.admin.accountId).enabled).toBe(false);
    expect((await f.accounts.beginSignIn(ROOT, STRONG, IP)).kind).toBe('signedIn');
  });

  it('replaces the recovery codes given a code; the old ones stop working', async () => {
    const { secret, recoveryCodes } = await enrol();
    f.clock.advance(30_000);
    const fresh = await f.accounts.regenerateRecoveryCodes(f.admin, totpCode(secret, f.clock.now()));
    expect(fresh.recoveryCodes).toHaveLength(10);
    const challenge = challengeOf(await f.accounts.beginSignIn(ROOT, STRONG, IP));
    expect(
      (await failure(f.accounts.completeSignIn(challenge, { kind: 'recovery', code: recoveryCodes[0]! })))?.code,
    ).toBe('TWO_FACTOR_CODE_WRONG');
    await f.accounts.completeSignIn(challenge, { kind: 'recovery', code: fresh.recoveryCodes[0]! });
  });

  it("lets another administrator reset an account's two-factor, never one's own", async () => {
    await enrol();
    const { account } = await f.accounts.create(f.admin, { email: 'ops@example.com', role: 'administrator' });
    const other = { accountId: account.id };
    expect(await failure(f.accounts.resetTwoFactor(f.admin, f.admin.accountId))).toMatchObject({
      code: 'OWN_ACCOUNT_PROTECTED',
    });
    await f.accounts.resetTwoFactor(other, f.admin.accountId);
    expect(f.accounts.twoFactorStatus(f.admin.accountId).enabled).toBe(false);
    expect(await failure(f.accounts.resetTwoFactor(other, f.admin.accountId))).toMatchObject({
      code: 'TWO_FACTOR_OFF',
    });
  });
});

describe('the administrators policy', () => {
  it('holds an administrator without two-factor to enrolment while the setting is on', async () => {
    const root = f.accounts.get(f.admin.accountId);
    expect(f.accounts.mustEnrolTwoFactor(root)).toBe(false);
    await f.store.update((doc) => {
      doc.admin.requireTwoFactorForAdmins = true;
    });
    expect(f.accounts.mustEnrolTwoFactor(root)).toBe(true);
    expect(f.accounts.twoFactorStatus(root.id)).toMatchObject({ enabled: false, required: true });
    await enrol();
    expect(f.accounts.mustEnrolTwoFactor(f.accounts.get(root.id))).toBe(false);
  });
});
