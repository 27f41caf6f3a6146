/**
 * The events another event can name (spec 2.4): a trigger event or a CEP step is a simple event
 * whose log sources equal or are contained by this event's; a member of a combined event is a
 * single event with exactly the same sources (engine/events checks `member_sources` so). An event
 * the form already names that does not qualify stays listed, marked, so the person sees why.
 */
import type { EventView } from '$lib/contracts.ts';
import { t } from '$lib/i18n.svelte.ts';
import { eventName } from '$lib/preset-text.ts';
import { containedIn, sameSources } from './event-vocabulary.ts';

export interface EventOption {
  id: string;
  text: string;
}

const named = (e: EventView): string =>
  e.enabled ? eventName(e) : t('events.option.disabled', { name: eventName(e) });

/** Options for a select: those that qualify, then the current value if it does not. */
function withCurrent(options: EventOption[], all: readonly EventView[], current: string): EventOption[] {
  if (current === '' || options.some((o) => o.id === current)) return options;
  const event = all.find((e) => e.id === current);
  return [
    ...options,
    { id: current, text: t('events.option.notOffered', { name: event ? eventName(event) : current }) },
  ];
}

/** Simple events a windowed or CEP event can count or sequence. */
export function simpleOptions(
  all: readonly EventView[],
  sources: readonly string[],
  selfId: string | null,
  current: string,
): EventOption[] {
  const fit = all.filter((e) => e.kind === 'simple' && e.id !== selfId && containedIn(e.sources, sources));
  return withCurrent(
    fit.map((e) => ({ id: e.id, text: named(e) })),
    all,
    current,
  );
}

/** Single events a combined event can contain. */
export function memberOptions(
  all: readonly EventView[],
  sources: readonly string[],
  selfId: string | null,
  current: string,
): EventOption[] {
  const fit = all.filter(
    (e) => e.kind !== 'combined' && e.id !== selfId && e.sources.length > 0 && sameSources(e.sources, sources),
  );
  return withCurrent(
    fit.map((e) => ({ id: e.id, text: `${named(e)} · ${t(`events.kind.${e.kind}`)}` })),
    all,
    current,
  );
}
