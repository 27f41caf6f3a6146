import {
  RampartError,
  newId,
  newSecret,
  sha256,
  MINUTE,
  HOUR,
  DAY,
  type Clock,
  type Random,
  type Logger,
  type Role,
} from '#engine/shared';
import type { ConfigSlice, AccountRecord, LinkPurpose, LinkRecord } from '#engine/config-store';
import { checkPasswordRule, hashPassword, normalisePassword, verifyPassword, DUMMY_HASH } from './password.ts';
import { SlidingWindowLimiter } from './rate-limit.ts';
import { SessionStore, type Session } from './sessions.ts';
import { DeviceCookies, type KnownDevice } from './device-cookies.ts';
import type { Mailer } from './mailer.ts';
import { activationMail, resetMail } from './mail-texts.ts';
import { findRecoveryCode, hashRecoveryCode, matchTotp, newRecoveryCodes, newTotpSecret, otpauthUri } from './totp.ts';

export const LIMITS = {
  activationMailPerAddress: { count: 1, windowMs: 5 * MINUTE },
  newAccounts: { count: 5, windowMs: 5 * MINUTE },
  signInFailuresPerAccount: { count: 5, windowMs: 15 * MINUTE },
  signInFailuresPerIp: { count: 20, windowMs: 15 * MINUTE },
  /** Failures of one known browser (device cookie): they lock only that browser out. */
  signInFailuresPerDevice: { count: 5, windowMs: 15 * MINUTE },
  deviceCookieMs: 365 * DAY,
  activationLinkMs: 24 * HOUR,
  resetLinkMs: 1 * HOUR,
  /** Wrong second-factor codes (sign-in, enrolment, disabling, new recovery codes) per account. */
  twoFactorFailuresPerAccount: { count: 5, windowMs: 15 * MINUTE },
  /** How long the second step of a sign-in may follow the password step. */
  twoFactorChallengeMs: 5 * MINUTE,
  /** How long a started enrolment waits for its first code. */
  twoFactorEnrolmentMs: 30 * MINUTE,
} as const;

export interface AccountServiceDeps {
  /** Accounts, single-use links, the audit trail and the signing secret (device cookies). */
  store: ConfigSlice<'accounts' | 'links' | 'audit' | 'secrets' | 'admin'>;
  clock: Clock;
  random: Random;
  mailer: Mailer;
  logger: Logger;
  /** Base URL the e-mailed links point at, e.g. http://127.0.0.1:9080 */
  publicUrl: string;
  session: { idleMs: number; absoluteMs: number };
}

/** What an administrator learns after an e-mail with a link should have gone out. */
export interface LinkDelivery {
  emailSent: boolean;
  /** Present when the mail could not be sent (no SMTP, or SMTP failed): hand the link over yourself. */
  link: string | null;
  mailError: string | null;
  expiresAt: number;
}

export interface AccountFilter {
  activated?: boolean;
  enabled?: boolean;
}

export interface SignedIn {
  session: Session;
  account: AccountRecord;
  /** A fresh device cookie for this browser: presented at the next sign-in, it is a known device. */
  deviceToken: string;
}

/** The password step of a sign-in: a session, or (two-factor on) a challenge for the second step. */
export type SignInStep =
  ({ kind: 'signedIn' } & SignedIn) | { kind: 'secondFactor'; challengeId: string; expiresAt: number };

/** The second step's proof: a code of the authenticator app, or one of the recovery codes. */
export type SecondFactor = { kind: 'totp'; code: string } | { kind: 'recovery'; code: string };

/** An account's second factor as it may be shown: never the secret, never the hashes. */
export interface TwoFactorStatus {
  enabled: boolean;
  enabledAt: number | null;
  recoveryCodesLeft: number;
  /** The administrators' policy asks this account to have one (and it has none yet when !enabled). */
  required: boolean;
}

/** A started enrolment: what the authenticator app is given. */
export interface TwoFactorEnrolment {
  secret: string;
  otpauthUri: string;
  expiresAt: number;
}

export interface Actor {
  accountId: string;
  sessionId?: string;
}

export type CurrentSession =
  | { kind: 'valid'; session: Session; account: AccountRecord; idleExpiresAt: number; absoluteExpiresAt: number }
  | { kind: 'expired' }
  | { kind: 'none' };

