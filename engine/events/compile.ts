import { hash53, userRegexIssue, windowSeconds } from '#engine/shared';
import type { CepShape } from './cep.ts';
import { cmpOf } from './compare.ts';
import { conditionCost, gateOf, LogPlan } from './plan.ts';
import { compileRelation, parseRelation, type RelationNode } from './relation.ts';
import {
  isStateful,
  type CepRuntime,
  type CombinedRuntime,
  type EventSlab,
  type KeyLookup,
  type LogProgram,
  type PlanCep,
  type PlanCombined,
  type PlanMember,
  type PlanWindow,
  type Runtime,
  type SimpleRuntime,
  type StatefulRuntime,
  type WindowRuntime,
} from './runtime.ts';
import { EMPTY, KeySlab, RING, RING_INDEX, RING_ROOM } from './slab.ts';
import { listPools, regionSize } from './window-slot.ts';
import type { ConfigureReport, EventDefinition, KeyTarget, SourceInfo, SourceLookup } from './types.ts';
import { bucketMsOf } from './window.ts';

export interface CompileOptions {
  maxKeysPerEvent: number;
  exactDistinct: number;
}

export interface Compiled {
  programs: Map<string, LogProgram>;
  runtimes: Map<string, Runtime>;
  slabs: Map<KeyTarget, EventSlab>;
  report: ConfigureReport;
}

export interface Previous {
  runtimes: ReadonlyMap<string, Runtime>;
  slabs: ReadonlyMap<KeyTarget, EventSlab>;
}

/** The events a definition refers to. */

/**
 * The values a distinct key remembers: the threshold + 1 most recently seen. That decides every
 * comparator exactly. The count is then min(count, keep): a count of keep or more compares as more
 * than the threshold whatever it is, and below keep every value in the window is remembered.
 */
export function distinctKeep(threshold: number): number {
  return Number.isFinite(threshold) && threshold >= 0 ? Math.floor(threshold) + 1 : Number.POSITIVE_INFINITY;
}

export function referencesOf(def: EventDefinition): string[] {
  switch (def.kind) {
    case 'count':
    case 'distinct':
    case 'average':
      return def.triggerEvent === null ? [] : [def.triggerEvent];
    case 'cep':
      return def.steps.map((s) => s.event);
    case 'combined':
      return def.members.map((m) => m.event);
    default:
      return [];
  }
}

/** The distinct logs of an event's sources that exist, with their key-field mappings. */
export function resolveSources(def: EventDefinition, source: SourceLookup): SourceInfo[] {
  const out: SourceInfo[] = [];
  for (const id of def.sources) {
    const info = source(id);
    if (info !== undefined && !out.some((o) => o.log === info.log)) out.push(info);
  }
  return out;
}

/**
 * Compiles the enabled events and every event they refer to (disabled ones too: they run as parts
 * but do not fire in the output), then the per-log programs. State of a stateful event whose
 * signature is unchanged moves over from `previous`. An event that cannot be compiled (a reference
 * to a missing or wrong kind of event, a relation or regex checkEvent refuses) is skipped with the
 * code of its first problem, and so is every event that refers to it.
 */
