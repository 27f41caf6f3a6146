import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { RampartError, cryptoRandom, type Clock, type Random } from '#engine/shared';
import { decodeDeviceId, deriveKey, tag32 } from './keys.ts';

export interface IssueTokenInput {
  siteId: string;
  /** The device id from the identity cookie (see `newDeviceId`). */
  deviceId: string;
  ttlSeconds: number;
  /** IP lock: the token then verifies only from this source IP. */
  ip?: string;
  /** The browser-feature verdict the probe produced, carried to every later request. */
  bot?: boolean;
}

export type TokenCheck =
  | { kind: 'valid'; deviceId: string; issuedAt: number; expiresAt: number; bot: boolean }
  | { kind: 'missing' }
  | { kind: 'invalid'; reason: TokenInvalidReason }
  | { kind: 'expired'; deviceId: string };

export type TokenInvalidReason = 'oversized' | 'malformed' | 'version' | 'wrong_site' | 'ip_mismatch' | 'signature';

export interface TokenServiceOptions {
  random?: Random;
  /**
   * Tokens whose MAC has been checked are remembered (up to this many; 0 turns it off): a browser
   * sends the same token with every request of its lifetime, and a hit skips the two SHA-256
   * runs. A hit still checks the site, the IP (when locked) and the expiry.
   */
  verifiedCacheSize?: number;
}

interface Verified {
  siteId: string;
  ip: string | null;
  deviceId: string;
  issuedAt: number;
  expiresAt: number;
  bot: boolean;
}

export type DeviceIdCheck = { kind: 'valid'; deviceId: string } | { kind: 'missing' } | { kind: 'invalid' };

export interface DeviceIdentity {
  /** 22 characters, base64url; what logs and the threat store key on. */
  deviceId: string;
  /** The identity cookie value: the id plus its MAC, so a client cannot pick another device's id. */
  cookieValue: string;
}

/** Longest cookie value looked at; anything longer is refused before any decoding. */
export const MAX_TOKEN_LENGTH = 512;

// Layout of a version-1 token (54 bytes, 72 base64url characters, no spare bits, so one token has
// exactly one spelling):
//   0 version | 1 flags (1 bot, 2 IP lock) | 2..7 issued at, ms, uint48 | 8..11 lifetime, s, uint32
//   12..27 device id | 28..31 site tag | 32..35 IP tag (0 unless locked) | 36..53 MAC (144 bits)
// The MAC is HMAC-SHA256 over bytes 0..35, the site id and (when locked) the IP. The site and the IP
// are not in the token: the verifier knows them, so they cost nothing to carry and cannot leak.
const VERSION = 1;
const FLAG_BOT = 1;
const FLAG_IP = 2;
const BODY = 36;
const MAC = 18;
const TOKEN_BYTES = BODY + MAC;
const TOKEN_CHARS = Math.ceil((TOKEN_BYTES * 4) / 3);
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+$/;
const DEVICE_COOKIE = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{16}$/;
const DEVICE_MAC = 12;

/**
 * Token cookies (issued after a probe report, checked on every request: the verdict hot path) and
 * identity cookies. Stateless: nothing is stored, so any number of engines sharing the secret
 * verify each other's tokens.
 */
export class TokenService {
  readonly #tokenKey: Buffer;
  readonly #deviceKey: Buffer;
  readonly #tagSalt: number;
  // HMAC by hand with one-shot hashes into preallocated buffers: createHmac builds an object per
  // call and costs about as much again. Synchronous use only, so sharing the buffers is safe.
  readonly #inner = Buffer.alloc(64 + BODY + 256);
  readonly #outer = Buffer.alloc(64 + 32);
  readonly #decoded = Buffer.alloc(TOKEN_BYTES + 3);

  readonly #random: Random;
  readonly #cacheSize: number;
  readonly #verified = new Map<string, Verified>();

  constructor(
    secret: Buffer,
    private readonly clock: Clock,
    options: TokenServiceOptions = {},
  ) {
    this.#random = options.random ?? cryptoRandom;
    this.#cacheSize = options.verifiedCacheSize ?? 10_000;
    this.#tokenKey = deriveKey(secret, 'token');
    this.#deviceKey = deriveKey(secret, 'device');
    this.#tagSalt = deriveKey(secret, 'tag').readUInt32BE(0);
    for (let i = 0; i < 64; i++) {
      const k = this.#tokenKey[i] ?? 0; // the derived key is 32 bytes, zero-padded to the block
      this.#inner[i] = k ^ 0x36;
      this.#outer[i] = k ^ 0x5c;
    }
  }

