import type { EventConditionInput } from '#engine/shared';
import type { CepShape } from './cep.ts';
import type { Cmp } from './compare.ts';
import type { LogPlan } from './plan.ts';
import type { RelationFn } from './relation.ts';
import type { KeySlab } from './slab.ts';
import type { KeyTarget } from './types.ts';
import type { WindowShape } from './window.ts';

/** What every compiled event has. `enabled` events appear in `observe`'s output; others only serve as parts. */
interface RuntimeBase {
  id: string;
  name: string;
  enabled: boolean;
  /** The definition's identity for state: equal signatures keep state across configure and restore. */
  sig: string;
  /** The logs the event reads. */
  logs: readonly string[];
  firings: number;
}

export interface SimpleRuntime extends RuntimeBase {
  kind: 'simple';
  conditions: readonly EventConditionInput[];
  /** The fields its conditions test, for a firing's meta. */
  fields: readonly string[];
}

interface StatefulBase extends RuntimeBase {
  object: KeyTarget;
  windowSeconds: number;
  windowMs: number;
  /** The slab of its trigger object and its place among the slab's members (set when slabs are made). */
  slab: EventSlab | null;
  member: number;
  keys: number;
  evictions: number;
  /** The record sequence number it last fired on (combined events read it). */
  firedSeq: number;
}

export interface WindowRuntime extends StatefulBase {
  kind: 'count' | 'distinct' | 'average';
  shape: WindowShape;
  bucketMs: number;
  cmp: Cmp;
  comparator: string;
  threshold: number;
  /** The distinct / mean object. */
  field: string | null;
  /** A simple event's id, or null for every record. */
  trigger: string | null;
}

export interface CepRuntime extends StatefulBase {
  kind: 'cep';
  shape: CepShape;
  steps: readonly string[];
}

export interface CombinedRuntime extends RuntimeBase {
  kind: 'combined';
  /** The trigger object every windowed member shares, or null. */
  object: KeyTarget | null;
}

export type Runtime = SimpleRuntime | WindowRuntime | CepRuntime | CombinedRuntime;
export type StatefulRuntime = WindowRuntime | CepRuntime;

/** The slab of the stateful events that group by one trigger object. */
export type EventSlab = KeySlab<StatefulRuntime>;

export const isStateful = (rt: Runtime): rt is StatefulRuntime => rt.kind !== 'simple' && rt.kind !== 'combined';

/**
 * A record's key and slot in one slab, looked up once per record however many events of the slab
 * read it (`seq` says which record `key` and `slot` belong to; slot -1: the key has none yet).
 */
export interface KeyLookup {
  slab: EventSlab;
  keyField: string;
  seq: number;
  key: string | null;
  /** The key's `hashKey` (0 when there is no key). */
  hash: number;
  slot: number;
}

export interface PlanWindow {
  rt: WindowRuntime;
  /** The trigger event's index in the log's plan; -1: every record. */
  trigger: number;
  lookup: KeyLookup;
  /** The distinct / mean field's index in the plan; -1 for count. */
  valueField: number;
}

export interface PlanCep {
  rt: CepRuntime;
  /** Each step's simple event index in the plan; -1: the step's event does not read this log. */
  steps: Int32Array;
  matches: Uint8Array;
  lookup: KeyLookup;
}

export interface PlanMember {
  label: string;
  /** A simple member's index in the plan (-1: it does not read this log); -1 for windowed members. */
  simple: number;
  rt: StatefulRuntime | null;
  lookup: KeyLookup | null;
}

export interface PlanCombined {
  rt: CombinedRuntime;
  members: PlanMember[];
  values: Uint8Array;
  relation: RelationFn<Uint8Array>;
  keyField: string | null;
}

/** Everything that runs on one log's records, in evaluation order. */
export interface LogProgram {
  log: string;
  plan: LogPlan<SimpleRuntime>;
  /** Plan indices of the enabled simple events (they fire on every matching record). */
  outputs: Int32Array;
  /** Scratch for the positions in `outputs` that match a record (`LogPlan.matchOutputs`). */
  matched: Int32Array;
  windows: PlanWindow[];
  ceps: PlanCep[];
  combined: PlanCombined[];
}
