import { randomBytes, createHash } from 'node:crypto';

/** Randomness behind an interface so ids and secrets are reproducible in tests when needed. */
export interface Random {
  bytes(size: number): Buffer;
}

export const cryptoRandom: Random = { bytes: (size) => randomBytes(size) };

/** A short, URL-safe identifier with a readable prefix, e.g. `acc_3k9f0q2m7x1c`. */
export function newId(prefix: string, random: Random = cryptoRandom): string {
  const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';
  const raw = random.bytes(12);
  let out = '';
  for (const byte of raw) out += alphabet[byte % alphabet.length];
  return `${prefix}_${out}`;
}

/** A secret token for links and sessions: 32 random bytes, base64url. */
export function newSecret(random: Random = cryptoRandom): string {
  return random.bytes(32).toString('base64url');
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Compares two strings in time independent of where they differ (the length is not secret). No
 * buffers: it runs for every gateway request (the Access Key).
 */
export function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
