import { z } from 'zod';
import { defineContract } from './contract.ts';
import { email, linkToken, password, sessionView } from './common.schema.ts';
import { secondFactorChallenge } from './two-factor.contract.ts';

export const getSetupStatus = defineContract({
  method: 'GET',
  path: '/setup',
  operationId: 'getSetupStatus',
  summary: 'Whether first-run setup is still needed',
  tag: 'session',
  access: 'public',
  response: z.object({ needed: z.boolean() }),
});

export const completeSetup = defineContract({
  method: 'POST',
  path: '/setup',
  operationId: 'completeSetup',
  summary: 'Create the tenant administrator (only while no account exists) and sign in',
  tag: 'session',
  access: 'public',
  body: z.object({ email, password }).strict(),
  status: 201,
  response: sessionView,
});

export const signIn = defineContract({
  method: 'POST',
  path: '/session',
  operationId: 'signIn',
  summary:
    'Sign in with e-mail and password: the session, or for an account with two-factor on a challenge for POST /session/second-factor',
  tag: 'session',
  access: 'public',
  body: z.object({ email, password }).strict(),
  response: z.union([sessionView, secondFactorChallenge]),
});

export const getSession = defineContract({
  method: 'GET',
  path: '/session',
  operationId: 'getSession',
  summary: 'The current session: account, CSRF token, menus',
  tag: 'session',
  access: 'signedIn',
  response: sessionView,
});

export const signOut = defineContract({
  method: 'DELETE',
  path: '/session',
  operationId: 'signOut',
  summary: 'Sign out',
  tag: 'session',
  access: 'signedIn',
  status: 204,
});

export const inspectLink = defineContract({
  method: 'POST',
  path: '/links/inspect',
  operationId: 'inspectLink',
  summary: 'What an e-mailed activation or reset link is for',
  tag: 'session',
  access: 'public',
  body: z.object({ token: linkToken }).strict(),
  response: z.object({ purpose: z.enum(['activate', 'reset']), email: z.string(), expiresAt: z.number() }),
});

export const completeLink = defineContract({
  method: 'POST',
  path: '/links/complete',
  operationId: 'completeLink',
  summary: 'Use an activation or reset link: set the password',
  tag: 'session',
  access: 'public',
  body: z.object({ token: linkToken, password }).strict(),
  status: 204,
});

export type LinkInfo = z.output<typeof inspectLink.response>;
