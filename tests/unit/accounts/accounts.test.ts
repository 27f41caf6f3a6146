import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RampartError, MINUTE, HOUR } from '#engine/shared';
import { fixture, tokenOf, STRONG, type Fixture } from './fixture.ts';

let f: Fixture;
beforeEach(async () => {
  f = await fixture();
});
afterEach(async () => {
  await f.dispose();
});

async function codeOf(promise: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
    return undefined;
  } catch (error) {
    return error instanceof RampartError ? error.code : `not a RampartError: ${String(error)}`;
  }
}

async function activated(email: string, role: 'administrator' | 'user' | 'guest' = 'user'): Promise<string> {
  const { account } = await f.accounts.create(f.admin, { email, role });
  await f.accounts.completeLink(tokenOf(f.mailer.linkTo(email)), STRONG);
  return account.id;
}

describe('first-run setup', () => {
  it('makes an activated tenant administrator', () => {
    const [root] = f.accounts.list();
    expect(root).toMatchObject({
      email: 'root@example.com',
      role: 'administrator',
      tenant: true,
      activated: true,
      enabled: true,
    });
    expect(f.accounts.needsSetup()).toBe(false);
  });

  it('cannot run twice', async () => {
    expect(await codeOf(f.accounts.setup({ email: 'other@example.com', password: STRONG }))).toBe('SETUP_ALREADY_DONE');
  });
});

describe('creating accounts', () => {
  it('e-mails a single-use activation link that sets the password', async () => {
    const { account, delivery } = await f.accounts.create(f.admin, { email: 'Ann@Example.com', role: 'guest' });
    expect(account).toMatchObject({ email: 'ann@example.com', activated: false, role: 'guest' });
    expect(delivery).toMatchObject({ emailSent: true, link: null });
    const token = tokenOf(f.mailer.linkTo('ann@example.com'));
    expect(f.accounts.inspectLink(token)).toMatchObject({ purpose: 'activate', email: 'ann@example.com' });
    await f.accounts.completeLink(token, STRONG);
    expect(f.accounts.get(account.id).activated).toBe(true);
    expect(await codeOf(f.accounts.completeLink(token, STRONG))).toBe('LINK_INVALID');
    await expect(f.accounts.signIn('ann@example.com', STRONG, '10.0.0.1')).resolves.toBeDefined();
  });

  it('refuses an e-mail already used by an activated account', async () => {
    await activated('ann@example.com');
    f.clock.advance(10 * MINUTE);
    expect(await codeOf(f.accounts.create(f.admin, { email: 'ANN@example.com', role: 'user' }))).toBe('EMAIL_IN_USE');
    expect(await codeOf(f.accounts.create(f.admin, { email: 'root@example.com', role: 'user' }))).toBe('EMAIL_IN_USE');
  });

  it('sends at most one activation e-mail per address per 5 minutes, and says when to retry', async () => {
    await f.accounts.create(f.admin, { email: 'ann@example.com', role: 'user' });
    f.clock.advance(4 * MINUTE);
    const error = await f.accounts.create(f.admin, { email: 'ann@example.com', role: 'user' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RampartError);
    expect((error as RampartError).code).toBe('RATE_LIMITED');
    expect((error as RampartError).params).toMatchObject({ reason: 'activationMail', retryAfterSeconds: 60 });
    f.clock.advance(1 * MINUTE);
    const again = await f.accounts.create(f.admin, { email: 'ann@example.com', role: 'guest' });
    expect(again.account.role).toBe('guest');
    expect(f.accounts.list({ activated: false })).toHaveLength(1);
  });

  it('creates at most 5 accounts per 5 minutes', async () => {
    for (let i = 0; i < 5; i++) {
      await f.accounts.create(f.admin, { email: `u${i}@example.com`, role: 'user' });
      f.clock.advance(30_000);
    }
    const error = (await f.accounts
      .create(f.admin, { email: 'u5@example.com', role: 'user' })
      .catch((e: unknown) => e)) as RampartError;
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.params).toMatchObject({ reason: 'newAccounts', retryAfterSeconds: 150 });
    f.clock.advance(150_000);
    await expect(f.accounts.create(f.admin, { email: 'u5@example.com', role: 'user' })).resolves.toBeDefined();
  });

  it('hands the link to the administrator when SMTP is not configured', async () => {
    const g = await fixture({ mailConfigured: false });
    try {
      const { delivery } = await g.accounts.create(g.admin, { email: 'ann@example.com', role: 'user' });
      expect(delivery.emailSent).toBe(false);
      expect(delivery.link).toMatch(/^http:\/\/127\.0\.0\.1:9080\/activate\?token=/);
      expect(g.mailer.sent).toHaveLength(0);
    } finally {
      await g.dispose();
    }
  });

  it('hands the link over when sending fails, keeping the account', async () => {
    f.mailer.fail = true;
    const { account, delivery } = await f.accounts.create(f.admin, { email: 'ann@example.com', role: 'user' });
    expect(delivery).toMatchObject({ emailSent: false, mailError: 'connection refused' });
    expect(delivery.link).toContain('/activate?token=');
    expect(f.accounts.get(account.id).activated).toBe(false);
  });

  it('expires activation links after 24 hours', async () => {
    await f.accounts.create(f.admin, { email: 'ann@example.com', role: 'user' });
    const token = tokenOf(f.mailer.linkTo('ann@example.com'));
    f.clock.advance(24 * HOUR);
    expect(await codeOf(f.accounts.completeLink(token, STRONG))).toBe('LINK_EXPIRED');
  });

  it('checks the password rule when a link is used', async () => {
    await f.accounts.create(f.admin, { email: 'ann@example.com', role: 'user' });
    const token = tokenOf(f.mailer.linkTo('ann@example.com'));
    expect(await codeOf(f.accounts.completeLink(token, 'Password1'))).toBe('PASSWORD_COMMON');
    expect(await codeOf(f.accounts.completeLink(token, 'abc'))).toBe('PASSWORD_LENGTH');
  });
});

