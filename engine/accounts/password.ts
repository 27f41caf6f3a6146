import { scrypt as scryptCb, randomBytes, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { RampartError } from '#engine/shared';
import { isCommonPassword } from './weak-passwords.ts';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 16;

const CLASSES: readonly RegExp[] = [/[A-Z]/, /[a-z]/, /[0-9]/, /[^A-Za-z0-9]/];

/**
 * The form of a password that is hashed and compared: NFKC, so that a fullwidth `Ｐ` and `P` are
 * one password. The rule is checked on this form too, or a password that passes as typed would
 * be stored as one the rule refuses (`Ｐassword1` hashes as `Password1`).
 */
export function normalisePassword(password: string): string {
  return password.normalize('NFKC');
}

/**
 * The password rule of the spec: 8 to 16 characters, at least three of the four classes
 * (uppercase, lowercase, digit, symbol), and not a commonly used password, judged on the
 * normalised form. Throws the first broken rule as a RampartError naming `field`; returns the
 * normalised form, which is what must be hashed.
 */
export function checkPasswordRule(password: string, field = 'password'): string {
  const normalised = normalisePassword(password);
  const length = [...normalised].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw new RampartError('PASSWORD_LENGTH', `${field}: must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long`, {
      field,
      params: { min: PASSWORD_MIN, max: PASSWORD_MAX },
    });
  }
  const classes = CLASSES.filter((re) => re.test(normalised)).length;
  if (classes < 3) {
    throw new RampartError(
      'PASSWORD_CLASSES',
      `${field}: must mix at least 3 of uppercase letters, lowercase letters, digits and symbols`,
      { field, params: { required: 3, found: classes } },
    );
  }
  if (isCommonPassword(normalised)) {
    throw new RampartError('PASSWORD_COMMON', `${field}: is a commonly used password; choose another`, { field });
  }
  return normalised;
}

const SCRYPT: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 64;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(normalisePassword(password), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$hash`, so the cost can be raised later without breaking stored hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash of nothing, verified against when the account does not exist, so timing tells nothing. */
export const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$' + Buffer.alloc(KEY_LENGTH).toString('base64');
