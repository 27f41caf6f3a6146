import { z } from 'zod';
import { defineContract } from './contract.ts';
import { email } from './common.schema.ts';

/**
 * Administration settings made on the System page (issue 19 item 7): SMTP, sign-in session lengths,
 * listening ports and two-factor enforcement. Each answer says where its values come from: saved in
 * the console, the environment (RAMPART_*), or the built-in default.
 */
const ADMINS = ['administrator'] as const;

export const SETTING_SOURCES = ['console', 'environment', 'default'] as const;
const source = z.enum(SETTING_SOURCES);

export const ADMIN_SETTING_LIMITS = {
  host: 253,
  user: 256,
  smtpPassword: 256,
  from: 320,
  idleMinutes: { min: 5, max: 1440 },
  absoluteHours: { min: 1, max: 168 },
} as const;

const portNumber = z
  .number({ error: 'must be a port number' })
  .int('must be a whole number')
  .min(1, 'must be between 1 and 65535')
  .max(65_535, 'must be between 1 and 65535');

// --- SMTP -------------------------------------------------------------------------------------

const smtpServerView = z.object({
  host: z.string(),
  port: z.number().int(),
  secure: z.boolean().describe('TLS from the first byte (port 465); otherwise STARTTLS when the server offers it'),
  user: z.string().describe('empty: no authentication'),
  from: z.string(),
  passwordSet: z.boolean().describe('the password itself is never answered'),
});

export const smtpSettingsView = z.object({
  source,
  /** The server mail goes through now; null when none is configured. */
  server: smtpServerView.nullable(),
  environmentConfigured: z.boolean().describe('whether RAMPART_SMTP_HOST names a server ("use environment settings")'),
});

export const smtpSettingsInput = z
  .object({
    host: z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, 'is required')
      .max(ADMIN_SETTING_LIMITS.host, `must be at most ${ADMIN_SETTING_LIMITS.host} characters`)
      .regex(/^[A-Za-z0-9.:[\]-]*$/, 'must be a host name or an IP address'),
    port: portNumber,
    secure: z.boolean({ error: 'must be true or false' }),
    user: z
      .string({ error: 'must be a string' })
      .trim()
      .max(ADMIN_SETTING_LIMITS.user, `must be at most ${ADMIN_SETTING_LIMITS.user} characters`)
      .default(''),
    password: z
      .string({ error: 'must be a string' })
      .min(1, 'is required')
      .max(ADMIN_SETTING_LIMITS.smtpPassword, `must be at most ${ADMIN_SETTING_LIMITS.smtpPassword} characters`)
      .optional()
      .describe('write-only; left out: the stored password is kept'),
    from: z
      .string({ error: 'must be a string' })
      .trim()
      .min(3, 'must be at least 3 characters')
      .max(ADMIN_SETTING_LIMITS.from, `must be at most ${ADMIN_SETTING_LIMITS.from} characters`)
      .regex(/@/, 'must hold an e-mail address, e.g. Rampart <rampart@example.com>'),
  })
  .strict();

export const getSmtpSettings = defineContract({
  method: 'GET',
  path: '/system/smtp',
  operationId: 'getSmtpSettings',
  summary: 'The SMTP server outgoing mail uses, and where it is set; the password is never answered',
  tag: 'system',
  access: ADMINS,
  response: smtpSettingsView,
});

export const updateSmtpSettings = defineContract({
  method: 'PUT',
  path: '/system/smtp',
  operationId: 'updateSmtpSettings',
  summary: 'Save the SMTP server in the console (wins over RAMPART_SMTP_*); mail goes through it at once',
  tag: 'system',
  access: ADMINS,
  body: smtpSettingsInput,
  response: smtpSettingsView,
});

export const resetSmtpSettings = defineContract({
  method: 'DELETE',
  path: '/system/smtp',
  operationId: 'resetSmtpSettings',
  summary: 'Forget the SMTP server saved in the console: the environment settings apply again, at once',
  tag: 'system',
  access: ADMINS,
  response: smtpSettingsView,
});

export const sendTestMail = defineContract({
  method: 'POST',
  path: '/system/smtp/test',
  operationId: 'sendTestMail',
  summary: 'Send a test mail through the SMTP server in use; a failure answers the SMTP error',
  tag: 'system',
  access: ADMINS,
  body: z.object({ to: email }).strict(),
  response: z.object({
    sent: z.boolean(),
    error: z.string().nullable().describe("when not sent: the SMTP client's error, as it said it"),
  }),
});

// --- Sessions ---------------------------------------------------------------------------------

const sessionLengths = z.object({ idleMinutes: z.number().int(), absoluteHours: z.number().int() });

export const sessionSettingsView = sessionLengths.extend({
  source,
  environment: sessionLengths.describe(
    'RAMPART_SESSION_IDLE_MINUTES / RAMPART_SESSION_ABSOLUTE_HOURS or their defaults',
  ),
});