describe('the tenant account and your own account', () => {
  it('the tenant account cannot be disabled, re-roled, reset or deleted', async () => {
    const otherAdmin = await activated('boss@example.com', 'administrator');
    const actor = { accountId: otherAdmin };
    const tenant = f.admin.accountId;
    expect(await codeOf(f.accounts.setEnabled(actor, tenant, false))).toBe('TENANT_ACCOUNT_PROTECTED');
    expect(await codeOf(f.accounts.setRole(actor, tenant, 'guest'))).toBe('TENANT_ACCOUNT_PROTECTED');
    expect(await codeOf(f.accounts.sendPasswordReset(actor, tenant))).toBe('TENANT_ACCOUNT_PROTECTED');
    expect(await codeOf(f.accounts.remove(actor, tenant))).toBe('TENANT_ACCOUNT_PROTECTED');
    expect(f.accounts.get(tenant)).toMatchObject({ enabled: true, role: 'administrator' });
  });

  it('an administrator cannot disable, re-role or delete their own account', async () => {
    const id = await activated('boss@example.com', 'administrator');
    const self = { accountId: id };
    expect(await codeOf(f.accounts.setEnabled(self, id, false))).toBe('OWN_ACCOUNT_PROTECTED');
    expect(await codeOf(f.accounts.setRole(self, id, 'user'))).toBe('OWN_ACCOUNT_PROTECTED');
    expect(await codeOf(f.accounts.remove(self, id))).toBe('OWN_ACCOUNT_PROTECTED');
  });

  it('an administrator can disable, re-role, reset and delete other accounts', async () => {
    const id = await activated('ann@example.com');
    await f.accounts.setRole(f.admin, id, 'guest');
    expect(f.accounts.get(id).role).toBe('guest');
    await f.accounts.setEnabled(f.admin, id, false);
    expect(f.accounts.get(id).enabled).toBe(false);
    f.clock.advance(5 * MINUTE);
    const delivery = await f.accounts.sendPasswordReset(f.admin, id);
    expect(delivery.emailSent).toBe(true);
    await f.accounts.remove(f.admin, id);
    expect(await codeOf(() => f.accounts.get(id))).toBe('NOT_FOUND');
  });
});

