import type { FastifyReply } from 'fastify';
import { LIMITS, type SignedIn } from '#engine/accounts';
import { bindRoute, type AnyRoute, type Caller } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import { navigationFor } from '../navigation.ts';
import {
  toAccountView,
  completeLink,
  completeSetup,
  getSession,
  getSetupStatus,
  inspectLink,
  signIn,
  signOut,
  signInSecondFactor,
  type SessionView,
} from '../schemas.ts';
import { secondFactorOf } from './two-factor.routes.ts';

export const SESSION_COOKIE = 'rampart_session';
/**
 * Marks a browser that signed in before, so that other people's failed guesses do not lock it
 * out (see DeviceCookies). Sent only to the sign-in route.
 */
export const DEVICE_COOKIE = 'rampart_device';
const DEVICE_COOKIE_PATH = '/api/v1/session';

export function sessionRoutes(deps: ApiDeps): AnyRoute[] {
  const view = (caller: Caller): SessionView => {
    const found = deps.accounts.sessions.touch(caller.session.id);
    const now = caller.session.lastSeenAt;
    return {
      account: toAccountView(caller.account),
      csrfToken: caller.session.csrfToken,
      idleExpiresAt: found.kind === 'valid' ? found.idleExpiresAt : now,
      absoluteExpiresAt: found.kind === 'valid' ? found.absoluteExpiresAt : now,
      edition: deps.edition,
      version: deps.version,
      smtpConfigured: deps.accounts.mailConfigured,
      navigation: navigationFor(caller.account.role, deps.edition, (m) => deps.licence.isActive(m)),
      twoFactorEnrolmentRequired: deps.accounts.mustEnrolTwoFactor(caller.account),
    };
  };
  // Over TLS the console server marks these cookies Secure (engine/api/server.ts); plain HTTP is served to this host only.
  const startSession = (reply: FastifyReply, signedIn: SignedIn): SessionView => {
    reply.setCookie(SESSION_COOKIE, signedIn.session.id, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
    });
    reply.setCookie(DEVICE_COOKIE, signedIn.deviceToken, {
      path: DEVICE_COOKIE_PATH,
      httpOnly: true,
      sameSite: 'strict',
      maxAge: Math.floor(LIMITS.deviceCookieMs / 1000),
    });
    return view({ account: signedIn.account, session: signedIn.session });
  };

  return [
    bindRoute(getSetupStatus, () => ({ needed: deps.accounts.needsSetup() })),
    bindRoute(completeSetup, async ({ body, reply }) => startSession(reply, await deps.accounts.setup(body))),
    bindRoute(signIn, async ({ body, ip, reply }) => {
      const step = await deps.accounts.beginSignIn(body.email, body.password, ip, reply.request.cookies[DEVICE_COOKIE]);
      if (step.kind === 'secondFactor') {
        return { secondFactorRequired: true as const, challengeId: step.challengeId, expiresAt: step.expiresAt };
      }
      return startSession(reply, step);
    }),
    bindRoute(signInSecondFactor, async ({ body, reply }) =>
      startSession(reply, await deps.accounts.completeSignIn(body.challengeId, secondFactorOf(body))),
    ),
    bindRoute(getSession, ({ caller }) => view(caller!)),
    bindRoute(signOut, ({ caller, reply }) => {
      deps.accounts.signOut(caller!.session.id);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
    }),
    bindRoute(inspectLink, ({ body }) => deps.accounts.inspectLink(body.token)),
    bindRoute(completeLink, async ({ body }) => {
      await deps.accounts.completeLink(body.token, body.password);
    }),
  ];
}
