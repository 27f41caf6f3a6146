import { advanceRuns, CepKey, type CepMatch } from './cep.ts';
import { compare } from './compare.ts';
import { compileEvents, latched } from './compile.ts';
import { explainEvent } from './explain.ts';
import type { KeyEntry, ObjectGroup } from './groups.ts';
import { hash53 } from './hash.ts';
import { isStateful, type KeyLookup, type LogProgram, type Runtime, type StatefulRuntime } from './runtime.ts';
import { restoreState, snapshotState } from './snapshot.ts';
import type {
  ConfigureReport,
  EventDefinition,
  EventStats,
  ExplainRow,
  Firing,
  KeyTarget,
  RestoreReport,
  SourceLookup,
} from './types.ts';
import { fieldValue, keyOf, metaValue } from './values.ts';
import { addRecord, bucketOf, WindowKey } from './window.ts';

type LogRecord = Readonly<Record<string, unknown>>;

/** What `observe` returns when nothing fires: one shared frozen array, so the common case allocates nothing. */
const NO_FIRINGS: readonly Firing[] = Object.freeze([]);
/** Times past this (year 275760, the end of Date) are not times: they would stop the clock for ever. */
const MAX_TIME = 8.64e15;

export interface EventEngineOptions {
  /** Keys kept per trigger object, so per event (least recently used evicted): default 100,000. */
  maxKeysPerEvent?: number;
  /** Distinct values counted exactly per key before a HyperLogLog takes over: default 1,024. */
  exactDistinct?: number;
}

/** The key of a record for a group, looked up at most once per record. */
function resolve(lookup: KeyLookup, record: LogRecord, seq: number): void {
  lookup.seq = seq;
  const key = keyOf(record, lookup.keyField);
  lookup.key = key;
  lookup.entry = key === null ? undefined : lookup.group.table.get(key);
}

/** The record's entry in a group, made when there is none. */
function entryOf(lookup: KeyLookup): KeyEntry {
  return (lookup.entry ??= lookup.group.entry(lookup.key!));
}

/**
 * The streaming evaluator. Synchronous and single-threaded by design: one instance sits behind the
 * log store's append observer; dry runs use their own instance.
 */
export class EventEngine {
  private readonly maxKeysPerEvent: number;
  private readonly exactDistinct: number;
  private programs = new Map<string, LogProgram>();
  private runtimes = new Map<string, Runtime>();
  private groups = new Map<KeyTarget, ObjectGroup>();
  private definitions = new Map<string, EventDefinition>();
  /** Engine time (ms): the largest `now` seen, so it never moves back. */
  private clock = 0;
  /** Record sequence number: the stamp of everything computed for the current record. */
  private seq = 0;
  private readonly match: CepMatch = { start: 0, matched: 0 };
  private failures = 0;

  constructor(options: EventEngineOptions = {}) {
    this.maxKeysPerEvent = positive(options.maxKeysPerEvent, 100_000);
    this.exactDistinct = positive(options.exactDistinct, 1024);
  }

  /** The engine time (ms): never less than any `now` seen. */
  get now(): number {
    return this.clock;
  }

  /** Records whose evaluation threw (a record with a throwing getter); they fired nothing. */
  get failedRecords(): number {
    return this.failures;
  }

  /** Compiles the enabled events (and simple events they reference); keeps the state of events whose definition did not change. */
  configure(events: readonly EventDefinition[], source: SourceLookup): ConfigureReport {
    const compiled = compileEvents(
      events,
      source,
      { maxKeysPerEvent: this.maxKeysPerEvent, exactDistinct: this.exactDistinct },
      { runtimes: this.runtimes, groups: this.groups },
    );
    this.programs = compiled.programs;
    this.runtimes = compiled.runtimes;
    this.groups = compiled.groups;
    this.definitions = new Map(events.map((e) => [e.id, e]));
    return compiled.report;
  }

