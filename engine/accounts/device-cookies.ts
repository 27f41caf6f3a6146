import { createHmac } from 'node:crypto';
import { newSecret, safeEqual, type Clock, type Random } from '#engine/shared';

/** A device cookie that checked out: the browser signed in to this account before. */
export interface KnownDevice {
  /** Names this device in the failure counters; unique per issued cookie. */
  nonce: string;
}

/**
 * Device cookies, after OWASP's "Slow Down Online Guessing Attacks with Device Cookies": a
 * browser that signed in to an account gets a token naming that account, signed by the engine.
 * Sign-in failures from unknown browsers lock unknown browsers out of the account; a browser
 * presenting its token answers only for its own failures, so nobody else's guessing locks the
 * owner out. The token is stateless (`accountId.nonce.issuedAt.signature`), so nothing is stored
 * per device; it expires after `lifetimeMs` whatever the cookie's own expiry says.
 */
export class DeviceCookies {
  readonly #key: Buffer;

  constructor(
    signingSecret: string,
    private readonly clock: Clock,
    private readonly random: Random,
    readonly lifetimeMs: number,
  ) {
    // A key of its own, derived from the engine's signing secret, so these signatures cannot be
    // confused with the tokens the same secret signs elsewhere.
    this.#key = createHmac('sha256', signingSecret).update('rampart:device-cookie:v1').digest();
  }

  issue(accountId: string): string {
    const body = `${accountId}.${newSecret(this.random)}.${this.clock.now().toString(36)}`;
    return `${body}.${this.#sign(body)}`;
  }

  /** The device, when `token` is a genuine, unexpired cookie issued to `accountId`; otherwise null. */
  verify(token: string | undefined, accountId: string): KnownDevice | null {
    if (!token || token.length > 256) return null;
    const parts = token.split('.');
    if (parts.length !== 4) return null;
    const [account, nonce, issued, signature] = parts as [string, string, string, string];
    if (!safeEqual(signature, this.#sign(`${account}.${nonce}.${issued}`))) return null;
    if (account !== accountId) return null;
    const issuedAt = parseInt(issued, 36);
    const age = this.clock.now() - issuedAt;
    if (!Number.isFinite(issuedAt) || age < 0 || age > this.lifetimeMs) return null;
    return { nonce };
  }

  #sign(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }
}
