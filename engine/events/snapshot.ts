import { CepKey, MAX_RUNS } from './cep.ts';
import type { Runtime, StatefulRuntime, WindowRuntime } from './runtime.ts';
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

export function snapshotState(clock: number, runtimes: readonly StatefulRuntime[]): string {
  const events = runtimes.map((rt) => {
    const keys: (WindowEntry | CepEntry)[] = [];
    const slab = rt.slab;
    if (slab !== null) {
      for (const [key, slot] of slab.entries()) {
        const state =
          rt.kind === 'cep' ? cepKeyAt(rt, slab, rt.member, slot, false) : windowKeyAt(rt.shape, slab, rt.member, slot);
        if (state === null) continue;
        if (state instanceof CepKey) keys.push([key, state.latch, state.runs]);
        else {
          let values: number[] | null = null;
          if (state.hll === null && rt.kind === 'distinct') {
            const list: number[] = [];
            distinctEntries(state, (h, b) => list.push(h, b));
            values = list;
          }
          const hll: [number, string] | null = state.hll === null ? null : [state.hll.bucket, state.hll.save()];
          keys.push([key, finite(state.mute), finite(state.last), state.buckets, values, hll]);
        }
      }
    }
    return { id: rt.id, kind: rt.kind, sig: rt.sig, keys };
  });
  return JSON.stringify({ format: FORMAT, version: VERSION, clock, events });
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