  /**
   * The hot path: one live record of `log` at time `now` (ms). Returns a shared frozen empty array
   * when nothing fires. A log no event reads costs one Map lookup. Never throws.
   */
  observe(log: string, record: LogRecord, now: number): readonly Firing[] {
    const program = this.programs.get(log);
    if (program === undefined) return NO_FIRINGS;
    if (typeof record !== 'object' || record === null) return NO_FIRINGS;
    if (now > this.clock && now < MAX_TIME) this.clock = now;
    try {
      return this.run(program, record, this.clock, ++this.seq);
    } catch {
      this.failures++;
      return NO_FIRINGS;
    }
  }

  private run(program: LogProgram, record: LogRecord, at: number, seq: number): readonly Firing[] {
    const plan = program.plan;
    plan.begin(record, seq);
    let out: Firing[] | null = null;
    const log = program.log;

    const outputs = program.outputs;
    for (let i = 0; i < outputs.length; i++) {
      const index = outputs[i]!;
      if (!plan.simple(index)) continue;
      const rt = plan.simples[index]!.event;
      rt.firings++;
      const meta: Record<string, string | number> = {};
      for (const field of rt.fields) meta[field] = metaValue(fieldValue(record, field));
      (out ??= []).push({ eventId: rt.id, eventName: rt.name, kind: 'simple', log, object: null, key: null, at, meta, record });
    }

    const windows = program.windows;
    for (let w = 0; w < windows.length; w++) {
      const win = windows[w]!;
      if (win.trigger >= 0 && !plan.simple(win.trigger)) continue;
      const lookup = win.lookup;
      if (lookup.seq !== seq) resolve(lookup, record, seq);
      const key = lookup.key;
      if (key === null) continue;
      const rt = win.rt;
      let value = 0;
      if (rt.kind === 'average') {
        value = plan.num(win.valueField);
        if (value !== value) continue;
      } else if (rt.kind === 'distinct') {
        const text = plan.text(win.valueField);
        if (text === null) continue;
        value = hash53(text);
      }
      const states = entryOf(lookup).states;
      let k = states[rt.slot] as WindowKey | null;
      if (k === null) {
        k = new WindowKey();
        states[rt.slot] = k;
        rt.keys++;
      }
      const bucket = bucketOf(at, rt.bucketMs);
      const stat = addRecord(rt.shape, k, bucket, value);
      if (bucket < k.mute || !compare(rt.cmp, stat, rt.threshold)) continue;
      const records = k.total;
      const approximate = k.hll !== null ? 1 : 0;
      k.clear();
      k.mute = bucket + rt.shape.n;
      rt.firings++;
      rt.firedSeq = seq;
      if (!rt.enabled) continue;
      const meta: Record<string, string | number> = { key, window: rt.windowSeconds };
      if (rt.kind === 'count') meta.count = stat;
      else if (rt.kind === 'distinct') {
        meta.distinct = stat;
        meta.field = rt.field ?? '';
        meta.approximate = approximate;
      } else {
        meta.average = stat;
        meta.records = records;
        meta.field = rt.field ?? '';
      }
      meta.comparator = rt.comparator;
      meta.threshold = rt.threshold;
      (out ??= []).push({ eventId: rt.id, eventName: rt.name, kind: rt.kind, log, object: rt.object, key, at, meta, record });
    }

    const ceps = program.ceps;
    for (let c = 0; c < ceps.length; c++) {
      const cep = ceps[c]!;
      const rt = cep.rt;
      const steps = cep.steps;
      const matches = cep.matches;
      let any = false;
      for (let i = 0; i < steps.length; i++) {
        const s = steps[i]!;
        const hit = s >= 0 && plan.simple(s);
        matches[i] = hit ? 1 : 0;
        if (hit) any = true;
      }
      if (!any && !rt.shape.strict) continue;
      const lookup = cep.lookup;
      if (lookup.seq !== seq) resolve(lookup, record, seq);
      const key = lookup.key;
      if (key === null) continue;
      if (!any) {
        // Strict continuity: a record of the key that no step matches breaks its runs.
        const k = lookup.entry?.states[rt.slot] as CepKey | null | undefined;
        if (k) k.runs.length = 0;
        continue;
      }
      const states = entryOf(lookup).states;
      let k = states[rt.slot] as CepKey | null;
      if (k === null) {
        k = new CepKey();
        states[rt.slot] = k;
        rt.keys++;
      }
      if (!advanceRuns(rt.shape, k, matches, at, this.match)) continue;
      k.latch = at + rt.windowMs;
      rt.firings++;
      rt.firedSeq = seq;
      if (!rt.enabled) continue;
      const meta = { key, window: rt.windowSeconds, steps: steps.length, matched: this.match.matched, first: this.match.start };
      (out ??= []).push({ eventId: rt.id, eventName: rt.name, kind: 'cep', log, object: rt.object, key, at, meta, record });
    }

    const combined = program.combined;
    for (let c = 0; c < combined.length; c++) {
      const cb = combined[c]!;
      const members = cb.members;
      const values = cb.values;
      let became = false;
      for (let i = 0; i < members.length; i++) {
        const m = members[i]!;
        const hit = m.rt === null ? m.simple >= 0 && plan.simple(m.simple) : m.rt.firedSeq === seq;
        values[i] = hit ? 1 : 0;
        if (hit) became = true;
      }
      if (!became) continue;
      for (let i = 0; i < members.length; i++) {
        const m = members[i]!;
        if (values[i] === 1 || m.rt === null || m.lookup === null) continue;
        const lookup = m.lookup;
        if (lookup.seq !== seq) resolve(lookup, record, seq);
        if (lookup.entry !== undefined && latched(m.rt, lookup.entry, at)) values[i] = 1;
      }
      if (!cb.relation(values)) continue;
      const rt = cb.rt;
      rt.firings++;
      if (!rt.enabled) continue;
      const key = cb.keyField === null ? null : keyOf(record, cb.keyField);
      const labels: string[] = [];
      for (let i = 0; i < members.length; i++) if (values[i] === 1) labels.push(members[i]!.label);
      const meta: Record<string, string | number> = { members: labels.join(',') };
      if (key !== null) meta.key = key;
      const object = key === null ? null : rt.object;
      (out ??= []).push({ eventId: rt.id, eventName: rt.name, kind: 'combined', log, object, key, at, meta, record });
    }
    return out ?? NO_FIRINGS;
  }

