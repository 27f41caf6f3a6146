import { describe, expect, it } from 'vitest';
import { checkPasswordRule, hashPassword, isCommonPassword, verifyPassword } from '#engine/accounts';
import { RampartError } from '#engine/shared';

function codeOf(password: string): string | undefined {
  try {
    checkPasswordRule(password);
    return undefined;
  } catch (error) {
    return error instanceof RampartError ? error.code : 'not a RampartError';
  }
}

describe('password rule', () => {
  it('accepts 8 to 16 characters with three of the four classes', () => {
    expect(codeOf('Kettle#Blue7')).toBeUndefined();
    expect(codeOf('kettle#blue7')).toBeUndefined(); // lower, symbol, digit
    expect(codeOf('KETTLEBLUE7x')).toBeUndefined(); // upper, digit, lower
  });

  it('refuses fewer than 8 and more than 16 characters', () => {
    expect(codeOf('Ke#7ab1')).toBe('PASSWORD_LENGTH');
    expect(codeOf('Kettle#Blue7Kettle')).toBe('PASSWORD_LENGTH');
    expect(codeOf('Kettle#Blue7Ket1')).toBeUndefined(); // exactly 16
  });

  it('counts characters, not bytes', () => {
    expect(codeOf('Kettle#密码密码7')).toBeUndefined();
  });

  it('refuses passwords with only two classes', () => {
    expect(codeOf('kettleblue77')).toBe('PASSWORD_CLASSES');
    expect(codeOf('KETTLEBLUEZZ')).toBe('PASSWORD_CLASSES');
    expect(codeOf('kettle##blue')).toBe('PASSWORD_CLASSES');
  });

  it('refuses common passwords even when they meet the classes', () => {
    expect(codeOf('Password1')).toBe('PASSWORD_COMMON');
    expect(codeOf('P@ssw0rd!')).toBe('PASSWORD_COMMON');
    expect(codeOf('Dragon2024#')).toBe('PASSWORD_COMMON');
    expect(codeOf('Qwerty123!')).toBe('PASSWORD_COMMON');
  });

  it('names the field it checked', () => {
    try {
      checkPasswordRule('short', 'newPassword');
      expect.unreachable();
    } catch (error) {
      expect((error as RampartError).field).toBe('newPassword');
      expect((error as RampartError).message).toMatch(/^newPassword: /);
    }
  });
});

describe('weak-password list', () => {
  it('knows the classics and ignores case', () => {
    expect(isCommonPassword('123456')).toBe(true);
    expect(isCommonPassword('LetMeIn')).toBe(true);
    expect(isCommonPassword('Trustno1')).toBe(true);
  });

  it('does not flag unusual passwords', () => {
    expect(isCommonPassword('Kettle#Blue7')).toBe(false);
    expect(isCommonPassword('vq8#Lz2m!Rt')).toBe(false);
  });
});

describe('password hashing', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const hash = await hashPassword('Kettle#Blue7');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('Kettle#Blue7', hash)).toBe(true);
    expect(await verifyPassword('Kettle#Blue8', hash)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('Kettle#Blue7')).not.toBe(await hashPassword('Kettle#Blue7'));
  });

  it('treats a malformed stored hash as a mismatch', async () => {
    expect(await verifyPassword('Kettle#Blue7', 'md5$abc')).toBe(false);
  });
});
