import { advanceRuns, type CepMatch } from './cep.ts';
import { compare } from './compare.ts';
import { compileEvents } from './compile.ts';
import { explainEvent } from './explain.ts';
import { hash53 } from '#engine/shared';
import {
  isStateful,
  type EventSlab,
  type KeyLookup,
  type LogProgram,
  type Runtime,
  type StatefulRuntime,
} from './runtime.ts';
import { hashKey } from './slab.ts';
import { restoreState, snapshotState, SnapshotTaker } from './snapshot.ts';
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
import { bucketOf } from './window.ts';
import {
  addToSlot,
  breakRuns,
  cepKeyAt,
  fireSlot,
  hasRuns,
  latched,
  muteOf,
  noteCep,
  sweepSlab,
} from './window-slot.ts';

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

/** The key of a record in a slab, looked up at most once per record. */
function resolve(lookup: KeyLookup, record: LogRecord, seq: number): void {
  lookup.seq = seq;
  const key = keyOf(record, lookup.keyField);
  lookup.key = key;
  if (key === null) {
    lookup.slot = -1;
    return;
  }
  const hash = hashKey(key);
  lookup.hash = hash;
  lookup.slot = lookup.slab.find(key, hash);
}

/**
 * The record's slot in a slab, made when there is none; the caller changes its state next, so a
 * snapshot being taken in slices takes the slot first, as it was.
 */
