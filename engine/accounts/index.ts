/**
 * Accounts: the tenant administrator and the accounts administrators create, their roles and
 * pages, sessions with idle and absolute timeouts, scrypt password hashes and the password rule,
 * single-use e-mailed activation and reset links, and the sign-in, mail and creation rate limits.
 * Sign-in lockout follows OWASP's device cookies: failures from unknown browsers lock unknown
 * browsers out of an account; a browser that signed in before answers only for its own failures.
 * Two-factor sign-in: TOTP (RFC 6238) with single-use recovery codes, enforceable for administrators.
 */
export { AccountService, LIMITS } from './account-service.ts';
export type {
  AccountServiceDeps,
  LinkDelivery,
  AccountFilter,
  Actor,
  SignedIn,
  SignInStep,
  SecondFactor,
  TwoFactorStatus,
  TwoFactorEnrolment,
  CurrentSession,
} from './account-service.ts';
export {
  TOTP,
  RECOVERY_CODES,
  totpCode,
  hotp,
  matchTotp,
  stepAt,
  base32Decode,
  base32Encode,
  otpauthUri,
  newTotpSecret,
  newRecoveryCodes,
  hashRecoveryCode,
  findRecoveryCode,
} from './totp.ts';
export type { HmacAlgorithm } from './totp.ts';
export { checkPasswordRule, hashPassword, verifyPassword, PASSWORD_MIN, PASSWORD_MAX } from './password.ts';
export { isCommonPassword } from './weak-passwords.ts';
export { SlidingWindowLimiter } from './rate-limit.ts';
export { PAGES, ROLE_PAGES, canSeePage } from './permissions.ts';
export type { Page } from './permissions.ts';
export type { Mailer, OutgoingMail } from './mailer.ts';
export type { Session } from './sessions.ts';
