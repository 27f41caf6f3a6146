import { RampartError } from '#engine/shared';
import { bindRoute, type AnyRoute, type Caller } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import {
  toAccountView,
  changeAccountRole,
  changeMyPassword,
  createAccount,
  deleteAccount,
  disableAccount,
  enableAccount,
  getAccount,
  getMyAccount,
  listAccounts,
  resendActivationEmail,
  resetAccountPassword,
} from '../schemas.ts';

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
    bindRoute(getMyAccount, ({ caller }) => toAccountView(caller!.account)),
    bindRoute(changeMyPassword, async ({ caller, body }) => {
      await deps.accounts.changePassword(actorOf(caller), body.currentPassword, body.newPassword);
    }),
    bindRoute(listAccounts, ({ query }) => {
      const all = deps.accounts.list({
        activated: query.activation === undefined ? undefined : query.activation === 'activated',
        enabled: query.enabled,
      });
      const { items, nextCursor } = page(all, query.limit, query.cursor);
      return { items: items.map(toAccountView), nextCursor, total: all.length };
    }),
    bindRoute(createAccount, async ({ caller, body }) => {
      const { account, delivery } = await deps.accounts.create(actorOf(caller), body);
      return { account: toAccountView(account), delivery };
    }),
    bindRoute(getAccount, ({ params }) => toAccountView(deps.accounts.get(params.id))),
    bindRoute(resendActivationEmail, ({ caller, params }) =>
      deps.accounts.resendActivation(actorOf(caller), params.id),
    ),
    bindRoute(disableAccount, async ({ caller, params }) =>
      toAccountView(await deps.accounts.setEnabled(actorOf(caller), params.id, false)),
    ),
    bindRoute(enableAccount, async ({ caller, params }) =>
      toAccountView(await deps.accounts.setEnabled(actorOf(caller), params.id, true)),
    ),
    bindRoute(changeAccountRole, async ({ caller, params, body }) =>
      toAccountView(await deps.accounts.setRole(actorOf(caller), params.id, body.role)),
    ),
    bindRoute(resetAccountPassword, ({ caller, params }) =>
      deps.accounts.sendPasswordReset(actorOf(caller), params.id),
    ),
    bindRoute(deleteAccount, async ({ caller, params }) => {
      await deps.accounts.remove(actorOf(caller), params.id);
    }),
  ];
}
