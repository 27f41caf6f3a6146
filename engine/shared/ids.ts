import type * as NodeCrypto from 'node:crypto';

/**
 * node:crypto is reached on first use through `process.getBuiltinModule`, not a static import: the
 * console bundles engine/shared (the site shape, through the API contracts) and never calls these.
 */
let loaded: typeof NodeCrypto | undefined;
const nodeCrypto = (): typeof NodeCrypto => (loaded ??= process.getBuiltinModule('node:crypto'));

/** Randomness behind an interface so ids and secrets are reproducible in tests when needed. */
export interface Random {
  bytes(size: number): Buffer;
}

export const cryptoRandom: Random = { bytes: (size) => nodeCrypto().randomBytes(size) };

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
  return nodeCrypto().createHash('sha256').update(text).digest('hex');
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
