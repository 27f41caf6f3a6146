/**
 * The System page's settings forms: an engine refusal (or the form's own check, made with the same
 * schema) placed at the fields it names, each said in the console's language; what names no field
 * of the form is said above it.
 */
import { ApiError } from '$lib/api.ts';
import { detailText, errorMessage } from '$lib/errors.ts';
import { isMessageKey, t } from '$lib/i18n.svelte.ts';
import type { FieldErrors } from '$lib/form.svelte.ts';

/** One problem at its field: the engine's reasons this page knows first, then the generic detail. */
export function problemText(problem: ApiError): string {
  const { reason, port, by } = problem.params;
  if (reason === 'portTaken') {
    const byKey = `adminSettings.ports.by.${String(by)}`;
    return t('adminSettings.ports.taken', { port: Number(port), by: isMessageKey(byKey) ? t(byKey) : String(by) });
  }
  if (reason === 'ownTwoFactorMissing') return t('adminSettings.twoFactor.ownMissing');
  if (reason === 'passwordRequired') return t('adminSettings.smtp.passwordRequired');
  return detailText(problem);
}

/** Every problem of `error` whose field the form shows, by field; the rest as one message. */
export function placeProblems(error: unknown, fields: readonly string[]): { fields: FieldErrors; message: string } {
  if (!(error instanceof ApiError)) return { fields: {}, message: errorMessage(error) };
  const placed: FieldErrors = {};
  const rest: ApiError[] = [];
  for (const problem of error.parts()) {
    if (problem.field && fields.includes(problem.field)) placed[problem.field] ??= problemText(problem);
    else rest.push(problem);
  }
  return { fields: placed, message: rest.length > 0 ? errorMessage(rest[0]) : '' };
}

/** The form's own check: the engine's problems for the same input, by field. */
export function clientProblems(problems: readonly ApiError[]): FieldErrors {
  const out: FieldErrors = {};
  for (const problem of problems) if (problem.field) out[problem.field] ??= problemText(problem);
  return out;
}
