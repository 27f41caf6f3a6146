import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RampartError, MINUTE, DAY } from '#engine/shared';
import { fixture, tokenOf, STRONG, type Fixture } from './fixture.ts';

const ROOT = 'root@example.com';
const WRONG = 'Wrong#Pass1';

let f: Fixture;
beforeEach(async () => {
  f = await fixture();
});
afterEach(async () => {
  await f.dispose();
});

async function failureOf(run: Promise<unknown>): Promise<{ code: string; reason?: unknown } | undefined> {
  try {
    await run;
    return undefined;
  } catch (error) {
    if (!(error instanceof RampartError)) throw error;
    return { code: error.code, ...(error.params.reason === undefined ? {} : { reason: error.params.reason }) };
  }
}

/** The device cookie of a browser that signed in as root once. */
async function knownDevice(email = ROOT): Promise<string> {
  return (await f.accounts.signIn(email, STRONG, '192.0.2.10')).deviceToken;
}

/** Someone else guesses root's password from unknown browsers until root is locked out. */
async function lockOutUnknownBrowsers(email = ROOT): Promise<void> {
  for (let i = 0; i < 5; i++)
    expect(await failureOf(f.accounts.signIn(email, WRONG, `203.0.113.${i}`))).toEqual({ code: 'INVALID_CREDENTIALS' });
  expect(await failureOf(f.accounts.signIn(email, STRONG, '198.51.100.1'))).toEqual({
    code: 'RATE_LIMITED',
    reason: 'signInAccount',
  });
}

describe('sign-in from a browser that signed in before (device cookie)', () => {
  it('gets a fresh device cookie with every sign-in', async () => {
    const first = await knownDevice();
    const second = await knownDevice();
    expect(first).toMatch(/^acc_\w+\.[\w-]{43}\.\w+\.[\w-]{43}$/);
    expect(second).not.toBe(first);
  });

  it("is not locked out by someone else's failures from unknown browsers", async () => {
    const device = await knownDevice();
    await lockOutUnknownBrowsers();
    await expect(f.accounts.signIn(ROOT, STRONG, '192.0.2.10', device)).resolves.toMatchObject({
      account: { email: ROOT },
    });
  });

  it('is not held back by an IP that unknown browsers used up', async () => {
    const device = await knownDevice();
    for (let i = 0; i < 20; i++) await failureOf(f.accounts.signIn(`nobody${i}@example.com`, WRONG, '192.0.2.10'));
    expect(await failureOf(f.accounts.signIn(ROOT, STRONG, '192.0.2.10'))).toEqual({
      code: 'RATE_LIMITED',
      reason: 'signInIp',
    });
    await expect(f.accounts.signIn(ROOT, STRONG, '192.0.2.10', device)).resolves.toBeDefined();
  });

  it('leaves unknown browsers locked out after the known one signs in', async () => {
    const device = await knownDevice();
    await lockOutUnknownBrowsers();
    await f.accounts.signIn(ROOT, STRONG, '192.0.2.10', device);
    expect(await failureOf(f.accounts.signIn(ROOT, STRONG, '198.51.100.1'))).toEqual({
      code: 'RATE_LIMITED',
      reason: 'signInAccount',
    });
    f.clock.advance(15 * MINUTE);
    await expect(f.accounts.signIn(ROOT, STRONG, '198.51.100.1')).resolves.toBeDefined();
  });

  it('still counts its own failures: 5 in 15 minutes lock that browser alone', async () => {
    const device = await knownDevice();
    const other = await knownDevice();
    for (let i = 0; i < 5; i++)
      expect(await failureOf(f.accounts.signIn(ROOT, WRONG, '192.0.2.10', device))).toEqual({
        code: 'INVALID_CREDENTIALS',
      });
    expect(await failureOf(f.accounts.signIn(ROOT, STRONG, '192.0.2.10', device))).toEqual({
      code: 'RATE_LIMITED',
      reason: 'signInDevice',
    });
    // Another known browser and unknown browsers are not affected by this one's failures.
    await expect(f.accounts.signIn(ROOT, STRONG, '192.0.2.11', other)).resolves.toBeDefined();
    await expect(f.accounts.signIn(ROOT, STRONG, '198.51.100.1')).resolves.toBeDefined();
    f.clock.advance(15 * MINUTE);
    await expect(f.accounts.signIn(ROOT, STRONG, '192.0.2.10', device)).resolves.toBeDefined();
  });

  it('is an unknown browser for any other account', async () => {
    await f.accounts.create(f.admin, { email: 'ann@example.com', role: 'user' });
    await f.accounts.completeLink(tokenOf(f.mailer.linkTo('ann@example.com')), STRONG);
    const rootDevice = await knownDevice();
    await lockOutUnknownBrowsers('ann@example.com');
    expect(await failureOf(f.accounts.signIn('ann@example.com', STRONG, '192.0.2.10', rootDevice))).toEqual({
      code: 'RATE_LIMITED',
      reason: 'signInAccount',
    });
  });

  it('counts as unknown when altered or forged', async () => {
    const device = await knownDevice();
    await lockOutUnknownBrowsers();
    const [account, nonce, issued, signature] = device.split('.') as [string, string, string, string];
    const forgeries = [
      `${account}.${nonce}.${issued}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`,
      `${account}.${nonce}x.${issued}.${signature}`,
      `${account}.${nonce}.${(Number.parseInt(issued, 36) + DAY).toString(36)}.${signature}`,
      `${account}.${nonce}.${issued}`,
      'garbage',
      '',
    ];
    for (const forged of forgeries) {
      expect(await failureOf(f.accounts.signIn(ROOT, STRONG, '192.0.2.10', forged)), forged).toEqual({
        code: 'RATE_LIMITED',
        reason: 'signInAccount',
      });
    }
  });

  it('expires after a year', async () => {
    const device = await knownDevice();
    f.clock.advance(365 * DAY + 1);
    await lockOutUnknownBrowsers();
    expect(await failureOf(f.accounts.signIn(ROOT, STRONG, '192.0.2.10', device))).toEqual({
      code: 'RATE_LIMITED',
      reason: 'signInAccount',
    });
  });

  it('does not let a disabled account in', async () => {
    await f.accounts.create(f.admin, { email: 'ann@example.com', role: 'user' });
    await f.accounts.completeLink(tokenOf(f.mailer.linkTo('ann@example.com')), STRONG);
    const device = await knownDevice('ann@example.com');
    const ann = f.accounts.list().find((a) => a.email === 'ann@example.com');
    await f.accounts.setEnabled(f.admin, ann?.id ?? '', false);
    expect(await failureOf(f.accounts.signIn('ann@example.com', STRONG, '192.0.2.10', device))).toEqual({
      code: 'ACCOUNT_DISABLED',
    });
  });
});
