import { createHmac } from 'node:crypto';
import { RampartError } from '#engine/shared';

/** One secret, several purposes: each gets its own key so a MAC of one kind never verifies as another. */
export function deriveKey(secret: Buffer, purpose: 'token' | 'device' | 'challenge' | 'tag'): Buffer {
  if (secret.length < 16) {
    throw new RampartError('VALIDATION_FAILED', 'The probe secret key must be at least 16 bytes.', { field: 'secret' });
  }
  return createHmac('sha256', secret).update(`rampart/probe/${purpose}`).digest();
}

/**
 * FNV-1a over a string, salted: a 32-bit tag carried in tokens only to tell *why* a MAC failed
 * (wrong site, other IP). Security comes from the MAC, which covers the full values.
 */
export function tag32(salt: number, text: string): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

const B64URL_22 = /^[A-Za-z0-9_-]{22}$/;

/** A device id is 16 random bytes in base64url (22 characters). */
export function decodeDeviceId(deviceId: string): Buffer | null {
  if (!B64URL_22.test(deviceId)) return null;
  const raw = Buffer.from(deviceId, 'base64url');
  return raw.length === 16 ? raw : null;
}
