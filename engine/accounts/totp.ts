import { createHmac, timingSafeEqual } from 'node:crypto';
import { sha256, type Random } from '#engine/shared';

/** RFC 6238 as authenticator apps use it: HMAC-SHA1, 6 digits, 30-second steps. */
export const TOTP = {
  digits: 6,
  stepSeconds: 30,
  /** Steps either side of now that are still accepted (clock drift, a code typed as it turned). */
  window: 1,
  secretBytes: 20,
  issuer: 'Rampart',
} as const;

export const RECOVERY_CODES = {
  count: 10,
  /** No 0/o, 1/l/i: a code read off paper is typed right. */
  alphabet: '23456789abcdefghjkmnpqrstuvwxyz',
  groupLength: 4,
} as const;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding, as otpauth:// URIs carry secrets. */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes base32 (case, spaces and padding ignored); throws on a character outside the alphabet. */
export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=]/g, '');
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index === -1) throw new Error(`not base32: ${char}`);
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export type HmacAlgorithm = 'sha1' | 'sha256' | 'sha512';

/** HOTP (RFC 4226) of one counter value, with dynamic truncation, zero-padded to `digits`. */
export function hotp(
  key: Uint8Array,
  counter: number,
  digits: number = TOTP.digits,
  algorithm: HmacAlgorithm = 'sha1',
): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The 30-second step a moment falls in (T in RFC 6238, with T0 = 0). */
export const stepAt = (nowMs: number): number => Math.floor(nowMs / 1000 / TOTP.stepSeconds);

/** The code an authenticator shows at `nowMs` for a base32 secret. */
export function totpCode(secret: string, nowMs: number): string {
  return hotp(base32Decode(secret), stepAt(nowMs));
}

/**
 * The step a code matches, when it is the code of a step within the window around now that is
 * later than `lastUsedStep` (so each code is accepted once); otherwise null. Every candidate is
 * compared in constant time and none is skipped on a match, so timing says nothing about which.
 */
export function matchTotp(secret: string, code: string, nowMs: number, lastUsedStep: number): number | null {
  const typed = code.replace(/\s/g, '');
  if (!/^\d+$/.test(typed) || typed.length !== TOTP.digits) return null;
  const key = base32Decode(secret);
  const now = stepAt(nowMs);
  const given = Buffer.from(typed);
  let matched: number | null = null;
  for (let step = now - TOTP.window; step <= now + TOTP.window; step++) {
    const same = timingSafeEqual(given, Buffer.from(hotp(key, step)));
    if (same && step > lastUsedStep && matched === null) matched = step;
  }
  return matched;
}

/** A new shared secret: 20 random bytes (SHA-1's block-sized key, as RFC 4226 recommends), base32. */
export function newTotpSecret(random: Random): string {
  return base32Encode(random.bytes(TOTP.secretBytes));
}

/** The key-URI authenticator apps read from a QR code or a pasted link. */
export function otpauthUri(secret: string, accountEmail: string): string {
  const label = `${encodeURIComponent(TOTP.issuer)}:${encodeURIComponent(accountEmail)}`;
  const query = new URLSearchParams({
    secret,
    issuer: TOTP.issuer,
    algorithm: 'SHA1',
    digits: String(TOTP.digits),
    period: String(TOTP.stepSeconds),
  });
  return `otpauth://totp/${label}?${query.toString()}`;
}

/**
 * Fresh recovery codes (`xxxx-xxxx`, about 40 bits each): shown once, stored as hashes. An
 * unbiased pick per character (bytes above the largest multiple of the alphabet are drawn again).
 */
export function newRecoveryCodes(random: Random): string[] {
  const { alphabet, count, groupLength } = RECOVERY_CODES;
  const limit = 256 - (256 % alphabet.length);
  const codes: string[] = [];
  while (codes.length < count) {
    let chars = '';
    while (chars.length < groupLength * 2) {
      for (const byte of random.bytes(16)) {
        if (byte < limit && chars.length < groupLength * 2) chars += alphabet[byte % alphabet.length];
      }
    }
    const code = `${chars.slice(0, groupLength)}-${chars.slice(groupLength)}`;
    if (!codes.includes(code)) codes.push(code);
  }
  return codes;
}

/** A recovery code as typed (any case, spaces, with or without the dash) in its stored form. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/** What is stored of a recovery code. The codes are random and rate-limited, so a plain hash will do. */
export function hashRecoveryCode(code: string): string {
  return sha256(`rampart-recovery:${normaliseRecoveryCode(code)}`);
}

/** The index of the stored hash a typed recovery code matches, or -1. */
export function findRecoveryCode(hashes: readonly string[], code: string): number {
  const typed = Buffer.from(hashRecoveryCode(code));
  let found = -1;
  hashes.forEach((hash, index) => {
    const stored = Buffer.from(hash);
    if (stored.length === typed.length && timingSafeEqual(stored, typed) && found === -1) found = index;
  });
  return found;
}
