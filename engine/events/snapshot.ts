import { CepKey, MAX_RUNS } from './cep.ts';
import type { EventSlab, Runtime, StatefulRuntime, WindowRuntime } from './runtime.ts';
import type { SlabWatcher } from './slab.ts';
import { SlidingHll } from './sliding-hll.ts';
import type { RestoreReport } from './types.ts';
import { distinctEntries, MAX_BUCKETS, rememberAll, WindowKey } from './window.ts';
import { cepKeyAt, storeState, windowKeyAt } from './window-slot.ts';

/**
 * The snapshot format (version 1), JSON:
 * `{ format, version, clock, events: [{ id, kind, sig, keys }] }` where a key of a count, distinct or
 * average event is `[key, mute, last, buckets, values, hll]` (`values`: flat `[hash, bucket, ...]`
 * of a distinct key in exact mode, else null; `hll`: `[bucket, base64 registers]` or null) and a key
 * of a CEP event is `[key, latch, runs]`. Bucket numbers are those of window.ts (from its epoch).
 * Keys are listed least recently used first, so a restore rebuilds the same eviction order.
 */
const FORMAT = 'rampart-events-state';
const VERSION = 1;
/** -Infinity (nothing yet) is not JSON. */
const NONE = -1e300;

type WindowEntry = [string, number, number, number[], number[] | null, [number, string] | null];
type CepEntry = [string, number, number[]];

const finite = (n: number): number => (Number.isFinite(n) ? n : NONE);
const unfinite = (n: number): number => (n <= NONE ? -Infinity : n);

/** A key's entry in a snapshot, or null when the event holds nothing for it. */
function entryOf(rt: StatefulRuntime, slab: EventSlab, key: string, slot: number): WindowEntry | CepEntry | null {
  const state =
    rt.kind === 'cep' ? cepKeyAt(rt, slab, rt.member, slot, false) : windowKeyAt(rt.shape, slab, rt.member, slot);
  if (state === null) return null;
  if (state instanceof CepKey) return [key, state.latch, state.runs];
  let values: number[] | null = null;
  if (state.hll === null && rt.kind === 'distinct') {
    const list: number[] = [];
    distinctEntries(state, (h, b) => list.push(h, b));
    values = list;
  }
  const hll: [number, string] | null = state.hll === null ? null : [state.hll.bucket, state.hll.save()];
  return [key, finite(state.mute), finite(state.last), state.buckets, values, hll];
}

export function snapshotState(clock: number, runtimes: readonly StatefulRuntime[]): string {
  const events = runtimes.map((rt) => {
    const keys: (WindowEntry | CepEntry)[] = [];
    const slab = rt.slab;
    if (slab !== null) {
      for (const [key, slot] of slab.entries()) {
        const entry = entryOf(rt, slab, key, slot);
        if (entry !== null) keys.push(entry);
      }
    }
    return { id: rt.id, kind: rt.kind, sig: rt.sig, keys };
  });
  return JSON.stringify({ format: FORMAT, version: VERSION, clock, events });
}

/** Keys written per piece of a sliced snapshot's text. */
const KEYS_PER_CHUNK = 2048;
/** A slice looks at the time every this many keys. */
const KEYS_PER_CLOCK_LOOK = 64;

/** One slab's part of a sliced snapshot: its slots in the order of the start, and which are taken. */
class SlabCapture implements SlabWatcher {
  /** Slots in recency order at the start, least recently used first. */
  readonly #order: Int32Array;
  /** slot -> 1 + its place in `order` (0: the slot held no key at the start, or is taken). */
  readonly #place: Int32Array;
  /** Keys taken ahead of the order (a record touched them first): place -> each member's entry ('' for none). */
  readonly #early = new Map<number, string[]>();
  #next = 0;

  constructor(
    readonly slab: EventSlab,
    readonly members: readonly { rt: StatefulRuntime; keys: string[] }[],
  ) {
    this.#order = slab.slotsByAge();
    this.#place = new Int32Array(slab.slotCount);
    const order = this.#order;
    for (let i = 0; i < order.length; i++) this.#place[order[i]!] = i + 1;
  }