const normaliseEmail = (email: string): string => email.trim().toLowerCase();

function rateLimited(reason: string, retryAfterMs: number, message: string): RampartError {
  const retryAfterSeconds = Math.ceil(retryAfterMs / 1000);
  return new RampartError('RATE_LIMITED', `${message}; try again in ${retryAfterSeconds} s`, {
    params: { reason, retryAfterSeconds },
  });
}

/**
 * Accounts, roles, sessions, passwords and e-mailed links. Every rule of the spec about accounts
 * lives here: the tenant administrator is untouchable, an administrator cannot disable, re-role or
 * delete their own account, e-mails of activated accounts are unique, and the mail and creation
 * rate limits hold.
 */
export class AccountService {
  readonly sessions: SessionStore;
  readonly #deps: AccountServiceDeps;
  readonly #mailPerAddress: SlidingWindowLimiter;
  readonly #newAccounts: SlidingWindowLimiter;
  readonly #failuresPerAccount: SlidingWindowLimiter;
  readonly #failuresPerIp: SlidingWindowLimiter;
  readonly #failuresPerDevice: SlidingWindowLimiter;
  readonly #devices: DeviceCookies;
  readonly #twoFactorFailures: SlidingWindowLimiter;
  /** Enrolments started and not confirmed yet, by account: in memory, like sessions. */
  readonly #enrolments = new Map<string, { secret: string; expiresAt: number }>();
  /** Sign-ins waiting for their second step, by challenge id. */
  readonly #challenges = new Map<string, { accountId: string; expiresAt: number }>();

