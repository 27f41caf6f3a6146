/**
 * The one error type of the engine. Every code is stable: the console translates it, and the API
 * maps it to an HTTP status (in `api/` only). `params` carry what a message needs (a field name,
 * seconds to wait), never prose.
 */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'INVALID_JSON',
  'PAYLOAD_TOO_LARGE',
  'NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'UNAUTHENTICATED',
  'SESSION_EXPIRED',
  'FORBIDDEN_ROLE',
  'MODULE_NOT_ACTIVE',
  'CSRF_INVALID',
  'RATE_LIMITED',
  'SETUP_ALREADY_DONE',
  'INVALID_CREDENTIALS',
  'ACCOUNT_DISABLED',
  'ACCOUNT_NOT_ACTIVATED',
  'EMAIL_IN_USE',
  'NAME_TAKEN',
  'IN_USE',
  'EVENT_NO_SOURCE',
  'ACCESS_KEY_INVALID',
  'SITE_UNKNOWN',
  'PASSWORD_LENGTH',
  'PASSWORD_CLASSES',
  'PASSWORD_COMMON',
  'PASSWORD_WRONG',
  'TENANT_ACCOUNT_PROTECTED',
  'OWN_ACCOUNT_PROTECTED',
  'LINK_INVALID',
  'LINK_EXPIRED',
  'TWO_FACTOR_REQUIRED',
  'TWO_FACTOR_CODE_WRONG',
  'TWO_FACTOR_CHALLENGE_INVALID',
  'TWO_FACTOR_NOT_STARTED',
  'TWO_FACTOR_ALREADY_ON',
  'TWO_FACTOR_OFF',
  'LICENCE_MALFORMED',
  'LICENCE_SIGNATURE_INVALID',
  'LICENCE_NO_VENDOR_KEY',
  'RENEW_CONTACT_SALES',
  'MAIL_FAILED',
  'CONFIG_CORRUPT',
  'SETTINGS_INVALID',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export type ErrorParams = Readonly<Record<string, string | number | boolean>>;

/** One bad field (or one bad line of a field) of an input that has several. */
export interface FieldProblem {
  field: string;
  message: string;
  params?: ErrorParams;
}

export class RampartError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly params: ErrorParams;
  /** Every bad field of the input, the first of which is also `field` / `message`; empty for one problem. */
  readonly problems: readonly FieldProblem[];

  constructor(
    code: ErrorCode,
    message: string,
    options: { field?: string; params?: ErrorParams; cause?: unknown; problems?: readonly FieldProblem[] } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RampartError';
    this.code = code;
    this.field = options.field;
    this.params = options.params ?? {};
    this.problems = options.problems ?? [];
  }
}

/** The problems an error stands for: its list, or itself when it names one field. */
export function problemsOf(error: RampartError): FieldProblem[] {
  if (error.problems.length > 0) return [...error.problems];
  return [
    {
      field: error.field ?? '',
      message: error.message,
      ...(Object.keys(error.params).length > 0 ? { params: error.params } : {}),
    },
  ];
}

/** One VALIDATION_FAILED error reporting every problem; the first one also fills `field` and `message`. */
export function validationFailed(problems: readonly FieldProblem[]): RampartError {
  const first = problems[0] ?? { field: '', message: 'is invalid' };
  return new RampartError('VALIDATION_FAILED', first.message, {
    field: first.field,
    ...(first.params ? { params: first.params } : {}),
    ...(problems.length > 1 ? { problems } : {}),
  });
}

export function isRampartError(value: unknown): value is RampartError {
  return value instanceof RampartError;
}

/** Expected failures travel as values; exceptions are for the unexpected. */
export type Result<T, E = RampartError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });
