import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkPasswordRule } from '#engine/accounts';
import { RampartError } from '#engine/shared';
import { fixture, tokenOf, STRONG, type Fixture } from './fixture.ts';

let f: Fixture;
beforeEach(async () => {
  f = await fixture();
});
afterEach(async () => {
  await f.dispose();
});

async function codeOf(run: () => unknown): Promise<string | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return error instanceof RampartError ? error.code : `not a RampartError: ${String(error)}`;
  }
}

// U+FF30 FULLWIDTH LATIN CAPITAL LETTER P: NFKC turns it into "P".
const FULLWIDTH_PASSWORD1 = '\uFF30assword1';

describe('the password rule judges the form that is hashed', () => {
  it('refuses a common password spelled with fullwidth letters', () => {
    expect(FULLWIDTH_PASSWORD1.normalize('NFKC')).toBe('Password1');
    expect(() => checkPasswordRule(FULLWIDTH_PASSWORD1)).toThrow(
      expect.objectContaining({ code: 'PASSWORD_COMMON' }) as Error,
    );
  });

  it('counts classes after normalising (fullwidth capitals are capitals)', () => {
    // As typed: lowercase + "symbols" (fullwidth letters and digits are neither A-Z nor 0-9).
    expect(checkPasswordRule('\uFF2B\uFF25\uFF34ettle\uFF17xz')).toBe('KETettle7xz');
  });

  it('counts the length after normalising (a ligature that expands can make it too long)', () => {
    // "\uFB03" (ffi ligature) is one character typed and three once normalised: 16 -> 18.
    expect(() => checkPasswordRule('Kettle#Blue7ab\uFB03c')).toThrow(
      expect.objectContaining({ code: 'PASSWORD_LENGTH' }) as Error,
    );
  });

  it('refuses the fullwidth common password when an activation link is used', async () => {
    await f.accounts.create(f.admin, { email: 'ann@example.com', role: 'user' });
    const token = tokenOf(f.mailer.linkTo('ann@example.com'));
    expect(await codeOf(() => f.accounts.completeLink(token, FULLWIDTH_PASSWORD1))).toBe('PASSWORD_COMMON');
  });

  it('refuses the fullwidth common password as a new password', async () => {
    expect(await codeOf(() => f.accounts.changePassword(f.admin, STRONG, FULLWIDTH_PASSWORD1))).toBe('PASSWORD_COMMON');
  });

  it('treats a new password that normalises to the current one as unchanged', async () => {
    const fullwidthStrong = '\uFF2B' + STRONG.slice(1); // "Ｋettle#Blue7"
    expect(await codeOf(() => f.accounts.changePassword(f.admin, STRONG, fullwidthStrong))).toBe('VALIDATION_FAILED');
  });

  it('a password set in fullwidth signs in as typed and as its normal form', async () => {
    await f.accounts.create(f.admin, { email: 'ann@example.com', role: 'user' });
    const fullwidth = '\uFF34eapot#Green8';
    await f.accounts.completeLink(tokenOf(f.mailer.linkTo('ann@example.com')), fullwidth);
    await expect(f.accounts.signIn('ann@example.com', fullwidth, '10.0.0.1')).resolves.toBeDefined();
    await expect(f.accounts.signIn('ann@example.com', 'Teapot#Green8', '10.0.0.1')).resolves.toBeDefined();
  });
});
