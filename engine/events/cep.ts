/** Partial runs kept per key: more are dropped, oldest start first (they would leave the window first). */
export const MAX_RUNS = 8;

/**
 * The CEP state of one (event, key): its partial runs as a flat list of `[step, count, start,
 * matched]` (the step being repeated, how many records it has taken so far, the engine time of the
 * run's first record, the records the run has taken in all).
 */
export class CepKey {
  runs: number[] = [];
  /** Engine time (ms) until which the key counts as fired for combined events. */
  latch = 0;
}

export interface CepShape {
  windowMs: number;
  mins: readonly number[];
  maxs: readonly number[];
  strict: boolean;
}

/** What a completed run matched, filled in by `advanceRuns` when it returns true. */
export interface CepMatch {
  start: number;
  matched: number;
}

const FIELDS = 4;
// Every run can fork in two, plus the run a record of the first step starts.
const scratch = new Float64Array((MAX_RUNS * 2 + 1) * FIELDS);

/**
 * Feeds one record of a key to its runs (`matches[i]` = the record matches step i). A run at step i
 * with count c can take the record as one more of step i (c < max) and / or as the first of step
 * i + 1 (c >= min): both continuations are kept. A run that can take it in neither way dies under
 * strict continuity and waits under loose continuity. A record of the first step also starts a new
 * run. Runs older than the window are dropped. Returns true, with the completed run in `out`, when
 * a run's last step reaches its minimum; the key's runs are then cleared.
 */
export function advanceRuns(shape: CepShape, k: CepKey, matches: Uint8Array, now: number, out: CepMatch): boolean {
  const runs = k.runs;
  const last = shape.mins.length - 1;
  let n = 0;
  for (let r = 0; r < runs.length; r += FIELDS) {
    const step = runs[r]!;
    const count = runs[r + 1]!;
    const start = runs[r + 2]!;
    const matched = runs[r + 3]!;
    if (now - start >= shape.windowMs) continue;
    const stay = matches[step] === 1 && count < shape.maxs[step]!;
    const next = step < last && count >= shape.mins[step]! && matches[step + 1] === 1;
    if (stay) n = push(n, step, count + 1, start, matched + 1);
    if (next) n = push(n, step + 1, 1, start, matched + 1);
    if (!stay && !next && !shape.strict) n = push(n, step, count, start, matched);
  }
  if (matches[0] === 1) n = push(n, 0, 1, now, 1);

  // A completed run: the one that started first (it matched the most).
  let done = -1;
  for (let i = 0; i < n; i++) {
    const at = i * FIELDS;
    if (scratch[at] === last && scratch[at + 1]! >= shape.mins[last]!) {
      if (done === -1 || scratch[at + 2]! < scratch[done * FIELDS + 2]!) done = i;
    }
  }
  if (done !== -1) {
    out.start = scratch[done * FIELDS + 2]!;
    out.matched = scratch[done * FIELDS + 3]!;
    runs.length = 0;
    return true;
  }

  // Runs in the same state have the same future: keep the one that started last (it has the most time left).
  for (let i = 0; i < n; i++) {
    const a = i * FIELDS;
    if (scratch[a] === -1) continue;
    for (let j = i + 1; j < n; j++) {
      const b = j * FIELDS;
      if (scratch[b] !== scratch[a] || scratch[b + 1] !== scratch[a + 1]) continue;
      if (scratch[b + 2]! > scratch[a + 2]!) {
        scratch[a + 2] = scratch[b + 2]!;
        scratch[a + 3] = scratch[b + 3]!;
      }
      scratch[b] = -1;
    }
  }
  let kept = 0;
  for (let i = 0; i < n; i++) if (scratch[i * FIELDS] !== -1) kept++;
  // Over the bound: drop the runs that started first.
  while (kept > MAX_RUNS) {
    let oldest = -1;
    for (let i = 0; i < n; i++) {
      const at = i * FIELDS;
      if (scratch[at] !== -1 && (oldest === -1 || scratch[at + 2]! < scratch[oldest * FIELDS + 2]!)) oldest = i;
    }
    scratch[oldest * FIELDS] = -1;
    kept--;
  }
  // The runs were all read into the scratch list: the key's list is rewritten in place.
  runs.length = 0;
  for (let i = 0; i < n; i++) {
    const at = i * FIELDS;
    if (scratch[at] !== -1) runs.push(scratch[at]!, scratch[at + 1]!, scratch[at + 2]!, scratch[at + 3]!);
  }
  return false;
}

function push(n: number, step: number, count: number, start: number, matched: number): number {
  const at = n * FIELDS;
  scratch[at] = step;
  scratch[at + 1] = count;
  scratch[at + 2] = start;
  scratch[at + 3] = matched;
  return n + 1;
}