function slotOf(lookup: KeyLookup): number {
  if (lookup.slot < 0) lookup.slot = lookup.slab.create(lookup.key!, lookup.hash);
  lookup.slab.watcher?.touch(lookup.slot);
  return lookup.slot;
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
  private slabs = new Map<KeyTarget, EventSlab>();
  private definitions = new Map<string, EventDefinition>();
  /** Engine time (ms): the largest `now` seen, so it never moves back. */
  private clock = 0;
  /** Record sequence number: the stamp of everything computed for the current record. */
  private seq = 0;
  private readonly match: CepMatch = { start: 0, matched: 0 };
  private failures = 0;
  /** A snapshot being taken in slices, if any (see `beginSnapshot`). */
  private taker: SnapshotTaker | null = null;

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

  /** Compiles the enabled events (and the events they refer to); keeps the state of events whose definition did not change. */
  configure(events: readonly EventDefinition[], source: SourceLookup): ConfigureReport {
    this.taker?.abort();
    this.taker = null;
    const compiled = compileEvents(
      events,
      source,
      { maxKeysPerEvent: this.maxKeysPerEvent, exactDistinct: this.exactDistinct },
      { runtimes: this.runtimes, slabs: this.slabs },
    );
    this.programs = compiled.programs;
    this.runtimes = compiled.runtimes;
    this.slabs = compiled.slabs;
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
    program.plan.begin(record, seq);
    let out = this.simples(program, record, at, null);
    out = this.windows(program, record, at, seq, out);
    out = this.sequences(program, record, at, seq, out);
    out = this.combined(program, record, at, seq, out);
    return out ?? NO_FIRINGS;
  }

  /** Enabled simple events: each fires on every record it matches. */
  private simples(program: LogProgram, record: LogRecord, at: number, out: Firing[] | null): Firing[] | null {
    const plan = program.plan;
    const outputs = program.outputs;
    const matched = program.matched;
    const n = plan.matchOutputs(matched);
    for (let i = 0; i < n; i++) {
      const rt = plan.simples[outputs[matched[i]!]!]!.event;
      rt.firings++;
      const meta: Record<string, string | number> = {};
      for (const field of rt.fields) meta[field] = metaValue(fieldValue(record, field));
      const log = program.log;
      (out ??= []).push({
        eventId: rt.id,
        eventName: rt.name,
        kind: 'simple',
        log,
        object: null,
        key: null,
        at,
        meta,
        record,
      });
    }
    return out;
  }

  /** Count, distinct and average events: the record joins its key's window, which may fire. */
  private windows(
    program: LogProgram,
    record: LogRecord,
    at: number,
    seq: number,
    out: Firing[] | null,
  ): Firing[] | null {
    const plan = program.plan;
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
      const slab = lookup.slab;
      const slot = slotOf(lookup);
      const bucket = bucketOf(at, rt.bucketMs);
      const stat = addToSlot(rt, slab, rt.member, slot, bucket, value);
      if (!compare(rt.cmp, stat, rt.threshold) || bucket < muteOf(slab, rt.member, slot)) continue;
      const { records, approximate } = fireSlot(slab, rt.member, slot, bucket + rt.shape.n);
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
      const log = program.log;
      (out ??= []).push({
        eventId: rt.id,
        eventName: rt.name,
        kind: rt.kind,
        log,
        object: rt.object,
        key,
        at,
        meta,
        record,
      });
    }
    return out;
  }

  /** CEP events: the record advances its key's runs, which may complete. */
  private sequences(
    program: LogProgram,
    record: LogRecord,
    at: number,
    seq: number,
    out: Firing[] | null,
  ): Firing[] | null {
    const plan = program.plan;
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
      const slab = lookup.slab;
      // Without a run to continue, only a record of the first step does anything: it starts one.
      if (matches[0] === 0 && (lookup.slot < 0 || !hasRuns(slab, rt.member, lookup.slot))) continue;
      if (!any) {
        // Strict continuity: a record of the key that no step matches breaks its runs.
        // A snapshot being taken in slices takes the slot first, as it was (see slotOf).
        slab.watcher?.touch(lookup.slot);
        breakRuns(slab, rt.member, lookup.slot);
        continue;
      }
      const slot = slotOf(lookup);
      const k = cepKeyAt(rt, slab, rt.member, slot, true)!;
      const fired = advanceRuns(rt.shape, k, matches, at, this.match);
      if (fired) k.latch = at + rt.windowMs;
      noteCep(slab, rt.member, slot, k, matches[0] === 1, at);
      if (!fired) continue;
      rt.firings++;
      rt.firedSeq = seq;
      if (!rt.enabled) continue;
      const { matched, start } = this.match;
      const meta = { key, window: rt.windowSeconds, steps: steps.length, matched, first: start };
      const log = program.log;
      (out ??= []).push({
        eventId: rt.id,
        eventName: rt.name,
        kind: 'cep',
        log,
        object: rt.object,
        key,
        at,
        meta,
        record,
      });
    }
    return out;
  }

  /** Combined events: fire where the relation holds and a member became true on this record. */
  private combined(
    program: LogProgram,
    record: LogRecord,
    at: number,
    seq: number,
    out: Firing[] | null,
  ): Firing[] | null {
    const plan = program.plan;
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
      // Windowed members that did not fire on this record: latched for the record's key?
      for (let i = 0; i < members.length; i++) {
        const m = members[i]!;
        if (values[i] === 1 || m.rt === null || m.lookup === null) continue;
        const lookup = m.lookup;
        if (lookup.seq !== seq) resolve(lookup, record, seq);
        if (lookup.slot >= 0 && latched(m.rt, lookup.slab, lookup.slot, at)) values[i] = 1;
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
      const log = program.log;
      (out ??= []).push({ eventId: rt.id, eventName: rt.name, kind: 'combined', log, object, key, at, meta, record });
    }
    return out;
  }

  /** Drops expired keys (call every few seconds): windows that hold nothing and are no longer muted or latched. */
  sweep(now: number): void {
    if (now > this.clock && now < MAX_TIME) this.clock = now;
    // Keys expire at the next sweep once a snapshot being taken in slices is done.
    if (this.taker?.taking === true) return;
    for (const slab of this.slabs.values()) sweepSlab(slab, this.clock);
  }

  /**
   * Per compiled event: keys held, keys evicted, times fired. Windowed events that are only parts
   * (not enabled) count their firings too; a simple event that is only a filter counts none (it is
   * evaluated only when something needs it).
   */
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
   * The same snapshot, of the state now, taken a slice at a time (`step`) while records go on
   * being observed: they change nothing in it. A later `configure` or `restore` aborts it (it is
   * then not `complete`), and so does the next `beginSnapshot`.
   */
  beginSnapshot(): SnapshotTaker {
    this.taker?.abort();
    this.taker = new SnapshotTaker(this.clock, this.stateful());
    return this.taker;
  }

  /**
   * Takes the state of a snapshot for the events configured now; state of events that no longer
   * exist or changed is ignored, and so is a text that is not a snapshot of this version. `state` is
   * the snapshot's text or that text parsed.
   */
  restore(state: unknown): RestoreReport {
    this.taker?.abort();
    this.taker = null;
    const result = restoreState(state, this.runtimes);
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