export function compileEvents(
  events: readonly EventDefinition[],
  source: SourceLookup,
  options: CompileOptions,
  previous: Previous,
): Compiled {
  const defs = new Map<string, EventDefinition>();
  for (const e of events) if (!defs.has(e.id)) defs.set(e.id, e);

  const needed = new Set<string>();
  const visit = (id: string): void => {
    const def = defs.get(id);
    if (def === undefined || needed.has(id)) return;
    needed.add(id);
    referencesOf(def).forEach(visit);
  };
  for (const e of defs.values()) if (e.enabled) visit(e.id);

  const built = new Map<string, Runtime>();
  const skipped = new Map<string, string>();
  const building = new Set<string>();

  const build = (id: string): Runtime | null => {
    const done = built.get(id);
    if (done !== undefined) return done;
    const def = defs.get(id);
    if (def === undefined || skipped.has(id) || building.has(id)) return null;
    building.add(id);
    const result = buildOne(def);
    building.delete(id);
    if (typeof result === 'string') {
      skipped.set(id, result);
      return null;
    }
    built.set(id, result);
    return result;
  };

  const sigOf = (def: EventDefinition, sources: SourceInfo[], parts: unknown[]): string => {
    const object = 'object' in def ? def.object : null;
    const logs = sources.map((s) => [s.log, object === null ? '' : (s.keyFields[object] ?? '')]).sort();
    const text = JSON.stringify([def.kind, logs, ...parts]);
    return `${hash53(text).toString(36)}.${text.length.toString(36)}`;
  };

  const simpleRef = (id: string): SimpleRuntime | string => {
    const def = defs.get(id);
    if (def === undefined) return 'event_unknown';
    if (def.kind !== 'simple') return 'event_not_simple';
    const rt = build(id);
    return rt?.kind === 'simple' ? rt : 'event_invalid';
  };

  const buildOne = (def: EventDefinition): Runtime | string => {
    const sources = resolveSources(def, source);
    const base = { id: def.id, name: def.name, enabled: def.enabled, logs: sources.map((s) => s.log), firings: 0 };
    const stateful = { slab: null, member: -1, keys: 0, evictions: 0, firedSeq: -1 };
    switch (def.kind) {
      case 'simple': {
        const labels = def.conditions.map((c) => c.label);
        if (new Set(labels).size !== labels.length) return 'label_duplicate';
        const parsed = parseRelation(def.relation, labels);
        if (!parsed.ok) return parsed.problem.code;
        for (const c of def.conditions) {
          if (c.filter === 'string' && c.mode === 'regex' && userRegexIssue(c.value) !== null) return 'regex_invalid';
          if (c.filter === 'number' && !Number.isFinite(Number(c.value))) return 'value_not_number';
        }
        const conditions = def.conditions.map((c) => [c.label, c.field, c.filter, c.mode, c.value]);
        return {
          ...base,
          kind: 'simple',
          sig: sigOf(def, sources, [def.relation, conditions]),
          conditions: def.conditions,
          fields: [...new Set(def.conditions.map((c) => c.field))],
        } satisfies SimpleRuntime;
      }
      case 'count':
      case 'distinct':
      case 'average': {
        let triggerSig = '';
        if (def.triggerEvent !== null) {
          const trigger = simpleRef(def.triggerEvent);
          if (typeof trigger === 'string') return trigger;
          triggerSig = trigger.sig;
        }
        const seconds = windowSeconds(def.window);
        const bucketMs = bucketMsOf(seconds);
        const field = def.kind === 'count' ? null : def.field;
        return {
          ...base,
          ...stateful,
          kind: def.kind,
          sig: sigOf(def, sources, [seconds, def.comparator, def.threshold, field, def.object, triggerSig]),
          object: def.object,
          shape: {
            kind: def.kind,
            n: Math.ceil((seconds * 1000) / bucketMs),
            exactDistinct: options.exactDistinct,
            keep: def.kind === 'distinct' ? distinctKeep(def.threshold) : Number.POSITIVE_INFINITY,
          },
          windowSeconds: seconds,
          windowMs: seconds * 1000,
          bucketMs,
          cmp: cmpOf(def.comparator),
          comparator: def.comparator,
          threshold: def.threshold,
          field,
          trigger: def.triggerEvent,
        } satisfies WindowRuntime;
      }
      case 'cep': {
        const stepSigs: unknown[] = [];
        for (const step of def.steps) {
          const rt = simpleRef(step.event);
          if (typeof rt === 'string') return rt;
          if (step.min < 1 || step.max < step.min) return 'step_range';
          stepSigs.push([rt.sig, step.min, step.max]);
        }
        const seconds = windowSeconds(def.window);
        const shape: CepShape = {
          windowMs: seconds * 1000,
          mins: def.steps.map((s) => s.min),
          maxs: def.steps.map((s) => s.max),
          strict: def.continuity === 'strict',
        };
        return {
          ...base,
          ...stateful,
          kind: 'cep',
          sig: sigOf(def, sources, [seconds, def.continuity, def.object, stepSigs]),
          object: def.object,
          shape,
          windowSeconds: seconds,
          windowMs: seconds * 1000,
          steps: def.steps.map((s) => s.event),
        } satisfies CepRuntime;
      }
      case 'combined': {
        const labels = def.members.map((m) => m.label);
        if (new Set(labels).size !== labels.length) return 'label_duplicate';
        const parsed = parseRelation(def.relation, labels);
        if (!parsed.ok) return parsed.problem.code;
        const memberSigs: unknown[] = [];
        const objects = new Set<KeyTarget>();
        for (const m of def.members) {
          const mdef = defs.get(m.event);
          if (mdef === undefined) return 'event_unknown';
          if (mdef.kind === 'combined') return 'member_not_single';
          const rt = build(m.event);
          if (rt === null) return 'event_invalid';
          if (isStateful(rt)) objects.add(rt.object);
          memberSigs.push([m.label, rt.sig]);
        }
        const [only] = objects;
        return {
          ...base,
          kind: 'combined',
          sig: sigOf(def, sources, [def.relation, memberSigs]),
          object: objects.size === 1 && only !== undefined ? only : null,
        } satisfies CombinedRuntime;
      }
    }
  };

  for (const id of needed) build(id);
  // Definition order, so a record's firings come in the order the events are listed.
  const runtimes = new Map<string, Runtime>();
  for (const id of defs.keys()) {
    const rt = built.get(id);
    if (rt !== undefined) runtimes.set(id, rt);
  }
  const slabs = makeSlabs(runtimes, previous, options.maxKeysPerEvent);
  const programs = buildPrograms(defs, runtimes, slabs, source);
  const report: ConfigureReport = {
    compiled: [...runtimes.keys()],
    skipped: [...skipped].map(([id, code]) => ({ id, code })),
  };
  return { programs, runtimes, slabs, report };
}

