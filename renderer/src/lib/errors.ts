/**
 * Turns an engine failure into the sentence a person reads, in the current language: the code is
 * translated, the field named by its label, and rate limits say why and when to retry.
 */
import { ApiError, NETWORK_ERROR } from './api.ts';
import { engineDetail, renderDetail, ruleSetProblemDetail, type DetailParams } from './engine-detail.ts';
import { isMessageKey, t } from './i18n.svelte.ts';

export function fieldLabel(field: string | undefined): string {
  if (!field) return '';
  const key = `field.${field}`;
  return isMessageKey(key) ? t(key) : field;
}

/** The server message without its leading `field: `, used as a detail where no better text exists. */
function detailOf(error: ApiError): string {
  const prefix = error.field ? `${error.field}: ` : '';
  return prefix && error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

/**
 * What was wrong with a field, in the console's language: built from the engine's code and
 * parameters (engine-detail.ts); the engine's English sentence only where nothing better is known.
 */
export function detailText(error: ApiError): string {
  const detail = engineDetail(error.message, error.field, error.params);
  const text = detail ? renderDetail(detail, (key, params) => (isMessageKey(key) ? t(key, params) : null)) : null;
  return text || detailOf(error);
}

/** A rule-set problem (GET /rule-set's problems and lastError) in the console's language: by its code, else the engine's words. */
export function ruleSetProblemText(problem: {
  code?: string | undefined;
  params?: DetailParams | undefined;
  message: string;
}): string {
  const detail = problem.code ? ruleSetProblemDetail(problem.code, problem.params ?? {}) : null;
  const text = detail ? renderDetail(detail, (key, params) => (isMessageKey(key) ? t(key, params) : null)) : null;
  return text || problem.message;
}

export function errorMessage(error: unknown): string {
  if (!(error instanceof ApiError)) return t('error.INTERNAL');
  if (error.code === 'RATE_LIMITED') {
    const seconds = Number(error.params.retryAfterSeconds ?? 60);
    const reasonKey = `rateLimit.${String(error.params.reason ?? 'other')}`;
    return t(isMessageKey(reasonKey) ? reasonKey : 'rateLimit.other', { seconds });
  }
  if (error.code === NETWORK_ERROR) return t('error.NETWORK');
  if (error.code === 'IN_USE') return inUseText(error);
  const key = `error.${error.code}`;
  if (!isMessageKey(key)) return t('error.UNKNOWN', { detail: `HTTP ${error.status}: ${error.message}` });
  return t(key, {
    ...error.params,
    field: fieldLabel(error.field),
    detail: detailText(error),
    min: error.params.min ?? 8,
    max: error.params.max ?? 16,
  });
}

/**
 * An item others depend on (an event rules or other events use): who uses it, so the person knows
 * what to change first. The engine names them in `params.rules` / `params.events`.
 */
function inUseText(error: ApiError): string {
  const { rules, events, reason } = error.params;
  if (typeof rules === 'string' && rules) return t('error.IN_USE.rules', { names: rules });
  if (typeof events === 'string' && events)
    return t(reason === undefined ? 'error.IN_USE.events' : 'error.IN_USE.dependent', { names: events });
  return t('error.IN_USE');
}

/** The field a server error belongs to, if the form shows that field. */
export function errorField(error: unknown, fields: readonly string[]): string | undefined {
  return error instanceof ApiError && error.field && fields.includes(error.field) ? error.field : undefined;
}