  /** Drops expired keys (call every few seconds): windows that hold nothing and are no longer muted or latched. */
  sweep(now: number): void {
    if (now > this.clock && now < MAX_TIME) this.clock = now;
    for (const group of this.groups.values()) group.sweep(this.clock);
  }

  /** Per compiled event: keys held, keys evicted, times fired (parts that are not enabled included). */
  stats(): Record<string, EventStats> {
    const out: Record<string, EventStats> = {};
    for (const rt of this.runtimes.values()) {
      out[rt.id] = isStateful(rt)
        ? { keys: rt.keys, evictions: rt.evictions, firings: rt.firings }
        : { keys: 0, evictions: 0, firings: rt.firings };
    }
    return out;
  }

  /** Versioned JSON of all window / CEP / latch state. */
  snapshot(): string {
    return snapshotState(this.clock, this.stateful());
  }

  /**
   * Takes the state of a snapshot for the events configured now; state of events that no longer
   * exist or changed is ignored, and so is a text that is not a snapshot of this version.
   */
  restore(text: string): RestoreReport {
    const result = restoreState(text, this.runtimes);
    if (result.clock > this.clock && result.clock < MAX_TIME) this.clock = result.clock;
    return result.report;
  }

  /** For one record: each condition's and each referenced simple event's outcome for an event ("explain"); undefined for an unknown event. */
  explain(eventId: string, record: LogRecord): ExplainRow[] | undefined {
    return explainEvent(eventId, record, this.definitions);
  }

  private stateful(): StatefulRuntime[] {
    return [...this.runtimes.values()].filter(isStateful);
  }
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : fallback;
}
