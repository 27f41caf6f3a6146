/** The text of each menu id the engine's navigation can return (spec 1.6), per edition where it differs. */
import type { Edition } from '$lib/contracts.ts';
import { isMessageKey, t } from '$lib/i18n.svelte.ts';

export function menuLabel(id: string, edition: Edition): string {
  const editionKey = `menu.${id}.${edition}`;
  if (isMessageKey(editionKey)) return t(editionKey);
  const key = `menu.${id}`;
  return isMessageKey(key) ? t(key) : id;
}
