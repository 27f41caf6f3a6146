/**
 * The closed vocabularies of events (spec 2.4), read from the engine's own schema so the console
 * offers exactly what the engine accepts, and how an event's parts read in a list.
 */
import { banView, eventInputSchema, type EventInput, type LogConfigView } from '$lib/contracts.ts';
import { t } from '$lib/i18n.svelte.ts';
import { unitText } from '$lib/duration.ts';

const [simple, count, , , cep] = eventInputSchema.options;

export type EventKind = EventInput['kind'];
export type SingleKind = Exclude<EventKind, 'combined'>;
export type WindowedKind = Extract<EventKind, 'count' | 'distinct' | 'average'>;
type Condition = Extract<EventInput, { kind: 'simple' }>['conditions'][number];
export type ConditionFilter = Condition['filter'];
export type MatchMode = Condition['mode'];
export type Comparator = Extract<EventInput, { kind: 'count' }>['comparator'];
export type WindowUnit = Extract<EventInput, { kind: 'count' }>['window']['unit'];
export type Continuity = Extract<EventInput, { kind: 'cep' }>['continuity'];
export type KeyTarget = Extract<EventInput, { kind: 'count' }>['object'];

export const EVENT_KINDS: readonly EventKind[] = eventInputSchema.options.map((o) => o.shape.kind.value);
export const SINGLE_KINDS = EVENT_KINDS.filter((k): k is SingleKind => k !== 'combined');
export const COMPARATORS: readonly Comparator[] = count.shape.comparator.options;
export const WINDOW_UNITS: readonly WindowUnit[] = count.shape.window.shape.unit.options;
export const CONTINUITIES: readonly Continuity[] = cep.shape.continuity.options;
export const CONDITION_FILTERS: readonly ConditionFilter[] = simple.shape.conditions.element.shape.filter.options;
export const STRING_MODES: readonly MatchMode[] = ['regex', 'exact'];
export const KEY_TARGETS: readonly KeyTarget[] = banView.shape.object.options;

/** The schema's bounds, for the inputs' own limits. */
export const EVENT_BOUNDS = {
  name: simple.shape.name.maxLength ?? 64,
  description: simple.shape.description.unwrap().maxLength ?? 256,
  relation: simple.shape.relation.maxLength ?? 512,
  value: simple.shape.conditions.element.shape.value.maxLength ?? 1000,
  conditions: 26,
  members: 26,
  steps: 10,
  repeat: 1000,
};

/** The modes a filter offers: string match by regex or exactly; a numeric judgment by a comparator. */
export function modesOf(filter: ConditionFilter): readonly MatchMode[] {
  return filter === 'string' ? STRING_MODES : COMPARATORS;
}

export const LABELS = 'abcdefghijklmnopqrstuvwxyz'.split('');

/** The first label no item uses yet (a, b, c, ...); null when all 26 are taken. */
export function nextLabel(used: readonly string[]): string | null {
  return LABELS.find((l) => !used.includes(l)) ?? null;
}

export function kindText(kind: EventKind): string {
  return t(`events.kind.${kind}`);
}

export function targetText(target: KeyTarget): string {
  return t(`events.target.${target}`);
}

export function windowText(window: { value: number; unit: WindowUnit }): string {
  return unitText(window.value, window.unit);
}

/** A log configuration as a source: its name, and for an access configuration its site too. */
export function sourceText(config: LogConfigView, siteNames: ReadonlyMap<string, string>): string {
  if (config.kind === 'custom' || !config.siteId) return config.name;
  return t('events.source.site', { name: config.name, site: siteNames.get(config.siteId) ?? config.siteId });
}

/** Whether every item of `inner` is in `outer` (the trigger event's sources within this event's). */
export function containedIn(inner: readonly string[], outer: readonly string[]): boolean {
  return inner.length > 0 && inner.every((s) => outer.includes(s));
}

export function sameSources(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s) => b.includes(s));
}
