import { RampartError } from '#engine/shared';
import type { SecondFactor } from '#engine/accounts';
import { bindRoute, type AnyRoute, type Caller } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import {
  toAccountView,
  confirmTwoFactor,
  disableTwoFactor,
  getMyTwoFactor,
  regenerateRecoveryCodes,
  resetAccountTwoFactor,
  startTwoFactor,
} from '../schemas.ts';

const actorOf = (caller: Caller | undefined) => ({ accountId: caller!.account.id, sessionId: caller!.session.id });

/** Exactly one of `code` (the authenticator app) and `recoveryCode`, naming the field when not. */
export function secondFactorOf(body: { code?: string | undefined; recoveryCode?: string | undefined }): SecondFactor {
  if (body.code !== undefined && body.recoveryCode !== undefined) {
    throw new RampartError('VALIDATION_FAILED', 'recoveryCode: send either code or recoveryCode, not both', {
      field: 'recoveryCode',
      params: { reason: 'one_of', fields: 'code, recoveryCode' },
    });
  }
  if (body.code !== undefined) return { kind: 'totp', code: body.code };
  if (body.recoveryCode !== undefined) return { kind: 'recovery', code: body.recoveryCode };
  throw new RampartError('VALIDATION_FAILED', 'code: is required (or recoveryCode instead)', {
    field: 'code',
    params: { reason: 'one_of', fields: 'code, recoveryCode' },
  });
}

/** Two-factor sign-in (TOTP) of one's own account, and an administrator's reset of another's. */
export function twoFactorRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    bindRoute(getMyTwoFactor, ({ caller }) => deps.accounts.twoFactorStatus(caller!.account.id)),
    bindRoute(startTwoFactor, ({ caller }) => deps.accounts.startTwoFactor(actorOf(caller))),
    bindRoute(confirmTwoFactor, ({ caller, body }) => deps.accounts.confirmTwoFactor(actorOf(caller), body.code)),
    bindRoute(disableTwoFactor, async ({ caller, body }) => {
      await deps.accounts.disableTwoFactor(actorOf(caller), body.currentPassword, secondFactorOf(body));
    }),
    bindRoute(regenerateRecoveryCodes, ({ caller, body }) =>
      deps.accounts.regenerateRecoveryCodes(actorOf(caller), body.code),
    ),
    bindRoute(resetAccountTwoFactor, async ({ caller, params }) =>
      toAccountView(await deps.accounts.resetTwoFactor(actorOf(caller), params.id)),
    ),
  ];
}