  issue(input: IssueTokenInput): string {
    const device = decodeDeviceId(input.deviceId);
    if (!device)
      throw new RampartError('VALIDATION_FAILED', 'The device id is not one newDeviceId made.', { field: 'deviceId' });
    if (!Number.isInteger(input.ttlSeconds) || input.ttlSeconds < 1 || input.ttlSeconds > 0xffffffff) {
      throw new RampartError('VALIDATION_FAILED', 'The token lifetime must be a whole number of seconds, at least 1.', {
        field: 'ttlSeconds',
      });
    }
    const locked = input.ip !== undefined && input.ip !== '';
    const buf = Buffer.alloc(TOKEN_BYTES);
    buf[0] = VERSION;
    buf[1] = (input.bot ? FLAG_BOT : 0) | (locked ? FLAG_IP : 0);
    buf.writeUIntBE(this.clock.now(), 2, 6);
    buf.writeUInt32BE(input.ttlSeconds, 8);
    device.copy(buf, 12);
    buf.writeUInt32BE(tag32(this.#tagSalt, input.siteId), 28);
    buf.writeUInt32BE(locked ? tag32(this.#tagSalt, input.ip ?? '') : 0, 32);
    this.#mac(buf, input.siteId, locked ? (input.ip ?? '') : '').copy(buf, BODY, 0, MAC);
    return buf.toString('base64url');
  }

  /** Never throws: whatever a client sends comes back as one of the four kinds. */
  verify(token: string | null | undefined, context: { siteId: string; ip: string }): TokenCheck {
    if (token === undefined || token === null || token === '') return { kind: 'missing' };
    if (typeof token !== 'string') return { kind: 'invalid', reason: 'malformed' };
    if (token.length > MAX_TOKEN_LENGTH) return { kind: 'invalid', reason: 'oversized' };
    if (token.length !== TOKEN_CHARS) return { kind: 'invalid', reason: 'malformed' };
    const known = this.#verified.get(token);
    if (known !== undefined && known.siteId === context.siteId && (known.ip === null || known.ip === context.ip)) {
      if (this.clock.now() >= known.expiresAt) return { kind: 'expired', deviceId: known.deviceId };
      return {
        kind: 'valid',
        deviceId: known.deviceId,
        issuedAt: known.issuedAt,
        expiresAt: known.expiresAt,
        bot: known.bot,
      };
    }
    if (!TOKEN_SHAPE.test(token)) return { kind: 'invalid', reason: 'malformed' };
    const buf = this.#decoded;
    if (buf.write(token, 0, 'base64url') !== TOKEN_BYTES) return { kind: 'invalid', reason: 'malformed' };
    if (buf[0] !== VERSION) return { kind: 'invalid', reason: 'version' };
    const flags = buf[1] ?? 0;
    const locked = (flags & FLAG_IP) !== 0;
    const expected = this.#mac(buf, context.siteId, locked ? context.ip : '');
    if (!timingSafeEqual(buf.subarray(BODY, TOKEN_BYTES), expected.subarray(0, MAC))) {
      // Only on failure: the tags say which binding did not hold.
      if (buf.readUInt32BE(28) !== tag32(this.#tagSalt, context.siteId))
        return { kind: 'invalid', reason: 'wrong_site' };
      if (locked && buf.readUInt32BE(32) !== tag32(this.#tagSalt, context.ip))
        return { kind: 'invalid', reason: 'ip_mismatch' };
      return { kind: 'invalid', reason: 'signature' };
    }
    const deviceId = buf.toString('base64url', 12, 28);
    const issuedAt = buf.readUIntBE(2, 6);
    const expiresAt = issuedAt + buf.readUInt32BE(8) * 1000;
    const bot = (flags & FLAG_BOT) !== 0;
    if (this.clock.now() >= expiresAt) return { kind: 'expired', deviceId };
    this.#remember(token, {
      siteId: context.siteId,
      ip: locked ? context.ip : null,
      deviceId,
      issuedAt,
      expiresAt,
      bot,
    });
    return { kind: 'valid', deviceId, issuedAt, expiresAt, bot };
  }

  #remember(token: string, entry: Verified): void {
    if (this.#cacheSize <= 0) return;
    if (this.#verified.size >= this.#cacheSize) {
      // Oldest first: Map keeps insertion order, and old tokens are the ones about to expire.
      const oldest = this.#verified.keys().next();
      if (!oldest.done) this.#verified.delete(oldest.value);
    }
    this.#verified.set(token, entry);
  }

  newDeviceId(): DeviceIdentity {
    const raw = this.#random.bytes(16);
    const deviceId = raw.toString('base64url');
    return { deviceId, cookieValue: `${deviceId}.${this.#deviceMac(raw)}` };
  }

  verifyDeviceId(value: string | null | undefined): DeviceIdCheck {
    if (value === undefined || value === null || value === '') return { kind: 'missing' };
    if (typeof value !== 'string' || value.length !== 39 || !DEVICE_COOKIE.test(value)) return { kind: 'invalid' };
    const raw = decodeDeviceId(value.slice(0, 22));
    if (!raw) return { kind: 'invalid' };
    const given = Buffer.from(value.slice(23), 'base64url');
    const expected = createHmac('sha256', this.#deviceKey).update(raw).digest().subarray(0, DEVICE_MAC);
    if (given.length !== DEVICE_MAC || !timingSafeEqual(given, expected)) return { kind: 'invalid' };
    // Re-encoded rather than sliced: base64url has spare bits, and one device must have one id.
    return { kind: 'valid', deviceId: raw.toString('base64url') };
  }

  /** HMAC-SHA256(tokenKey, body || siteId || NUL || ip); NUL cannot occur in either, so they cannot shift. */
  #mac(buf: Buffer, siteId: string, ip: string): Buffer {
    const inner = this.#inner;
    let n = 64 + BODY;
    if ((siteId.length + ip.length + 1) * 3 > inner.length - n) {
      return createHmac('sha256', this.#tokenKey).update(buf.subarray(0, BODY)).update(`${siteId}\u0000${ip}`).digest();
    }
    buf.copy(inner, 64, 0, BODY);
    n += inner.write(siteId, n, 'utf8');
    inner[n++] = 0;
    n += inner.write(ip, n, 'utf8');
    hash('sha256', inner.subarray(0, n), 'buffer').copy(this.#outer, 64);
    return hash('sha256', this.#outer, 'buffer');
  }

  #deviceMac(raw: Buffer): string {
    return createHmac('sha256', this.#deviceKey).update(raw).digest().subarray(0, DEVICE_MAC).toString('base64url');
  }
}
