import { z } from 'zod';
import { RampartError } from '#engine/shared';
import { defineRoute, type AnyRoute, type Caller } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import {
  accountView,
  booleanQuery,
  email,
  idParams,
  linkDelivery,
  listQuery,
  password,
  role,
  toAccountView,
} from '../schemas.ts';

const ADMIN = ['administrator'] as const;

const actorOf = (caller: Caller | undefined) => ({ accountId: caller!.account.id, sessionId: caller!.session.id });

/** Cursor = index into the sorted list, opaque to clients. */
function page<T>(items: T[], limit: number, cursor: string | undefined): { items: T[]; nextCursor: string | null } {
  const start = cursor === undefined ? 0 : Number.parseInt(cursor, 36);
  if (!Number.isInteger(start) || start < 0) {
    throw new RampartError('VALIDATION_FAILED', 'cursor: is not a cursor this list returned', { field: 'cursor' });
  }
  const slice = items.slice(start, start + limit);
  const next = start + limit < items.length ? (start + limit).toString(36) : null;
  return { items: slice, nextCursor: next };
}

export function accountRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/me',
      operationId: 'getMyAccount',
      summary: 'My account: name, ID, role, permissions',
      tag: 'account',
      access: 'signedIn',
      response: accountView,
      handler: ({ caller }) => toAccountView(caller!.account),
    }),
    defineRoute({
      method: 'PUT',
      path: '/me/password',
      operationId: 'changeMyPassword',
      summary: 'Change my password (other sessions of this account end)',
      tag: 'account',
      access: 'signedIn',
      body: z.object({ currentPassword: password, newPassword: password }).strict(),
      status: 204,
      handler: async ({ caller, body }) => {
        await deps.accounts.changePassword(actorOf(caller), body.currentPassword, body.newPassword);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/accounts',
      operationId: 'listAccounts',
      summary: 'Accounts, newest first, filtered by activation and enabled state',
      tag: 'enterprise',
      access: ADMIN,
      query: z
        .object({
          activation: z.enum(['pending', 'activated'], { error: 'must be pending or activated' }).optional(),
          enabled: booleanQuery.optional(),
          ...listQuery,
        })
        .strict(),
      response: z.object({ items: z.array(accountView), nextCursor: z.string().nullable(), total: z.number() }),
      handler: ({ query }) => {
        const all = deps.accounts.list({
          activated: query.activation === undefined ? undefined : query.activation === 'activated',
          enabled: query.enabled,
        });
        const { items, nextCursor } = page(all, query.limit, query.cursor);
        return { items: items.map(toAccountView), nextCursor, total: all.length };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/accounts',
      operationId: 'createAccount',
      summary: 'Create an account and send its activation e-mail',
      tag: 'enterprise',
      access: ADMIN,
      body: z.object({ email, role }).strict(),
      status: 201,
      response: z.object({ account: accountView, delivery: linkDelivery }),
      handler: async ({ caller, body }) => {
        const { account, delivery } = await deps.accounts.create(actorOf(caller), body);
        return { account: toAccountView(account), delivery };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/accounts/:id',
      operationId: 'getAccount',
      summary: 'One account',
      tag: 'enterprise',
      access: ADMIN,
      params: idParams,
      response: accountView,
      handler: ({ params }) => toAccountView(deps.accounts.get(params.id)),
    }),
    defineRoute({
      method: 'POST',
      path: '/accounts/:id/activation-email',
      operationId: 'resendActivationEmail',
      summary: 'Send a fresh activation link to an account awaiting activation',
      tag: 'enterprise',
      access: ADMIN,
      params: idParams,
      response: linkDelivery,
      handler: ({ caller, params }) => deps.accounts.resendActivation(actorOf(caller), params.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/accounts/:id/disable',
      operationId: 'disableAccount',
      summary: 'Disable an account (not your own, not the tenant account)',
      tag: 'enterprise',
      access: ADMIN,
      params: idParams,
      response: accountView,
      handler: async ({ caller, params }) =>
        toAccountView(await deps.accounts.setEnabled(actorOf(caller), params.id, false)),
    }),
    defineRoute({
      method: 'POST',
      path: '/accounts/:id/enable',
      operationId: 'enableAccount',
      summary: 'Enable a disabled account',
      tag: 'enterprise',
      access: ADMIN,
      params: idParams,
      response: accountView,
      handler: async ({ caller, params }) =>
        toAccountView(await deps.accounts.setEnabled(actorOf(caller), params.id, true)),
    }),
    defineRoute({
      method: 'PUT',
      path: '/accounts/:id/role',
      operationId: 'changeAccountRole',
      summary: 'Modify the permission (role) of an account',
      tag: 'enterprise',
      access: ADMIN,
      params: idParams,
      body: z.object({ role }).strict(),
      response: accountView,
      handler: async ({ caller, params, body }) =>
        toAccountView(await deps.accounts.setRole(actorOf(caller), params.id, body.role)),
    }),
    defineRoute({
      method: 'POST',
      path: '/accounts/:id/password-reset',
      operationId: 'resetAccountPassword',
      summary: 'E-mail a password-reset link to an account',
      tag: 'enterprise',
      access: ADMIN,
      params: idParams,
      response: linkDelivery,
      handler: ({ caller, params }) => deps.accounts.sendPasswordReset(actorOf(caller), params.id),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/accounts/:id',
      operationId: 'deleteAccount',
      summary: 'Delete an account (not your own, not the tenant account)',
      tag: 'enterprise',
      access: ADMIN,
      params: idParams,
      status: 204,
      handler: async ({ caller, params }) => {
        await deps.accounts.remove(actorOf(caller), params.id);
      },
    }),
  ];
}