/**
 * One slab per trigger object. Counters of events whose signature is unchanged carry over, and so
 * do their states: a slab whose members are unchanged is kept as it is; otherwise the kept members'
 * regions and objects are copied, key by key, into the new layout.
 */
function makeSlabs(
  runtimes: ReadonlyMap<string, Runtime>,
  previous: Previous,
  capacity: number,
): Map<KeyTarget, EventSlab> {
  const byObject = new Map<KeyTarget, StatefulRuntime[]>();
  for (const rt of runtimes.values()) {
    if (!isStateful(rt)) continue;
    const list = byObject.get(rt.object) ?? [];
    list.push(rt);
    byObject.set(rt.object, list);
  }
  const slabs = new Map<KeyTarget, EventSlab>();
  // Regions read by every record of a key first, right after the slot's header (which the key
  // lookup has just read): strict CEP events (a record no step matches still breaks the key's runs,
  // a 4-number region), then windows without a trigger; then those read only when something matches.
  const rank = (rt: StatefulRuntime): number =>
    rt.kind === 'cep' ? (rt.shape.strict ? 0 : 3) : rt.trigger === null ? 1 : 2;
  for (const [object, unordered] of byObject) {
    const members = [...unordered].sort((a, b) => rank(a) - rank(b));
    const old = previous.slabs.get(object);
    // For each member: its place in the old slab when its state carries over, else -1.
    const from = members.map((rt) => {
      const before = previous.runtimes.get(rt.id);
      if (old === undefined || before === undefined || !isStateful(before) || before.sig !== rt.sig) return -1;
      if (before.slab !== old) return -1;
      rt.firings = before.firings;
      rt.evictions = before.evictions;
      rt.keys = before.keys;
      return before.member;
    });
    members.forEach((rt, i) => (rt.member = i));
    const same = old !== undefined && old.members.length === members.length && from.every((f, i) => f === i);
    const slab = same ? old : new KeySlab<StatefulRuntime>(object, capacity, members, regionSize, listPools);
    slab.members = members;
    members.forEach((rt) => (rt.slab = slab));
    slabs.set(object, slab);
    if (same || old === undefined || from.every((f) => f === -1)) continue;
    for (const [key, oldSlot] of old.entries()) {
      let slot = -1;
      from.forEach((f, m) => {
        if (f === -1) return;
        const at = oldSlot * old.stride + old.offsets[f]!;
        if (old.data[at] === EMPTY) return;
        if (slot === -1) slot = slab.create(key);
        const size = regionSize(members[m]!);
        slab.data.set(old.data.subarray(at, at + size), slot * slab.stride + slab.offsets[m]!);
        const to = slot * slab.stride + slab.offsets[m]!;
        const room = old.data[at + RING_ROOM]!;
        const oldPool = old.pools[f]?.of(room);
        const pool = slab.pools[m]?.of(room);
        if (old.data[at] === RING && oldPool && pool) {
          const index = pool.take();
          const from = old.data[at + RING_INDEX]! * oldPool.size;
          pool.data.set(oldPool.data.subarray(from, from + oldPool.size), index * pool.size);
          slab.data[to + RING_INDEX] = index;
        }
        const state = old.objects[f]![oldSlot];
        if (state !== undefined) {
          const objects = slab.objects[m]!;
          while (objects.length <= slot) objects.push(undefined);
          objects[slot] = state;
        }
      });
    }
  }
  return slabs;
}

