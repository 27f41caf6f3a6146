/**
 * Administration settings made on the System page (issue 19 item 7): SMTP, console session lengths,
 * listening ports and two-factor enforcement, kept in the configuration's `admin` block and merged
 * over the environment's RAMPART_* settings (a saved value wins; null or absent: the environment's).
 * Each value is told with its source: console, environment or default. SMTP and session lengths
 * apply at once; ports at the next start (`effectiveSettings`, used by the composition root).
 * Secrets: the SMTP password is never answered, only whether one is set.
 */
export { AdminSettingsService, effectiveSettings, PORT_NAMES } from './admin-settings.service.ts';
export type {
  AdminSettingsDeps,
  PortName,
  PortState,
  PortsView,
  SessionLengths,
  SessionTimeoutsPort,
  SessionView,
  SettingSource,
  SmtpInput,
  SmtpView,
  SwitchableMailPort,
  TestMailOutcome,
  TwoFactorPolicy,
} from './admin-settings.service.ts';
