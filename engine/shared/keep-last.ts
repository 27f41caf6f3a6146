/**
 * Appends `items` to `ring` and keeps only its last `limit` entries: a bounded list of the most
 * recent things (failed lines, discarded messages), where a flood is counted elsewhere and only its
 * tail is held. Items beyond `limit` are never copied in.
 */
export function keepLast<T>(ring: T[], items: readonly T[], limit: number): void {
  for (let i = Math.max(0, items.length - limit); i < items.length; i += 1) ring.push(items[i] as T);
  if (ring.length > limit) ring.splice(0, ring.length - limit);
}
