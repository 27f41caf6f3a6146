import { z } from 'zod';
import { defineContract } from './contract.ts';
import { accountView, idParams, password, sessionView, timestamp } from './common.schema.ts';

const ADMIN = ['administrator'] as const;

/** A code of an authenticator app: 6 digits (spaces, as some apps show `123 456`, are dropped). */
export const totpCode = z
  .string({ error: 'must be a string' })
  .max(16, 'must be at most 16 characters')
  .transform((value) => value.replace(/\s/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, 'must be the 6 digits your authenticator app shows'))
  .meta({ description: 'The 6-digit code the authenticator app shows now' });

/** A recovery code as printed (`xxxx-xxxx`); case, spaces and the dash do not matter. */
export const recoveryCode = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'is required')
  .max(32, 'must be at most 32 characters');

export const challengeId = z
  .string({ error: 'must be a string' })
  .min(1, 'is required')
  .max(128, 'must be at most 128 characters');

/** What the password step answers an account with two-factor on, instead of a session. */
export const secondFactorChallenge = z.object({
  secondFactorRequired: z.literal(true),
  challengeId: z.string().describe('Send it back with a code to POST /session/second-factor, within 5 minutes, once'),
  expiresAt: timestamp,
});

export const twoFactorStatus = z.object({
  enabled: z.boolean(),
  enabledAt: timestamp.nullable(),
  recoveryCodesLeft: z.number().int(),
  required: z.boolean().describe('Administrators must have two-factor sign-in (System settings) and this is one'),
});

const recoveryCodes = z.object({
  recoveryCodes: z.array(z.string()).describe('Shown this once: only their hashes are kept'),
});

/**
 * A second factor: `code` (the authenticator app) or `recoveryCode`, exactly one. Checked in the
 * route, which names the field, as a union would say neither field's problem.
 */
const secondFactorFields = {
  code: totpCode.optional(),
  recoveryCode: recoveryCode.optional(),
};

export const signInSecondFactor = defineContract({
  method: 'POST',
  path: '/session/second-factor',
  operationId: 'signInSecondFactor',
  summary: 'Second step of a sign-in with two-factor on: the challenge and a code or a recovery code',
  tag: 'session',
  access: 'public',
  body: z.object({ challengeId, ...secondFactorFields }).strict(),
  response: sessionView,
});

export const getMyTwoFactor = defineContract({
  method: 'GET',
  path: '/me/two-factor',
  operationId: 'getMyTwoFactor',
  summary: 'Whether my two-factor sign-in is on, and how many recovery codes remain',
  tag: 'account',
  access: 'signedIn',
  response: twoFactorStatus,
});

export const startTwoFactor = defineContract({
  method: 'POST',
  path: '/me/two-factor/enrolment',
  operationId: 'startTwoFactor',
  summary: 'Start enrolment: a new secret for the authenticator app, on once a code of it is confirmed',
  tag: 'account',
  access: 'signedIn',
  bodyOptional: true,
  body: z.object({}).strict(),
  response: z.object({
    secret: z.string().describe('Base32; shown during enrolment only'),
    otpauthUri: z.string(),
    expiresAt: timestamp,
  }),
});

export const confirmTwoFactor = defineContract({
  method: 'POST',
  path: '/me/two-factor/enrolment/confirm',
  operationId: 'confirmTwoFactor',
  summary: 'Confirm enrolment with a current code: two-factor sign-in is on; the recovery codes, once',
  tag: 'account',
  access: 'signedIn',
  body: z.object({ code: totpCode }).strict(),
  response: recoveryCodes,
});

export const disableTwoFactor = defineContract({
  method: 'POST',
  path: '/me/two-factor/disable',
  operationId: 'disableTwoFactor',
  summary: 'Turn my two-factor sign-in off: my current password and a code or a recovery code',
  tag: 'account',
  access: 'signedIn',
  body: z.object({ currentPassword: password, ...secondFactorFields }).strict(),
  status: 204,
});

export const regenerateRecoveryCodes = defineContract({
  method: 'POST',
  path: '/me/two-factor/recovery-codes',
  operationId: 'regenerateRecoveryCodes',
  summary: 'New recovery codes (the old ones stop working), given a current code',
  tag: 'account',
  access: 'signedIn',
  body: z.object({ code: totpCode }).strict(),
  response: recoveryCodes,
});

export const resetAccountTwoFactor = defineContract({
  method: 'DELETE',
  path: '/accounts/:id/two-factor',
  operationId: 'resetAccountTwoFactor',
  summary: "Turn another account's two-factor sign-in off (a lost phone); its owner enrols again",
  tag: 'enterprise',
  access: ADMIN,
  params: idParams,
  response: accountView,
});

/**
 * What an administrator who must enrol (the System setting, no second factor yet) may reach: their
 * session, their account, sign-out and enrolment. The API answers anything else 403 TWO_FACTOR_REQUIRED.
 */
export const TWO_FACTOR_ENROLMENT_OPERATIONS: ReadonlySet<string> = new Set([
  'getSession',
  'signOut',
  'getMyAccount',
  getMyTwoFactor.operationId,
  startTwoFactor.operationId,
  confirmTwoFactor.operationId,
]);

export type SecondFactorChallenge = z.output<typeof secondFactorChallenge>;
export type TwoFactorStatusView = z.output<typeof twoFactorStatus>;
export type TwoFactorEnrolmentView = z.output<typeof startTwoFactor.response>;
