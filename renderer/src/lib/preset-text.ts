/**
 * The preset events ship with English names and descriptions (the engine's presets, spec 2.4); the
 * console says them in its own language while they are as shipped. A preset a person renamed, and
 * every other event, is data and is shown as typed.
 */
import { en } from '$i18n/en.ts';
import { isMessageKey, t } from './i18n.svelte.ts';

function shipped(id: string, part: 'name' | 'description', text: string): string {
  const key = `preset.${id}.${part}`;
  return isMessageKey(key) && en[key] === text ? t(key) : text;
}

/** An event's name as the console shows it. */
export function eventName(event: { id: string; name: string }): string {
  return shipped(event.id, 'name', event.name);
}

/** An event's description as the console shows it. */
export function eventDescription(event: { id: string; description: string }): string {
  return shipped(event.id, 'description', event.description);
}