function buildPrograms(
  defs: ReadonlyMap<string, EventDefinition>,
  runtimes: ReadonlyMap<string, Runtime>,
  slabs: ReadonlyMap<KeyTarget, EventSlab>,
  source: SourceLookup,
): Map<string, LogProgram> {
  const keyFieldsOf = new Map<string, Map<string, Partial<Record<KeyTarget, string>>>>();
  for (const id of runtimes.keys()) {
    const def = defs.get(id);
    if (def === undefined) continue;
    keyFieldsOf.set(id, new Map(resolveSources(def, source).map((s) => [s.log, s.keyFields])));
  }
  const keyField = (id: string, log: string, object: KeyTarget): string | null =>
    keyFieldsOf.get(id)?.get(log)?.[object] ?? null;

  const logs = new Set<string>();
  for (const rt of runtimes.values()) rt.logs.forEach((l) => logs.add(l));
  const programs = new Map<string, LogProgram>();
  for (const log of logs) {
    const plan = new LogPlan<SimpleRuntime>(log);
    const simpleIndex = new Map<string, number>();
    /** A simple event's index in this log's plan; -2 when it does not read the log. */
    const simpleOn = (id: string): number => {
      const known = simpleIndex.get(id);
      if (known !== undefined) return known;
      const rt = runtimes.get(id);
      const def = defs.get(id);
      if (rt?.kind !== 'simple' || def?.kind !== 'simple' || !rt.logs.includes(log)) return -2;
      const byLabel = new Map(def.conditions.map((c) => [c.label, c]));
      const parsed = parseRelation(def.relation, [...byLabel.keys()]);
      if (!parsed.ok) return -2;
      const relation = compileRelation<LogPlan<SimpleRuntime>>(
        parsed.value,
        (label) => {
          const slot = plan.condition(byLabel.get(label)!);
          return (p) => p.cond(slot);
        },
        (label) => conditionCost(byLabel.get(label)!),
      );
      const gate = gateOf(parsed.value, (label) => plan.exactOf(byLabel.get(label)!));
      const index = plan.addSimple(rt, relation, gate);
      simpleIndex.set(id, index);
      return index;
    };
    const lookups = new Map<string, KeyLookup>();
    const lookupOf = (rt: StatefulRuntime | CombinedRuntime, object: KeyTarget): KeyLookup | null => {
      const field = keyField(rt.id, log, object);
      const slab = slabs.get(object);
      if (field === null || slab === undefined) return null;
      const id = `${object}\u0000${field}`;
      let lookup = lookups.get(id);
      if (lookup === undefined) {
        lookup = { slab, keyField: field, seq: -1, key: null, hash: 0, slot: -1 };
        lookups.set(id, lookup);
      }
      return lookup;
    };

    const outputs: number[] = [];
    const windows: PlanWindow[] = [];
    const ceps: PlanCep[] = [];
    const combined: PlanCombined[] = [];
    for (const rt of runtimes.values()) {
      if (!rt.logs.includes(log)) continue;
      switch (rt.kind) {
        case 'simple':
          if (rt.enabled) outputs.push(simpleOn(rt.id));
          break;
        case 'count':
        case 'distinct':
        case 'average': {
          const lookup = lookupOf(rt, rt.object);
          const trigger = rt.trigger === null ? -1 : simpleOn(rt.trigger);
          if (lookup === null || trigger === -2) break;
          windows.push({ rt, trigger, lookup, valueField: rt.field === null ? -1 : plan.field(rt.field) });
          break;
        }
        case 'cep': {
          const lookup = lookupOf(rt, rt.object);
          if (lookup === null) break;
          const steps = Int32Array.from(rt.steps, (id) => Math.max(-1, simpleOn(id)));
          ceps.push({ rt, steps, matches: new Uint8Array(steps.length), lookup });
          break;
        }
        case 'combined': {
          const def = defs.get(rt.id);
          if (def?.kind !== 'combined') break;
          const parsed = parseRelation(
            def.relation,
            def.members.map((m) => m.label),
          );
          if (!parsed.ok) break;
          const members: PlanMember[] = def.members.map((m) => {
            const member = runtimes.get(m.event);
            if (member === undefined || !isStateful(member))
              return { label: m.label, simple: Math.max(-1, simpleOn(m.event)), rt: null, lookup: null };
            return { label: m.label, simple: -1, rt: member, lookup: lookupOf(member, member.object) };
          });
          const index = new Map(members.map((m, i) => [m.label, i]));
          combined.push({
            rt,
            members,
            values: new Uint8Array(members.length),
            relation: memberRelation(parsed.value, index),
            keyField: rt.object === null ? null : keyField(rt.id, log, rt.object),
          });
          break;
        }
      }
    }
    if (outputs.length + windows.length + ceps.length + combined.length === 0) continue;
    plan.seal();
    const outputList = Int32Array.from(outputs);
    plan.indexOutputs(outputList);
    programs.set(log, {
      log,
      plan,
      outputs: outputList,
      matched: new Int32Array(outputList.length),
      windows,
      ceps,
      combined,
    });
  }
  return programs;
}

function memberRelation(node: RelationNode, index: ReadonlyMap<string, number>) {
  return compileRelation<Uint8Array>(node, (label) => {
    const i = index.get(label) ?? 0;
    return (values) => values[i] === 1;
  });
}
