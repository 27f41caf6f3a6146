import type { EventDefinition, EventEngineOptions } from '#engine/events';

/**
 * A scenario: events, the live records fed to one engine in order, and the firings it must give,
 * in order. Times are seconds from T0 (fixtures.ts): `t` of a record is the `now` passed to
 * observe, `t` of a firing the engine time of the record that made it fire.
 */
export interface Scenario {
  name: string;
  events: EventDefinition[];
  options?: EventEngineOptions;
  records: { t: number; log?: string; record: Record<string, unknown> }[];
  expect: { t: number; event: string; key: string | null }[];
}