  /** Each member's entry for a slot ('' where it holds nothing). */
  #entries(slot: number): string[] {
    const key = this.slab.keyOf[slot]!;
    return this.members.map((member) => {
      const entry = entryOf(member.rt, this.slab, key, slot);
      return entry === null ? '' : JSON.stringify(entry);
    });
  }

  /** Takes a slot's state as it was at the start, unless taken already: called before it first changes. */
  touch(slot: number): void {
    const place = slot < this.#place.length ? this.#place[slot]! : 0;
    if (place === 0) return;
    this.#place[slot] = 0;
    this.#early.set(place - 1, this.#entries(slot));
  }

  /** Takes the next slots in order until `deadline` (performance.now()); true when all are taken. */
  step(deadline: number): boolean {
    const order = this.#order;
    const members = this.members;
    while (this.#next < order.length) {
      const place = this.#next++;
      const slot = order[place]!;
      let entries: string[] | undefined;
      if (this.#place[slot] === place + 1) {
        this.#place[slot] = 0;
        entries = this.#entries(slot);
      } else {
        entries = this.#early.get(place);
        this.#early.delete(place);
      }
      for (let m = 0; m < members.length; m++) members[m]!.keys.push(entries?.[m] ?? '');
      if (this.#next % KEYS_PER_CLOCK_LOOK === 0 && performance.now() >= deadline) return this.#next >= order.length;
    }
    return true;
  }
}

/**
 * A snapshot of the state at one moment, taken a slice at a time so that a large state (hundreds
 * of thousands of keys take seconds) never holds the event loop for long. Records observed
 * meanwhile change nothing in it: the engine touches a slot (`KeySlab.watcher`) before it changes
 * or releases it, and a slot not taken yet is taken then, as it was. Its text is what
 * `snapshotState` gives at the start, keys in the same order; sweeps wait until it is done.
 */
export class SnapshotTaker {
  readonly clock: number;
  readonly #events: { rt: StatefulRuntime; keys: string[] }[];
  readonly #captures: SlabCapture[] = [];
  #state: 'taking' | 'done' | 'aborted' = 'taking';

  constructor(clock: number, runtimes: readonly StatefulRuntime[]) {
    this.clock = clock;
    this.#events = runtimes.map((rt) => ({ rt, keys: [] }));
    const bySlab = new Map<EventSlab, { rt: StatefulRuntime; keys: string[] }[]>();
    for (const event of this.#events) {
      const slab = event.rt.slab;
      if (slab === null) continue;
      let members = bySlab.get(slab);
      if (members === undefined) bySlab.set(slab, (members = []));
      members.push(event);
    }
    for (const [slab, members] of bySlab) {
      const capture = new SlabCapture(slab, members);
      slab.watcher = capture;
      this.#captures.push(capture);
    }
  }

  /** Whether it is still being taken (neither complete nor aborted). */
  get taking(): boolean {
    return this.#state === 'taking';
  }

  /** Whether all of it is taken. */
  get complete(): boolean {
    return this.#state === 'done';
  }

