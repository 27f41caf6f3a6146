import type { ErrorCode, FieldProblem } from './errors.ts';
import type { RampartError } from './errors.ts';

/**
 * The one table where engine error codes meet HTTP status codes, shared by both HTTP edges (the
 * console API in `api/` and the gateway API in `gateways/`), so one code answers one status on both.
 * Nothing but those two edges reads it.
 */
export const HTTP_STATUS_OF: Readonly<Record<ErrorCode, number>> = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  PAYLOAD_TOO_LARGE: 413,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  UNAUTHENTICATED: 401,
  SESSION_EXPIRED: 401,
  FORBIDDEN_ROLE: 403,
  MODULE_NOT_ACTIVE: 403,
  CSRF_INVALID: 403,
  RATE_LIMITED: 429,
  SETUP_ALREADY_DONE: 409,
  INVALID_CREDENTIALS: 401,
  ACCOUNT_DISABLED: 403,
  ACCOUNT_NOT_ACTIVATED: 409,
  EMAIL_IN_USE: 409,
  NAME_TAKEN: 409,
  IN_USE: 409,
  EVENT_NO_SOURCE: 409,
  ACCESS_KEY_INVALID: 401,
  SITE_UNKNOWN: 404,
  PASSWORD_LENGTH: 400,
  PASSWORD_CLASSES: 400,
  PASSWORD_COMMON: 400,
  PASSWORD_WRONG: 400,
  TENANT_ACCOUNT_PROTECTED: 403,
  OWN_ACCOUNT_PROTECTED: 403,
  LINK_INVALID: 404,
  LINK_EXPIRED: 410,
  TWO_FACTOR_REQUIRED: 403,
  TWO_FACTOR_CODE_WRONG: 400,
  TWO_FACTOR_CHALLENGE_INVALID: 401,
  TWO_FACTOR_NOT_STARTED: 409,
  TWO_FACTOR_ALREADY_ON: 409,
  TWO_FACTOR_OFF: 409,
  LICENCE_MALFORMED: 400,
  LICENCE_SIGNATURE_INVALID: 400,
  LICENCE_NO_VENDOR_KEY: 409,
  RENEW_CONTACT_SALES: 409,
  MAIL_FAILED: 502,
  CONFIG_CORRUPT: 500,
  SETTINGS_INVALID: 500,
  INTERNAL: 500,
};

/** The error answer of both HTTP edges. */
export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    field?: string;
    params?: Record<string, unknown>;
    /** Every bad field when there are several (the first is also `field` / `message` / `params`). */
    problems?: FieldProblem[];
  };
}

/** The one error body builder: code, message, and the field, params and problems when there are any. */
export function errorBody(error: RampartError): ErrorBody {
  const out: ErrorBody = { error: { code: error.code, message: error.message } };
  if (error.field) out.error.field = error.field;
  if (Object.keys(error.params).length > 0) out.error.params = { ...error.params };
  if (error.problems.length > 1) out.error.problems = error.problems.map((p) => ({ ...p }));
  return out;
}
