import { z } from 'zod';
import type { FastifyReply } from 'fastify';
import { LIMITS, type SignedIn } from '#engine/accounts';
import { defineRoute, type AnyRoute, type Caller } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import { email, password, sessionView, toAccountView, linkToken } from '../schemas.ts';
import { navigationFor } from '../navigation.ts';

export const SESSION_COOKIE = 'rampart_session';
/**
 * Marks a browser that signed in before, so that other people's failed guesses do not lock it
 * out (see DeviceCookies). Sent only to the sign-in route.
 */
export const DEVICE_COOKIE = 'rampart_device';
const DEVICE_COOKIE_PATH = '/api/v1/session';

type SessionView = z.infer<typeof sessionView>;

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
    };
  };
  const startSession = (reply: FastifyReply, signedIn: SignedIn): SessionView => {
    reply.setCookie(SESSION_COOKIE, signedIn.session.id, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      secure: deps.secureCookies,
    });
    reply.setCookie(DEVICE_COOKIE, signedIn.deviceToken, {
      path: DEVICE_COOKIE_PATH,
      httpOnly: true,
      sameSite: 'strict',
      secure: deps.secureCookies,
      maxAge: Math.floor(LIMITS.deviceCookieMs / 1000),
    });
    return view({ account: signedIn.account, session: signedIn.session });
  };

  return [
    defineRoute({
      method: 'GET',
      path: '/setup',
      operationId: 'getSetupStatus',
      summary: 'Whether first-run setup is still needed',
      tag: 'session',
      access: 'public',
      response: z.object({ needed: z.boolean() }),
      handler: () => ({ needed: deps.accounts.needsSetup() }),
    }),
    defineRoute({
      method: 'POST',
      path: '/setup',
      operationId: 'completeSetup',
      summary: 'Create the tenant administrator (only while no account exists) and sign in',
      tag: 'session',
      access: 'public',
      body: z.object({ email, password }).strict(),
      status: 201,
      response: sessionView,
      handler: async ({ body, reply }) => startSession(reply, await deps.accounts.setup(body)),
    }),
    defineRoute({
      method: 'POST',
      path: '/session',
      operationId: 'signIn',
      summary: 'Sign in with e-mail and password',
      tag: 'session',
      access: 'public',
      body: z.object({ email, password }).strict(),
      response: sessionView,
      handler: async ({ body, ip, reply }) =>
        startSession(
          reply,
          await deps.accounts.signIn(body.email, body.password, ip, reply.request.cookies[DEVICE_COOKIE]),
        ),
    }),
    defineRoute({
      method: 'GET',
      path: '/session',
      operationId: 'getSession',
      summary: 'The current session: account, CSRF token, menus',
      tag: 'session',
      access: 'signedIn',
      response: sessionView,
      handler: ({ caller }) => view(caller!),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/session',
      operationId: 'signOut',
      summary: 'Sign out',
      tag: 'session',
      access: 'signedIn',
      status: 204,
      handler: ({ caller, reply }) => {
        deps.accounts.signOut(caller!.session.id);
        reply.clearCookie(SESSION_COOKIE, { path: '/' });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/links/inspect',
      operationId: 'inspectLink',
      summary: 'What an e-mailed activation or reset link is for',
      tag: 'session',
      access: 'public',
      body: z.object({ token: linkToken }).strict(),
      response: z.object({ purpose: z.enum(['activate', 'reset']), email: z.string(), expiresAt: z.number() }),
      handler: ({ body }) => deps.accounts.inspectLink(body.token),
    }),
    defineRoute({
      method: 'POST',
      path: '/links/complete',
      operationId: 'completeLink',
      summary: 'Use an activation or reset link: set the password',
      tag: 'session',
      access: 'public',
      body: z.object({ token: linkToken, password }).strict(),
      status: 204,
      handler: async ({ body }) => {
        await deps.accounts.completeLink(body.token, body.password);
      },
    }),
  ];
}
