/**
 * The problems of events and event-based rules (engine/events' and engine/rules' stable codes, sent
 * as `params.code` of a VALIDATION_FAILED part or as the code of a check) in the console's language.
 * Null for a code this console does not know: the caller says it another way (the zod issue's
 * detail, or the engine's English words).
 */
import type { ApiError } from './api.ts';
import { fills, isMessageKey, t, type TextParams } from './i18n.svelte.ts';

/** Positions are 0-based in the engine; people count characters from 1. */
function withCharacter(params: TextParams): TextParams {
  const position = Number(params.position);
  return Number.isFinite(position) ? { ...params, at: position + 1 } : params;
}

export function problemCode(part: ApiError): string {
  return typeof part.params.code === 'string' ? part.params.code : '';
}

/** The text of one problem, or null when this console has none for its code. */
export function problemText(part: ApiError): string | null {
  let code = problemCode(part);
  if (!/^[a-z_]+$/.test(code)) return null;
  // A relation that ends where a label was expected reads differently from a stray character.
  if (code === 'relation_syntax' && (part.params.token === '' || part.params.token === undefined))
    code = 'relation_end';
  const key = `problem.${code}`;
  if (!isMessageKey(key)) return null;
  const params = withCharacter(part.params);
  return fills(key, params) ? t(key, params) : part.message;
}

/** The schema's own refinements (engine/shared/event-shape.ts), known by their English words. */
const CUSTOM_SENTENCES: readonly [
  RegExp,
  'problem.custom.number' | 'problem.custom.window' | 'problem.custom.maxBelowMin' | 'problem.custom.mode',
][] = [
  [/must be a number$/, 'problem.custom.number'],
  [/must be at most 30 days$/, 'problem.custom.window'],
  [/must be at least the minimum$/, 'problem.custom.maxBelowMin'],
  [/must be (regex or exact|one of >=, >, =, <, <=) for a/, 'problem.custom.mode'],
];

/** A refinement of the event and rule schemas (`code: custom`) in the console's language, or null. */
export function customProblemText(part: ApiError): string | null {
  if (part.params.code !== 'custom') return null;
  const found = CUSTOM_SENTENCES.find(([pattern]) => pattern.test(part.message));
  return found ? t(found[1]) : null;
}
