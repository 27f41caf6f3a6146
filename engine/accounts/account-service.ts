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
} as const;

export interface AccountServiceDeps {
  /** Accounts, single-use links, the audit trail and the signing secret (device cookies). */
  store: ConfigSlice<'accounts' | 'links' | 'audit' | 'secrets'>;
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
   * Signs in. `deviceToken` is the device cookie the browser holds, if any: a browser that signed
   * in to this account before counts only its own failures (at most 5 per 15 minutes), so the
   * lockout that failures from unknown browsers cause (per account and per IP) does not reach it.
   */
  async signIn(emailInput: string, password: string, ip: string, deviceToken?: string): Promise<SignedIn> {
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
    const now = this.#deps.clock.now();
    const updated = await this.#deps.store.update((doc) => {
      const a = mustFind(doc.accounts, account.id);
      a.lastSignInAt = now;
      return { ...a };
    });
    return {
      session: this.sessions.create(account.id),
      account: updated,
      deviceToken: this.#devices.issue(account.id),
    };
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
