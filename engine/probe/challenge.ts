import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { RampartError, cryptoRandom, type Clock, type Random } from '#engine/shared';
import { deriveKey } from './keys.ts';

export interface IssuedChallenge {
  /** ASCII, base64url; the probe hashes `challenge + ':' + counter`. */
  challenge: string;
  /** Leading zero bits the SHA-256 must have. */
  difficulty: number;
  expiresAt: number;
}

export type SolutionCheck =
  | { kind: 'valid'; difficulty: number }
  | { kind: 'invalid'; reason: 'malformed' | 'signature' | 'insufficient_work' | 'busy' }
  | { kind: 'expired' }
  | { kind: 'replayed' };

/**
 * Remembers solved challenges until they expire, so a solution is accepted once. Behind an
 * interface so several engines can share one (the in-memory one serves a single engine).
 */
export interface UsedChallengeStore {
  /** 'used' when the id was seen before; 'full' when it cannot remember one more. */
  markUsed(id: string, expiresAt: number, now: number): 'ok' | 'used' | 'full';
}

/**
 * A bounded in-memory set. When full of unexpired ids it refuses new solutions rather than
 * forgetting old ones: forgetting would let a forgotten solution be replayed. Filling it needs as
 * many solved challenges, which is the work the challenge costs.
 */
export class MemoryUsedChallenges implements UsedChallengeStore {
  readonly #expiry = new Map<string, number>();

  constructor(private readonly capacity = 200_000) {}

  markUsed(id: string, expiresAt: number, now: number): 'ok' | 'used' | 'full' {
    const known = this.#expiry.get(id);
    if (known !== undefined && known > now) return 'used';
    this.#prune(now);
    if (this.#expiry.size >= this.capacity) return 'full';
    this.#expiry.set(id, expiresAt);
    return 'ok';
  }

  get size(): number {
    return this.#expiry.size;
  }

  #prune(now: number): void {
    // Insertion order is close to expiry order (one lifetime per service), so stop at the first live one.
    for (const [id, expiresAt] of this.#expiry) {
      if (expiresAt > now) break;
      this.#expiry.delete(id);
    }
  }
}

export interface ChallengeServiceOptions {
  /** Default lifetime of a challenge. Default 5 minutes. */
  ttlSeconds?: number;
  used?: UsedChallengeStore;
  random?: Random;
}

/** Highest difficulty accepted: 24 bits is already ~16 million hashes, seconds even in a fast browser. */
export const MAX_DIFFICULTY = 24;

// Layout (36 bytes, 48 base64url characters): 0 version | 1 difficulty | 2..7 expires at, ms |
// 8..19 random id | 20..35 MAC (HMAC-SHA256 over bytes 0..19 and the site id, 128 bits).
const VERSION = 1;
const BODY = 20;
const MAC = 16;
const CHALLENGE_CHARS = 48;
const SHAPE = /^[A-Za-z0-9_-]{48}$/;

/**
 * Stateless proof-of-work challenges: everything needed to check a solution travels in the signed
 * challenge; only the set of used ids is remembered, and only until they expire.
 */
export class ChallengeService {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  readonly #used: UsedChallengeStore;
  readonly #random: Random;

  constructor(
    secret: Buffer,
    private readonly clock: Clock,
    options: ChallengeServiceOptions = {},
  ) {
    this.#key = deriveKey(secret, 'challenge');
    this.#ttlMs = (options.ttlSeconds ?? 300) * 1000;
    this.#used = options.used ?? new MemoryUsedChallenges();
    this.#random = options.random ?? cryptoRandom;
  }

  /** `ttlSeconds` overrides the default, e.g. to outlive a page-mode token refresh. */
  issueChallenge(input: { siteId: string; difficulty: number; ttlSeconds?: number }): IssuedChallenge {
    if (!Number.isInteger(input.difficulty) || input.difficulty < 1 || input.difficulty > MAX_DIFFICULTY) {
      throw new RampartError('VALIDATION_FAILED', `The proof-of-work difficulty must be 1 to ${MAX_DIFFICULTY} bits.`, {
        field: 'difficulty',
        params: { max: MAX_DIFFICULTY },
      });
    }
    const expiresAt = this.clock.now() + (input.ttlSeconds === undefined ? this.#ttlMs : input.ttlSeconds * 1000);
    const buf = Buffer.alloc(BODY + MAC);
    buf[0] = VERSION;
    buf[1] = input.difficulty;
    buf.writeUIntBE(expiresAt, 2, 6);
    this.#random.bytes(12).copy(buf, 8);
    this.#mac(buf, input.siteId).copy(buf, BODY, 0, MAC);
    return { challenge: buf.toString('base64url'), difficulty: input.difficulty, expiresAt };
  }

  /** Checks the signature, the expiry and the work, then spends the challenge. Never throws. */
  verifySolution(challenge: string, counter: number, context: { siteId: string }): SolutionCheck {
    if (typeof challenge !== 'string' || challenge.length !== CHALLENGE_CHARS || !SHAPE.test(challenge)) {
      return { kind: 'invalid', reason: 'malformed' };
    }
    if (!Number.isSafeInteger(counter) || counter < 0) return { kind: 'invalid', reason: 'malformed' };
    const buf = Buffer.from(challenge, 'base64url');
    if (buf.length !== BODY + MAC || buf[0] !== VERSION) return { kind: 'invalid', reason: 'malformed' };
    if (!timingSafeEqual(buf.subarray(BODY), this.#mac(buf, context.siteId).subarray(0, MAC))) {
      return { kind: 'invalid', reason: 'signature' };
    }
    const now = this.clock.now();
    const expiresAt = buf.readUIntBE(2, 6);
    if (now >= expiresAt) return { kind: 'expired' };
    const difficulty = buf[1] ?? 0;
    const digest = createHash('sha256').update(`${challenge}:${counter}`).digest();
    if (leadingZeroBits(digest) < difficulty) return { kind: 'invalid', reason: 'insufficient_work' };
    // Spent only after the work checks out, so garbage cannot fill the used set.
    const marked = this.#used.markUsed(buf.toString('base64url', 8, 20), expiresAt, now);
    if (marked === 'used') return { kind: 'replayed' };
    if (marked === 'full') return { kind: 'invalid', reason: 'busy' };
    return { kind: 'valid', difficulty };
  }

  #mac(buf: Buffer, siteId: string): Buffer {
    return createHmac('sha256', this.#key).update(buf.subarray(0, BODY)).update(siteId).digest();
  }
}

export function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}
