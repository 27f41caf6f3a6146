/**
 * Log configuration problems and parse failures in the console's language: by the engine's code
 * (engine-detail.ts), the engine's English words only for a code this console does not know.
 */
import {
  engineDetail,
  logConfigProblemDetail,
  parseFailureDetail,
  renderDetail,
  type Detail,
} from '$lib/engine-detail.ts';
import { isMessageKey, t } from '$lib/i18n.svelte.ts';
import { problemPath } from './log-config-paths.ts';

const say = (detail: Detail): string | null =>
  renderDetail(detail, (key, params) => (isMessageKey(key) ? t(key, params) : null));

/** A preview's configuration problem (`{ field, message, code }`), named by its input's label. */
export function problemText(
  problem: { field: string; message: string; code: string },
  label: (field: string) => string,
): string {
  const field = problemPath(problem.field);
  const prefix = `${problem.field}: `;
  const words = problem.message.startsWith(prefix) ? problem.message.slice(prefix.length) : problem.message;
  // A shape check (the name, the broker) has no code of its own: its sentence is worded instead.
  const detail = logConfigProblemDetail(problem.code, {}) ?? engineDetail(words, undefined, {});
  const text = (detail ? say(detail) : null) ?? words;
  return t('error.VALIDATION_FAILED', { field: label(field), detail: text });
}

/** Why a stored line failed (a failed record: its code and field), or the engine's English reason. */
export function failureText(record: {
  code: string;
  field: string | null;
  reason: string;
  params?: Readonly<Record<string, string | number>>;
}): string {
  const detail = parseFailureDetail(record.code, record.field, record.params);
  return (detail ? say(detail) : null) ?? record.reason;
}