  /** Takes keys for up to `budgetMs`; true when there is nothing more to do (taken, or aborted). */
  step(budgetMs: number): boolean {
    if (this.#state !== 'taking') return true;
    const deadline = performance.now() + budgetMs;
    for (const capture of this.#captures) {
      if (!capture.step(deadline)) return false;
    }
    this.#finish('done');
    return true;
  }

  /** Stops taking (the events were configured anew, or state was restored): `complete` stays false. */
  abort(): void {
    if (this.#state === 'taking') this.#finish('aborted');
  }

  /** The snapshot's text in pieces (once complete): their concatenation is one snapshot. */
  *chunks(): Generator<string> {
    if (this.#state !== 'done') throw new Error('the snapshot is not complete');
    yield `{"format":${JSON.stringify(FORMAT)},"version":${VERSION},"clock":${JSON.stringify(this.clock)},"events":[`;
    let firstEvent = true;
    for (const { rt, keys } of this.#events) {
      yield `${firstEvent ? '' : ','}{"id":${JSON.stringify(rt.id)},"kind":${JSON.stringify(rt.kind)},"sig":${JSON.stringify(rt.sig)},"keys":[`;
      firstEvent = false;
      let piece: string[] = [];
      let firstPiece = true;
      for (const key of keys) {
        // '': the event held nothing for that key.
        if (key === '') continue;
        piece.push(key);
        if (piece.length < KEYS_PER_CHUNK) continue;
        yield `${firstPiece ? '' : ','}${piece.join(',')}`;
        firstPiece = false;
        piece = [];
      }
      yield `${piece.length === 0 || firstPiece ? '' : ','}${piece.join(',')}]}`;
    }
    yield ']}';
  }

  #finish(state: 'done' | 'aborted'): void {
    this.#state = state;
    for (const capture of this.#captures) if (capture.slab.watcher === capture) capture.slab.watcher = null;
  }
}

/** `state`: a snapshot's text, or that text already parsed (a state file embeds it as JSON). */
export function restoreState(
  state: unknown,
  runtimes: ReadonlyMap<string, Runtime>,
): { clock: number; report: RestoreReport } {
  const report: RestoreReport = { events: 0, keys: 0, ignored: 0 };
  let doc: unknown = state;
  if (typeof state === 'string') {
    try {
      doc = JSON.parse(state);
    } catch {
      return { clock: 0, report };
    }
  }
  if (!isObject(doc) || doc.format !== FORMAT || doc.version !== VERSION || !Array.isArray(doc.events))
    return { clock: 0, report };
  const clock = typeof doc.clock === 'number' && Number.isFinite(doc.clock) ? doc.clock : 0;
  for (const event of doc.events as unknown[]) {
    const rt = isObject(event) && typeof event.id === 'string' ? runtimes.get(event.id) : undefined;
    if (
      !isObject(event) ||
      !Array.isArray(event.keys) ||
      rt === undefined ||
      rt.kind === 'simple' ||
      rt.kind === 'combined' ||
      rt.slab === null ||
      rt.sig !== event.sig ||
      rt.kind !== event.kind
    ) {
      report.ignored++;
      continue;
    }
    report.events++;
    for (const item of event.keys as unknown[]) {
      if (!Array.isArray(item) || typeof item[0] !== 'string' || item[0] === '') continue;
      const state = rt.kind === 'cep' ? cepKey(item, rt.shape.mins.length) : windowKey(item, rt);
      if (state === null) continue;
      const slab = rt.slab;
      const slot = slab.create(item[0]);
      storeState(rt, slab, rt.member, slot, state);
      report.keys++;
    }
  }
  return { clock, report };
}

function cepKey(item: unknown[], steps: number): CepKey | null {
  const [, latch, runs] = item;
  if (typeof latch !== 'number' || !numbers(runs) || runs.length % 4 !== 0 || runs.length > MAX_RUNS * 4) return null;
  for (let r = 0; r < runs.length; r += 4) {
    const step = runs[r]!;
    if (!Number.isInteger(step) || step < 0 || step >= steps || runs[r + 1]! < 1) return null;
  }
  const k = new CepKey();
  k.latch = latch;
  k.runs = runs;
  return k;
}

function windowKey(item: unknown[], rt: WindowRuntime): WindowKey | null {
  const [, mute, last, buckets, values, hll] = item;
  const stride = rt.kind === 'average' ? 3 : 2;
  if (typeof mute !== 'number' || typeof last !== 'number' || !numbers(buckets)) return null;
  if (buckets.length % stride !== 0 || buckets.length > MAX_BUCKETS * stride) return null;
  const k = new WindowKey();
  k.mute = unfinite(mute);
  k.last = unfinite(last);
  k.buckets = buckets;
  for (let i = 0; i < buckets.length; i += stride) k.total += buckets[i + 1]!;
  if (rt.kind !== 'distinct') return k;
  if (Array.isArray(hll)) {
    if (typeof hll[0] !== 'number' || typeof hll[1] !== 'string') return null;
    k.hll = SlidingHll.load(rt.shape.n, hll[0], hll[1]);
    return k.hll === null ? null : k;
  }
  if (numbers(values)) rememberAll(rt.shape, k, values);
  return k;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const numbers = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((n) => typeof n === 'number' && Number.isFinite(n));
