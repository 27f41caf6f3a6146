import { RampartError } from '#engine/shared';
import { bindRoute, type AnyRoute } from '../route.ts';
import type { AdminSettingsPort, ApiDeps } from '../deps.ts';
import {
  getPortSettings,
  getSessionSettings,
  getSmtpSettings,
  getTwoFactorPolicy,
  resetSessionSettings,
  resetSmtpSettings,
  sendTestMail,
  updatePortSettings,
  updateSessionSettings,
  updateSmtpSettings,
  updateTwoFactorPolicy,
} from '../schemas.ts';

/** The System page's administration settings (engine/admin-settings): SMTP, sessions, ports, two-factor. */
export function systemSettingsRoutes(deps: ApiDeps): AnyRoute[] {
  const settings = (): AdminSettingsPort => {
    if (!deps.adminSettings)
      throw new RampartError('NOT_FOUND', 'This engine was started without administration settings');
    return deps.adminSettings;
  };
  return [
    bindRoute(getSmtpSettings, () => settings().smtp()),
    bindRoute(updateSmtpSettings, ({ body }) => settings().setSmtp(body)),
    bindRoute(resetSmtpSettings, () => settings().useEnvironmentSmtp()),
    bindRoute(sendTestMail, ({ body }) => settings().sendTestMail(body.to)),
    bindRoute(getSessionSettings, () => settings().session()),
    bindRoute(updateSessionSettings, ({ body }) => settings().setSession(body)),
    bindRoute(resetSessionSettings, () => settings().useEnvironmentSession()),
    bindRoute(getPortSettings, () => settings().ports()),
    bindRoute(updatePortSettings, ({ body }) => settings().setPorts(body)),
    bindRoute(getTwoFactorPolicy, ({ caller }) => settings().twoFactorPolicy(callerAccount(caller))),
    bindRoute(updateTwoFactorPolicy, ({ body, caller }) =>
      settings().setRequireTwoFactor(body.requireTwoFactorForAdmins, callerAccount(caller)),
    ),
  ];
}

function callerAccount<A>(caller: { account: A } | undefined): A {
  // Administrators only: the access check has signed the caller in before the handler runs.
  if (!caller) throw new RampartError('UNAUTHENTICATED', 'Sign in first');
  return caller.account;
}