  constructor(deps: AccountServiceDeps) {
    this.#deps = deps;
    const { clock } = deps;
    this.sessions = new SessionStore(clock, deps.random, deps.session.idleMs, deps.session.absoluteMs);
    this.#mailPerAddress = new SlidingWindowLimiter(
      LIMITS.activationMailPerAddress.count,
      LIMITS.activationMailPerAddress.windowMs,
      clock,
    );
    this.#newAccounts = new SlidingWindowLimiter(LIMITS.newAccounts.count, LIMITS.newAccounts.windowMs, clock);
    this.#failuresPerAccount = new SlidingWindowLimiter(
      LIMITS.signInFailuresPerAccount.count,
      LIMITS.signInFailuresPerAccount.windowMs,
      clock,
    );
    this.#failuresPerIp = new SlidingWindowLimiter(
      LIMITS.signInFailuresPerIp.count,
      LIMITS.signInFailuresPerIp.windowMs,
      clock,
    );
    this.#failuresPerDevice = new SlidingWindowLimiter(
      LIMITS.signInFailuresPerDevice.count,
      LIMITS.signInFailuresPerDevice.windowMs,
      clock,
    );
    this.#twoFactorFailures = new SlidingWindowLimiter(
      LIMITS.twoFactorFailuresPerAccount.count,
      LIMITS.twoFactorFailuresPerAccount.windowMs,
      clock,
    );
    this.#devices = new DeviceCookies(deps.store.data.secrets.tokenKey, clock, deps.random, LIMITS.deviceCookieMs);
  }

  get #accounts(): readonly AccountRecord[] {
    return this.#deps.store.data.accounts;
  }

  needsSetup(): boolean {
    return this.#accounts.length === 0;
  }

  get mailConfigured(): boolean {
    return this.#deps.mailer.configured;
  }

  /** First-run setup: creates the tenant administrator and signs them in. */
  async setup(input: { email: string; password: string }): Promise<SignedIn> {
    const passwordHash = await hashPassword(checkPasswordRule(input.password));
    const now = this.#deps.clock.now();
    const account = await this.#deps.store.update((doc) => {
      if (doc.accounts.length > 0) {
        throw new RampartError('SETUP_ALREADY_DONE', 'First-run setup has already been completed; sign in instead');
      }
      const email = normaliseEmail(input.email);
      const record: AccountRecord = {
        id: newId('acc', this.#deps.random),
        email,
        name: email,
        role: 'administrator',
        tenant: true,
        activated: true,
        enabled: true,
        passwordHash,
        createdAt: now,
        activatedAt: now,
        passwordChangedAt: now,
        lastSignInAt: now,
        twoFactor: null,
      };
      doc.accounts.push(record);
      doc.audit.push({ at: now, actorId: record.id, action: 'setup', targetId: record.id });
      return record;
    });
    return { session: this.sessions.create(account.id), account, deviceToken: this.#devices.issue(account.id) };
  }

  /**
   * Signs in an account without a second factor. An account with one cannot sign in this way
   * (TWO_FACTOR_REQUIRED): `beginSignIn` and `completeSignIn` are its two steps.
   */
  async signIn(emailInput: string, password: string, ip: string, deviceToken?: string): Promise<SignedIn> {
    const step = await this.beginSignIn(emailInput, password, ip, deviceToken);
    if (step.kind === 'secondFactor') {
      this.#challenges.delete(step.challengeId);
      throw new RampartError('TWO_FACTOR_REQUIRED', 'This account signs in with a second factor as well');
    }
    return { session: step.session, account: step.account, deviceToken: step.deviceToken };
  }

  /**
   * The password step of a sign-in. `deviceToken` is the device cookie the browser holds, if any: a
   * browser that signed in to this account before counts only its own failures (at most 5 per 15
   * minutes), so the lockout that failures from unknown browsers cause (per account and per IP)
   * does not reach it. An account with two-factor on gets a challenge (5 minutes, single-use)
   * instead of a session.
   */
  async beginSignIn(emailInput: string, password: string, ip: string, deviceToken?: string): Promise<SignInStep> {
    const email = normaliseEmail(emailInput);
    const account = this.#accounts.find((a) => a.email === email && a.activated);
    const device = account ? this.#devices.verify(deviceToken, account.id) : null;
    this.#checkSignInLimits(email, ip, device);
    const matches = await verifyPassword(password, account?.passwordHash ?? DUMMY_HASH);
    if (!account || !matches) {
      if (device) {
        this.#failuresPerDevice.hit(device.nonce);
      } else {
        this.#failuresPerIp.hit(ip);
        this.#failuresPerAccount.hit(email);
      }
      this.#deps.logger.warn({ email, ip, knownDevice: device !== null }, 'sign-in failed');
      throw new RampartError('INVALID_CREDENTIALS', 'E-mail or password is wrong');
    }
    if (!account.enabled)
      throw new RampartError('ACCOUNT_DISABLED', 'This account is disabled; ask an administrator to enable it');
    // A known device's success says nothing about the unknown browsers still guessing: their
    // lockout stands.
    if (device) this.#failuresPerDevice.reset(device.nonce);
    else this.#failuresPerAccount.reset(email);
    if (account.twoFactor) {
      const now = this.#deps.clock.now();
      this.#sweep(now);
      const challengeId = newSecret(this.#deps.random);
      const expiresAt = now + LIMITS.twoFactorChallengeMs;
      this.#challenges.set(challengeId, { accountId: account.id, expiresAt });
      return { kind: 'secondFactor', challengeId, expiresAt };
    }
    return { kind: 'signedIn', ...(await this.#startSession(account.id)) };
  }

  /**
   * The second step: a code of the authenticator app (each accepted once) or an unused recovery
   * code, within 5 minutes of the password step. Wrong codes count against the account (5 per 15
   * minutes); the challenge stays usable until it succeeds or expires.
   */
  async completeSignIn(challengeId: string, factor: SecondFactor): Promise<SignedIn> {
    const now = this.#deps.clock.now();
    this.#sweep(now);
    const challenge = this.#challenges.get(challengeId);
    const account = challenge && this.#accounts.find((a) => a.id === challenge.accountId);
    if (!challenge || !account?.enabled || !account.twoFactor) {
      this.#challenges.delete(challengeId);
      throw challengeInvalid();
    }
    await this.#useSecondFactor(account.id, factor);
    // Single use: of two calls racing with good codes, only the first gets a session.
    if (!this.#challenges.delete(challengeId)) throw challengeInvalid();
    return this.#startSession(account.id);
  }

  async #startSession(accountId: string): Promise<SignedIn> {
    const now = this.#deps.clock.now();
    const updated = await this.#deps.store.update((doc) => {
      const a = mustFind(doc.accounts, accountId);
      a.lastSignInAt = now;
      return { ...a };
    });
    return {
      session: this.sessions.create(accountId),
      account: updated,
      deviceToken: this.#devices.issue(accountId),
    };
  }

  #sweep(now: number): void {
    for (const [id, c] of this.#challenges) if (c.expiresAt <= now) this.#challenges.delete(id);
    for (const [id, e] of this.#enrolments) if (e.expiresAt <= now) this.#enrolments.delete(id);
  }

  /**
   * Checks a second factor and uses it up: a TOTP code's step becomes the last one used, a recovery
   * code is removed. Wrong ones count against the account; too many answer RATE_LIMITED.
   */
  async #useSecondFactor(accountId: string, factor: SecondFactor): Promise<void> {
    const verdict = this.#twoFactorFailures.check(accountId);
    if (!verdict.allowed) throw rateLimited('twoFactor', verdict.retryAfterMs, 'Too many wrong codes');
    const now = this.#deps.clock.now();
    // Checked against the document as it is when the change applies, so two calls with one code
    // cannot both pass.
    const accepted = await this.#deps.store.update((doc) => {
      const twoFactor = mustFind(doc.accounts, accountId).twoFactor;
      if (!twoFactor) return false;
      if (factor.kind === 'totp') {
        const step = matchTotp(twoFactor.secret, factor.code, now, twoFactor.lastUsedStep);
        if (step === null) return false;
        twoFactor.lastUsedStep = step;
        return true;
      }
      const index = findRecoveryCode(twoFactor.recoveryCodeHashes, factor.code);
      if (index === -1) return false;
      twoFactor.recoveryCodeHashes.splice(index, 1);
      return true;
    });
    if (!accepted) {
      this.#twoFactorFailures.hit(accountId);
      this.#deps.logger.warn({ accountId, kind: factor.kind }, 'second factor refused');
      throw codeWrong(factor.kind === 'totp' ? 'code' : 'recoveryCode');
    }
    this.#twoFactorFailures.reset(accountId);
  }

  /** Whether an account has two-factor on, its recovery codes left, and whether policy asks for it. */
  twoFactorStatus(accountId: string): TwoFactorStatus {
    const account = this.get(accountId);
    return {
      enabled: account.twoFactor !== null,
      enabledAt: account.twoFactor?.enabledAt ?? null,
      recoveryCodesLeft: account.twoFactor?.recoveryCodeHashes.length ?? 0,
      required: this.#policyCovers(account),
    };
  }

  /**
   * Whether this account's sessions are held to enrolment: administrators must have a second
   * factor (the System page's setting) and this one has none yet.
   */
  mustEnrolTwoFactor(account: AccountRecord): boolean {
    return this.#policyCovers(account) && account.twoFactor === null;
  }

  #policyCovers(account: AccountRecord): boolean {
    return account.role === 'administrator' && this.#deps.store.data.admin.requireTwoFactorForAdmins;
  }

  /**
   * Starts enrolment: a new secret, kept here (not stored) until a code of it is confirmed. Starting
   * again replaces it.
   */
  startTwoFactor(actor: Actor): TwoFactorEnrolment {
    const account = this.get(actor.accountId);
    if (account.twoFactor) throw alreadyOn();
    const now = this.#deps.clock.now();
    this.#sweep(now);
    const secret = newTotpSecret(this.#deps.random);
    const expiresAt = now + LIMITS.twoFactorEnrolmentMs;
    this.#enrolments.set(account.id, { secret, expiresAt });
    return { secret, otpauthUri: otpauthUri(secret, account.email), expiresAt };
  }

  /**
   * Confirms enrolment with a current code of the new secret: two-factor is on, and the recovery
   * codes are returned (the only time they are). Other sessions of the account end.
   */
  async confirmTwoFactor(actor: Actor, code: string): Promise<{ recoveryCodes: string[] }> {
    const now = this.#deps.clock.now();
    this.#sweep(now);
    const pending = this.#enrolments.get(actor.accountId);
    if (this.get(actor.accountId).twoFactor) throw alreadyOn();
    if (!pending) {
      throw new RampartError(
        'TWO_FACTOR_NOT_STARTED',
        'No enrolment is waiting for a code (it expires after 30 minutes); start again',
      );
    }
    const verdict = this.#twoFactorFailures.check(actor.accountId);
    if (!verdict.allowed) throw rateLimited('twoFactor', verdict.retryAfterMs, 'Too many wrong codes');
    const step = matchTotp(pending.secret, code, now, -1);
    if (step === null) {
      this.#twoFactorFailures.hit(actor.accountId);
      throw codeWrong('code');
    }
    const recoveryCodes = newRecoveryCodes(this.#deps.random);
    await this.#mutate(actor, actor.accountId, 'account.twoFactor.enable', (a) => {
      if (a.twoFactor) throw alreadyOn();
      a.twoFactor = {
        secret: pending.secret,
        enabledAt: now,
        recoveryCodeHashes: recoveryCodes.map(hashRecoveryCode),
        lastUsedStep: step,
      };
    });
    this.#enrolments.delete(actor.accountId);
    this.#twoFactorFailures.reset(actor.accountId);
    this.sessions.revokeAccount(actor.accountId, actor.sessionId);
    return { recoveryCodes };
  }

  /** Turns one's own two-factor off: the current password and a code (or a recovery code). */
  async disableTwoFactor(actor: Actor, currentPassword: string, factor: SecondFactor): Promise<void> {
    const account = this.get(actor.accountId);
    if (!account.twoFactor) throw notOn();
    const verdict = this.#twoFactorFailures.check(account.id);
    if (!verdict.allowed) throw rateLimited('twoFactor', verdict.retryAfterMs, 'Too many wrong codes');
    if (!(await verifyPassword(currentPassword, account.passwordHash ?? DUMMY_HASH))) {
      this.#twoFactorFailures.hit(account.id);
      throw new RampartError('PASSWORD_WRONG', 'currentPassword: is not your current password', {
        field: 'currentPassword',
      });
    }
    await this.#useSecondFactor(account.id, factor);
    await this.#mutate(actor, account.id, 'account.twoFactor.disable', (a) => {
      a.twoFactor = null;
    });
  }

  /** New recovery codes for one's own account (the old ones stop working), given a current code. */
  async regenerateRecoveryCodes(actor: Actor, code: string): Promise<{ recoveryCodes: string[] }> {
    if (!this.get(actor.accountId).twoFactor) throw notOn();
    await this.#useSecondFactor(actor.accountId, { kind: 'totp', code });
    const recoveryCodes = newRecoveryCodes(this.#deps.random);
    await this.#mutate(actor, actor.accountId, 'account.twoFactor.recoveryCodes', (a) => {
      if (!a.twoFactor) throw notOn();
      a.twoFactor.recoveryCodeHashes = recoveryCodes.map(hashRecoveryCode);
    });
    return { recoveryCodes };
  }

  /**
   * An administrator turns another account's two-factor off (a lost phone); its owner enrols again.
   * Not one's own: that takes the password and a code (`disableTwoFactor`).
   */
  async resetTwoFactor(actor: Actor, id: string): Promise<AccountRecord> {
    const target = this.get(id);
    if (target.id === actor.accountId) {
      throw new RampartError('OWN_ACCOUNT_PROTECTED', 'You cannot reset the two-factor sign-in of your own account', {
        field: 'id',
        params: { verb: 'reset the two-factor sign-in of' },
      });
    }
    if (!target.twoFactor) throw notOn();
    const updated = await this.#mutate(actor, id, 'account.twoFactor.reset', (a) => {
      a.twoFactor = null;
    });
    for (const [challengeId, c] of this.#challenges) if (c.accountId === id) this.#challenges.delete(challengeId);
    return updated;
  }

  #checkSignInLimits(email: string, ip: string, device: KnownDevice | null): void {
    const limits = device
      ? ([[this.#failuresPerDevice, device.nonce, 'signInDevice']] as const)
      : ([
          [this.#failuresPerIp, ip, 'signInIp'],
          [this.#failuresPerAccount, email, 'signInAccount'],
        ] as const);
    for (const [limiter, key, reason] of limits) {
      const verdict = limiter.check(key);
      if (!verdict.allowed) throw rateLimited(reason, verdict.retryAfterMs, 'Too many failed sign-in attempts');
    }
  }

  current(sessionId: string | undefined): CurrentSession {
    if (!sessionId) return { kind: 'none' };
    const found = this.sessions.touch(sessionId);
    if (found.kind === 'unknown') return { kind: 'none' };
    if (found.kind === 'expired') return { kind: 'expired' };
    const account = this.#accounts.find((a) => a.id === found.session.accountId);
    if (!account || !account.enabled) {
      this.sessions.delete(sessionId);
      return { kind: 'none' };
    }
    return {
      kind: 'valid',
      session: found.session,
      account,
      idleExpiresAt: found.idleExpiresAt,
      absoluteExpiresAt: found.absoluteExpiresAt,
    };
  }

  signOut(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  get(id: string): AccountRecord {
    const account = this.#accounts.find((a) => a.id === id);
    if (!account) throw new RampartError('NOT_FOUND', `No account with ID ${id}`, { field: 'id', params: { id } });
    return account;
  }

  list(filter: AccountFilter = {}): AccountRecord[] {
    return this.#accounts
      .filter((a) => filter.activated === undefined || a.activated === filter.activated)
      .filter((a) => filter.enabled === undefined || a.enabled === filter.enabled)
      .toSorted((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id));
  }

  /**
   * Creates an account awaiting activation and e-mails its activation link. Creating an address
   * that is still awaiting activation sends a fresh link (and takes the new role) instead.
   */
  async create(
    actor: Actor,
    input: { email: string; role: Role },
  ): Promise<{ account: AccountRecord; delivery: LinkDelivery }> {
    const email = normaliseEmail(input.email);
    const existing = this.#accounts.find((a) => a.email === email);
    if (existing?.activated) {
      throw new RampartError('EMAIL_IN_USE', `${email} already belongs to an activated account`, { field: 'email' });
    }
    this.#checkMailLimit(email);
    if (!existing) {
      const verdict = this.#newAccounts.check('tenant');
      if (!verdict.allowed) {
        throw rateLimited(
          'newAccounts',
          verdict.retryAfterMs,
          `At most ${LIMITS.newAccounts.count} new accounts may be created per 5 minutes`,
        );
      }
    }
    const now = this.#deps.clock.now();
    const account = await this.#deps.store.update((doc) => {
      const pending = doc.accounts.find((a) => a.email === email);
      if (pending) {
        pending.role = input.role;
        return { ...pending };
      }
      const record: AccountRecord = {
        id: newId('acc', this.#deps.random),
        email,
        name: email,
        role: input.role,
        tenant: false,
        activated: false,
        enabled: true,
        passwordHash: null,
        createdAt: now,
        activatedAt: null,
        passwordChangedAt: null,
        lastSignInAt: null,
        twoFactor: null,
      };
      doc.accounts.push(record);
      doc.audit.push({ at: now, actorId: actor.accountId, action: 'account.create', targetId: record.id });
      return { ...record };
    });
    if (!existing) this.#newAccounts.hit('tenant');
    const delivery = await this.#issueLink(account, 'activate');
    return { account, delivery };
  }

  async resendActivation(actor: Actor, id: string): Promise<LinkDelivery> {
    const account = this.get(id);
    if (account.activated) {
      throw new RampartError('VALIDATION_FAILED', 'This account is already activated', { field: 'id' });
    }
    this.#checkMailLimit(account.email);
    await this.#audit(actor, 'account.resendActivation', id);
    return this.#issueLink(account, 'activate');
  }

  async setEnabled(actor: Actor, id: string, enabled: boolean): Promise<AccountRecord> {
    this.#guardOthers(actor, id, enabled ? 'enable' : 'disable');
    const updated = await this.#mutate(actor, id, enabled ? 'account.enable' : 'account.disable', (a) => {
      a.enabled = enabled;
    });
    if (!enabled) this.sessions.revokeAccount(id);
    return updated;
  }

  async setRole(actor: Actor, id: string, role: Role): Promise<AccountRecord> {
    this.#guardOthers(actor, id, 'change the permission of');
    return this.#mutate(actor, id, 'account.role', (a) => {
      a.role = role;
    });
  }

  async sendPasswordReset(actor: Actor, id: string): Promise<LinkDelivery> {
    const account = this.get(id);
    if (account.tenant) throw tenantProtected('reset the password of');
    if (!account.activated) {
      throw new RampartError(
        'ACCOUNT_NOT_ACTIVATED',
        'This account is not activated yet; resend its activation e-mail instead',
        { field: 'id' },
      );
    }
    this.#checkMailLimit(account.email);
    await this.#audit(actor, 'account.passwordReset', id);
    return this.#issueLink(account, 'reset');
  }

  async remove(actor: Actor, id: string): Promise<void> {
    this.#guardOthers(actor, id, 'delete');
    await this.#deps.store.update((doc) => {
      const index = doc.accounts.findIndex((a) => a.id === id);
      if (index === -1) throw new RampartError('NOT_FOUND', `No account with ID ${id}`, { field: 'id' });
      doc.accounts.splice(index, 1);
      doc.links = doc.links.filter((l) => l.accountId !== id);
      doc.audit.push({ at: this.#deps.clock.now(), actorId: actor.accountId, action: 'account.delete', targetId: id });
    });
    this.sessions.revokeAccount(id);
  }

  /** What an e-mailed link is for, so the page can say "activate x@y" before asking for a password. */
  inspectLink(token: string): { purpose: LinkPurpose; email: string; expiresAt: number } {
    const { link, account } = this.#resolveLink(token);
    return { purpose: link.purpose, email: account.email, expiresAt: link.expiresAt };
  }

  /** The account an e-mailed link belongs to, while the link is usable (the audit trail names who used it). */
  linkAccountId(token: string): string | undefined {
    try {
      return this.#resolveLink(token).account.id;
    } catch {
      return undefined;
    }
  }

  /** Uses a link once: sets the password and, for an activation link, activates the account. */
  async completeLink(token: string, password: string): Promise<AccountRecord> {
    const { link } = this.#resolveLink(token);
    const passwordHash = await hashPassword(checkPasswordRule(password));
    const now = this.#deps.clock.now();
    const account = await this.#deps.store.update((doc) => {
      const stored = doc.links.find((l) => l.tokenHash === link.tokenHash);
      if (!stored) throw new RampartError('LINK_INVALID', 'This link has already been used or replaced by a newer one');
      doc.links = doc.links.filter((l) => l !== stored);
      const a = mustFind(doc.accounts, stored.accountId);
      a.passwordHash = passwordHash;
      a.passwordChangedAt = now;
      if (stored.purpose === 'activate') {
        if (doc.accounts.some((o) => o.id !== a.id && o.activated && o.email === a.email)) {
          throw new RampartError('EMAIL_IN_USE', `${a.email} already belongs to an activated account`, {
            field: 'email',
          });
        }
        a.activated = true;
        a.activatedAt = now;
      }
      doc.audit.push({ at: now, actorId: a.id, action: `link.${stored.purpose}`, targetId: a.id });
      return { ...a };
    });
    this.sessions.revokeAccount(account.id);
    return account;
  }

  async changePassword(actor: Actor, currentPassword: string, newPassword: string): Promise<void> {
    const account = this.get(actor.accountId);
    if (!(await verifyPassword(currentPassword, account.passwordHash ?? DUMMY_HASH))) {
      throw new RampartError('PASSWORD_WRONG', 'currentPassword: is not your current password', {
        field: 'currentPassword',
      });
    }
    const accepted = checkPasswordRule(newPassword, 'newPassword');
    if (accepted === normalisePassword(currentPassword)) {
      throw new RampartError('VALIDATION_FAILED', 'newPassword: must differ from the current password', {
        field: 'newPassword',
      });
    }
    const passwordHash = await hashPassword(accepted);
    await this.#mutate(actor, actor.accountId, 'account.password', (a) => {
      a.passwordHash = passwordHash;
      a.passwordChangedAt = this.#deps.clock.now();
    });
    this.sessions.revokeAccount(actor.accountId, actor.sessionId);
  }

  #guardOthers(actor: Actor, id: string, verb: string): void {
    const target = this.get(id);
    if (target.tenant) throw tenantProtected(verb);
    if (target.id === actor.accountId) {
      throw new RampartError('OWN_ACCOUNT_PROTECTED', `You cannot ${verb} your own account`, {
        field: 'id',
        params: { verb },
      });
    }
  }

  #checkMailLimit(email: string): void {
    const verdict = this.#mailPerAddress.check(email);
    if (!verdict.allowed) {
      throw rateLimited(
        'activationMail',
        verdict.retryAfterMs,
        `An e-mail was sent to ${email} less than 5 minutes ago`,
      );
    }
  }

  async #issueLink(account: AccountRecord, purpose: LinkPurpose): Promise<LinkDelivery> {
    const token = newSecret(this.#deps.random);
    const now = this.#deps.clock.now();
    const expiresAt = now + (purpose === 'activate' ? LIMITS.activationLinkMs : LIMITS.resetLinkMs);
    const record: LinkRecord = { tokenHash: sha256(token), accountId: account.id, purpose, createdAt: now, expiresAt };
    await this.#deps.store.update((doc) => {
      // A new link replaces older ones of the same purpose; expired links are swept on the way.
      doc.links = doc.links.filter((l) => !(l.accountId === account.id && l.purpose === purpose) && l.expiresAt > now);
      doc.links.push(record);
    });
    this.#mailPerAddress.hit(account.email);
    const path = purpose === 'activate' ? 'activate' : 'reset-password';
    const link = `${this.#deps.publicUrl}/${path}?token=${token}`;
    if (!this.#deps.mailer.configured) return { emailSent: false, link, mailError: null, expiresAt };
    const mail = purpose === 'activate' ? activationMail(link, expiresAt) : resetMail(link, expiresAt);
    try {
      await this.#deps.mailer.send({ to: account.email, ...mail });
      return { emailSent: true, link: null, mailError: null, expiresAt };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#deps.logger.error({ err: message, to: account.email }, 'sending account e-mail failed');
      return { emailSent: false, link, mailError: message.slice(0, 300), expiresAt };
    }
  }

  #resolveLink(token: string): { link: LinkRecord; account: AccountRecord } {
    const hash = sha256(token);
    const link = this.#deps.store.data.links.find((l) => l.tokenHash === hash);
    if (!link)
      throw new RampartError(
        'LINK_INVALID',
        'This link is not valid: it was already used, replaced by a newer one, or mistyped',
      );
    if (link.expiresAt <= this.#deps.clock.now()) {
      throw new RampartError('LINK_EXPIRED', 'This link has expired; ask an administrator to send a new one');
    }
    const account = this.#accounts.find((a) => a.id === link.accountId);
    if (!account) throw new RampartError('LINK_INVALID', 'The account of this link no longer exists');
    return { link, account };
  }

  async #mutate(actor: Actor, id: string, action: string, change: (a: AccountRecord) => void): Promise<AccountRecord> {
    const now = this.#deps.clock.now();
    return this.#deps.store.update((doc) => {
      const a = mustFind(doc.accounts, id);
      change(a);
      doc.audit.push({ at: now, actorId: actor.accountId, action, targetId: id });
      return { ...a };
    });
  }

  async #audit(actor: Actor, action: string, targetId: string): Promise<void> {
    const now = this.#deps.clock.now();
    await this.#deps.store.update((doc) => {
      doc.audit.push({ at: now, actorId: actor.accountId, action, targetId });
    });
  }
}

