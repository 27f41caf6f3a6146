import { newSecret, type Clock, type Random } from '#engine/shared';

export interface Session {
  id: string;
  accountId: string;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
}

export type SessionLookup =
  | { kind: 'valid'; session: Session; idleExpiresAt: number; absoluteExpiresAt: number }
  | { kind: 'expired' }
  | { kind: 'unknown' };

/**
 * Console sessions, in memory: a restart signs everyone out, which an appliance operator accepts
 * and which keeps session secrets off the disk. Idle and absolute timeouts both apply.
 */
export class SessionStore {
  readonly #sessions = new Map<string, Session>();

  constructor(
    private readonly clock: Clock,
    private readonly random: Random,
    private idleMs: number,
    private absoluteMs: number,
  ) {}

  /** New timeouts (set on the System page), for new sessions and those already open alike. */
  setTimeouts(idleMs: number, absoluteMs: number): void {
    this.idleMs = idleMs;
    this.absoluteMs = absoluteMs;
  }

  create(accountId: string): Session {
    const now = this.clock.now();
    const session = {
      id: newSecret(this.random),
      accountId,
      csrfToken: newSecret(this.random),
      createdAt: now,
      lastSeenAt: now,
    };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** Looks a session up and, when valid, counts this as activity. */
  touch(id: string): SessionLookup {
    const session = this.#sessions.get(id);
    if (!session) return { kind: 'unknown' };
    const now = this.clock.now();
    if (now - session.lastSeenAt > this.idleMs || now - session.createdAt > this.absoluteMs) {
      this.#sessions.delete(id);
      return { kind: 'expired' };
    }
    session.lastSeenAt = now;
    return {
      kind: 'valid',
      session,
      idleExpiresAt: now + this.idleMs,
      absoluteExpiresAt: session.createdAt + this.absoluteMs,
    };
  }

  delete(id: string): void {
    this.#sessions.delete(id);
  }

  /** Ends every session of an account, except optionally the one making the change. */
  revokeAccount(accountId: string, exceptId?: string): void {
    for (const [id, session] of this.#sessions) {
      if (session.accountId === accountId && id !== exceptId) this.#sessions.delete(id);
    }
  }
}