export const sessionSettingsInput = z
  .object({
    idleMinutes: z
      .number({ error: 'must be a number of minutes' })
      .int('must be a whole number')
      .min(ADMIN_SETTING_LIMITS.idleMinutes.min, 'must be between 5 and 1440 minutes')
      .max(ADMIN_SETTING_LIMITS.idleMinutes.max, 'must be between 5 and 1440 minutes'),
    absoluteHours: z
      .number({ error: 'must be a number of hours' })
      .int('must be a whole number')
      .min(ADMIN_SETTING_LIMITS.absoluteHours.min, 'must be between 1 and 168 hours')
      .max(ADMIN_SETTING_LIMITS.absoluteHours.max, 'must be between 1 and 168 hours'),
  })
  .strict();

export const getSessionSettings = defineContract({
  method: 'GET',
  path: '/system/session',
  operationId: 'getSessionSettings',
  summary: 'How long a console session lasts idle and at most, and where that is set',
  tag: 'system',
  access: ADMINS,
  response: sessionSettingsView,
});

export const updateSessionSettings = defineContract({
  method: 'PUT',
  path: '/system/session',
  operationId: 'updateSessionSettings',
  summary: 'Save the session lengths; they apply at once, to the sessions already open too',
  tag: 'system',
  access: ADMINS,
  body: sessionSettingsInput,
  response: sessionSettingsView,
});

export const resetSessionSettings = defineContract({
  method: 'DELETE',
  path: '/system/session',
  operationId: 'resetSessionSettings',
  summary: 'Forget the session lengths saved in the console: the environment settings apply again, at once',
  tag: 'system',
  access: ADMINS,
  response: sessionSettingsView,
});

// --- Ports ------------------------------------------------------------------------------------

export const PORT_NAMES = ['console', 'gateway', 'intake'] as const;

const portState = z.object({
  inUse: z.number().int().describe('the port listening now (0: off)'),
  saved: z.number().int().nullable().describe('saved in the console; null: the environment value'),
  environment: z
    .number()
    .int()
    .describe('RAMPART_CONSOLE_PORT, RAMPART_GATEWAY_PORT or RAMPART_INTAKE_PORT, or its default'),
  nextStart: z.number().int().describe('the port used from the next start'),
  source,
  restartRequired: z.boolean(),
});

export const portSettingsView = z.object({
  console: portState,
  gateway: portState,
  intake: portState,
  restartRequired: z.boolean(),
  siteProxyPorts: z.array(z.number().int()).describe("the CNAME sites' proxy ports, which these must differ from"),
});

export const portSettingsInput = z
  .object({
    console: portNumber.nullable().describe('null: the environment value'),
    gateway: portNumber.nullable(),
    intake: portNumber.nullable(),
  })
  .strict();

export const getPortSettings = defineContract({
  method: 'GET',
  path: '/system/ports',
  operationId: 'getPortSettings',
  summary: 'The listening ports: in use now, saved, and used from the next start',
  tag: 'system',
  access: ADMINS,
  response: portSettingsView,
});

export const updatePortSettings = defineContract({
  method: 'PUT',
  path: '/system/ports',
  operationId: 'updatePortSettings',
  summary: 'Save the console, gateway and intake ports (distinct, not a CNAME site port); they apply at the next start',
  tag: 'system',
  access: ADMINS,
  body: portSettingsInput,
  response: portSettingsView,
});

// --- Two-factor enforcement -------------------------------------------------------------------

export const twoFactorPolicyView = z.object({
  requireTwoFactorForAdmins: z.boolean(),
  callerHasTwoFactor: z
    .boolean()
    .describe('whether the administrator asking has a second factor (needed to turn it on)'),
});

export const getTwoFactorPolicy = defineContract({
  method: 'GET',
  path: '/system/two-factor',
  operationId: 'getTwoFactorPolicy',
  summary: 'Whether administrators must sign in with a second factor',
  tag: 'system',
  access: ADMINS,
  response: twoFactorPolicyView,
});

export const updateTwoFactorPolicy = defineContract({
  method: 'PUT',
  path: '/system/two-factor',
  operationId: 'updateTwoFactorPolicy',
  summary: 'Require a second factor of administrators (refused while the caller has none)',
  tag: 'system',
  access: ADMINS,
  body: z.object({ requireTwoFactorForAdmins: z.boolean({ error: 'must be true or false' }) }).strict(),
  response: twoFactorPolicyView,
});

export type SettingSource = (typeof SETTING_SOURCES)[number];
export type SmtpSettingsView = z.output<typeof smtpSettingsView>;
export type SmtpSettingsInput = z.input<typeof smtpSettingsInput>;
export type SessionSettingsView = z.output<typeof sessionSettingsView>;
export type PortSettingsView = z.output<typeof portSettingsView>;
export type PortName = (typeof PORT_NAMES)[number];
export type TwoFactorPolicyView = z.output<typeof twoFactorPolicyView>;