function mustFind(accounts: AccountRecord[], id: string): AccountRecord {
  const account = accounts.find((a) => a.id === id);
  if (!account) throw new RampartError('NOT_FOUND', `No account with ID ${id}`, { field: 'id', params: { id } });
  return account;
}

function challengeInvalid(): RampartError {
  return new RampartError(
    'TWO_FACTOR_CHALLENGE_INVALID',
    'challengeId: this sign-in has expired or was already completed; sign in with your password again',
    { field: 'challengeId' },
  );
}

function codeWrong(field: 'code' | 'recoveryCode'): RampartError {
  const message =
    field === 'code'
      ? 'code: is not the current code of your authenticator app, or was already used; wait for the next one'
      : 'recoveryCode: is not one of your unused recovery codes';
  return new RampartError('TWO_FACTOR_CODE_WRONG', message, { field });
}

function alreadyOn(): RampartError {
  return new RampartError('TWO_FACTOR_ALREADY_ON', 'Two-factor sign-in is already on for this account');
}

function notOn(): RampartError {
  return new RampartError('TWO_FACTOR_OFF', 'Two-factor sign-in is not on for this account', { field: 'id' });
}

function tenantProtected(verb: string): RampartError {
  return new RampartError(
    'TENANT_ACCOUNT_PROTECTED',
    `The tenant administrator account cannot be changed: you cannot ${verb} it`,
    {
      field: 'id',
      params: { verb },
    },
  );
}
