/**
 * Who is signed in. The session cookie is HttpOnly, so the console learns its state from
 * GET /session (401: not signed in) and GET /setup (first-run setup still needed). The CSRF token of
 * the session view goes on every write through the shared ApiClient.
 */
import { SvelteSet } from 'svelte/reactivity';
import type { ApiClient, ApiError } from './api.ts';
import {
  completeSetup,
  getSession,
  getSetupStatus,
  signIn,
  signInSecondFactor,
  signOut,
  type MenuItem,
  type SecondFactorChallenge,
  type SessionView,
} from './contracts.ts';
import type { MessageKey } from './i18n.svelte.ts';

export type SessionState = 'loading' | 'setup' | 'signedOut' | 'signedIn' | 'unreachable';

export class SessionStore {
  state = $state<SessionState>('loading');
  view = $state<SessionView | null>(null);
  /** A message for the sign-in page: why the person is there (session expired, signed out...). */
  notice = $state<MessageKey | null>(null);
  readonly #api: ApiClient;

  constructor(api: ApiClient) {
    this.#api = api;
  }

  get navigation(): MenuItem[] {
    return this.view?.navigation ?? [];
  }

  /** Every menu path the session may open, children included. */
  get allowedPaths(): Set<string> {
    const paths = new SvelteSet<string>();
    const walk = (items: MenuItem[]): void => {
      for (const item of items) {
        paths.add(item.path);
        if (item.children) walk(item.children);
      }
    };
    walk(this.navigation);
    return paths;
  }

  async load(): Promise<void> {
    try {
      this.#signedIn(await this.#api.call(getSession, {}, { quiet401: true }));
    } catch (error) {
      if ((error as ApiError).status === 401) {
        await this.#signedOutOrSetup();
      } else {
        this.state = 'unreachable';
      }
    }
  }

  /** The password step: signed in, or (two-factor on) the challenge the code step sends back. */
  async signIn(email: string, password: string): Promise<SecondFactorChallenge | null> {
    const answer = await this.#api.call(signIn, { body: { email, password } });
    if ('secondFactorRequired' in answer) return answer;
    this.#signedIn(answer);
    this.notice = null;
    return null;
  }

  /** The second step of a sign-in with two-factor on: a code of the authenticator app or a recovery code. */
  async completeSignIn(challengeId: string, factor: { code: string } | { recoveryCode: string }): Promise<void> {
    this.#signedIn(await this.#api.call(signInSecondFactor, { body: { challengeId, ...factor } }));
    this.notice = null;
  }

  /** The policy holds this session to two-factor enrolment (administrators, System settings). */
  get twoFactorEnrolmentRequired(): boolean {
    return this.view?.twoFactorEnrolmentRequired ?? false;
  }

  /** Enrolment confirmed: the session is no longer held to it. */
  async reload(): Promise<void> {
    this.#signedIn(await this.#api.call(getSession, {}));
  }

  async completeSetup(email: string, password: string): Promise<void> {
    this.#signedIn(await this.#api.call(completeSetup, { body: { email, password } }));
  }

  async signOut(): Promise<void> {
    try {
      await this.#api.call(signOut, {}, { quiet401: true });
    } finally {
      this.#clear('signIn.signedOut');
    }
  }

  /** The engine answered 401 to a signed-in request: the session is gone. */
  lost(error: ApiError): void {
    if (this.state !== 'signedIn') return;
    this.#clear(error.code === 'SESSION_EXPIRED' ? 'signIn.sessionExpired' : 'error.UNAUTHENTICATED');
  }

  /** After a password change made elsewhere, or a visit to a link page: start from the sign-in page. */
  expectSignIn(notice: MessageKey | null): void {
    this.view = null;
    this.#api.csrfToken = null;
    this.notice = notice;
    this.state = 'signedOut';
  }

  #clear(notice: MessageKey): void {
    this.view = null;
    this.#api.csrfToken = null;
    this.notice = notice;
    this.state = 'signedOut';
  }

  #signedIn(view: SessionView): void {
    this.view = view;
    this.#api.csrfToken = view.csrfToken;
    this.state = 'signedIn';
  }

  async #signedOutOrSetup(): Promise<void> {
    try {
      const { needed } = await this.#api.call(getSetupStatus);
      this.state = needed ? 'setup' : 'signedOut';
    } catch {
      this.state = 'unreachable';
    }
  }
}
