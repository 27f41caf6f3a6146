/**
 * Why the engine refused a rule set (its message names file and line), and that the running set stays:
 * said once, in the console's language, whether or not the engine's text already says so.
 */
import { errorMessage } from '$lib/errors.ts';
import { t } from '$lib/i18n.svelte.ts';

const KEPT = /\s*The previous rule set keeps running\.?\s*$/;

export function refusalText(error: unknown, running: boolean): string {
  const message = errorMessage(error).replace(KEPT, '');
  return running ? t('ruleSet.failedKept', { message }) : message;
}