describe('signing in', () => {
  it('refuses a disabled account and ends its sessions', async () => {
    const id = await activated('ann@example.com');
    const { session } = await f.accounts.signIn('ann@example.com', STRONG, '10.0.0.1');
    await f.accounts.setEnabled(f.admin, id, false);
    expect(f.accounts.current(session.id).kind).toBe('none');
    expect(await codeOf(f.accounts.signIn('ann@example.com', STRONG, '10.0.0.1'))).toBe('ACCOUNT_DISABLED');
  });

  it('refuses an account awaiting activation like a wrong password', async () => {
    await f.accounts.create(f.admin, { email: 'ann@example.com', role: 'user' });
    expect(await codeOf(f.accounts.signIn('ann@example.com', STRONG, '10.0.0.1'))).toBe('INVALID_CREDENTIALS');
  });

  it('locks an account after 5 failures in 15 minutes, from any IP', async () => {
    for (let i = 0; i < 5; i++) {
      expect(await codeOf(f.accounts.signIn('root@example.com', 'Wrong#Pass1', `10.0.0.${i}`))).toBe(
        'INVALID_CREDENTIALS',
      );
    }
    const error = (await f.accounts
      .signIn('root@example.com', STRONG, '10.0.0.99')
      .catch((e: unknown) => e)) as RampartError;
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.params).toMatchObject({ reason: 'signInAccount', retryAfterSeconds: 900 });
    f.clock.advance(15 * MINUTE);
    await expect(f.accounts.signIn('root@example.com', STRONG, '10.0.0.99')).resolves.toBeDefined();
  });

  it('throttles an IP after 20 failures in 15 minutes, whatever the account', async () => {
    for (let i = 0; i < 20; i++) await codeOf(f.accounts.signIn(`nobody${i}@example.com`, 'Wrong#Pass1', '10.9.9.9'));
    const error = (await f.accounts
      .signIn('root@example.com', STRONG, '10.9.9.9')
      .catch((e: unknown) => e)) as RampartError;
    expect(error.params).toMatchObject({ reason: 'signInIp' });
    await expect(f.accounts.signIn('root@example.com', STRONG, '10.0.0.1')).resolves.toBeDefined();
  });

  it('ends a session after 30 idle minutes and after 12 hours in any case', async () => {
    const { session } = await f.accounts.signIn('root@example.com', STRONG, '10.0.0.1');
    f.clock.advance(29 * MINUTE);
    expect(f.accounts.current(session.id).kind).toBe('valid');
    f.clock.advance(30 * MINUTE + 1);
    expect(f.accounts.current(session.id).kind).toBe('expired');

    const second = await f.accounts.signIn('root@example.com', STRONG, '10.0.0.1');
    let kind = 'valid';
    let elapsed = 0;
    while (kind === 'valid' && elapsed < 13 * 60) {
      f.clock.advance(20 * MINUTE);
      elapsed += 20;
      kind = f.accounts.current(second.session.id).kind;
    }
    expect(kind).toBe('expired');
    expect(elapsed).toBe(12 * 60 + 20);
  });

  it('changing the password keeps this session and ends the others', async () => {
    const a = await f.accounts.signIn('root@example.com', STRONG, '10.0.0.1');
    const b = await f.accounts.signIn('root@example.com', STRONG, '10.0.0.2');
    expect(
      await codeOf(
        f.accounts.changePassword({ accountId: a.account.id, sessionId: a.session.id }, 'Wrong#Pass1', 'Teapot#Green8'),
      ),
    ).toBe('PASSWORD_WRONG');
    expect(
      await codeOf(
        f.accounts.changePassword({ accountId: a.account.id, sessionId: a.session.id }, STRONG, 'Password1'),
      ),
    ).toBe('PASSWORD_COMMON');
    await f.accounts.changePassword({ accountId: a.account.id, sessionId: a.session.id }, STRONG, 'Teapot#Green8');
    expect(f.accounts.current(a.session.id).kind).toBe('valid');
    expect(f.accounts.current(b.session.id).kind).toBe('none');
    await expect(f.accounts.signIn('root@example.com', 'Teapot#Green8', '10.0.0.1')).resolves.toBeDefined();
  });
});

describe('filters', () => {
  it('lists by activation and enabled state', async () => {
    const ann = await activated('ann@example.com');
    await f.accounts.create(f.admin, { email: 'bob@example.com', role: 'guest' });
    await f.accounts.setEnabled(f.admin, ann, false);
    expect(f.accounts.list({ activated: false }).map((a) => a.email)).toEqual(['bob@example.com']);
    expect(f.accounts.list({ enabled: false }).map((a) => a.email)).toEqual(['ann@example.com']);
    expect(f.accounts.list({ activated: true, enabled: true }).map((a) => a.email)).toEqual(['root@example.com']);
  });
});
