/**
 * Plans: what the compiler works out once so that transactions do less. The transformation trie,
 * target sets and selectors (for variables fixed once the body is read), prefilter and memo bits,
 * the TX fast path, each phase's skip plan (PhasePlan) with its (selector, trie node) pairs, and
 * where each entry continues after a match (skipAfter, skip). The level plans built per
 * profile from these are level-plan.ts's.
 */
import type { Transformation } from '../types.ts';
import { Prefilter } from './prefilter.ts';
import { WORD_BITS, wordsFor } from './bits.ts';
import type { CompiledMarker, CompiledRule, CompiledVariable, PhaseEntry, PhasePlan } from './rule.ts';

/** What indexRules numbered across every link of every rule. */
export interface RuleIndex {
  transformParent: number[];
  transformFn: (Transformation | undefined)[];
  targetSets: number;
  selectors: CompiledVariable[];
  prefilter: Prefilter;
  memoWords: number;
}

/** The skip plans of the phases and the (selector, trie node) pairs they test. */
export interface Plans {
  plans: PhasePlan[];
  pairSelector: Int32Array;
  pairNode: Int32Array;
}

/**
 * Variables whose values are fixed once the request body has been processed (the transaction
 * drops its resolved target sets then, and again when the response arrives).
 */
const FIXED_AFTER_BODY: ReadonlySet<string> = new Set([
  'ARGS',
  'ARGS_GET',
  'ARGS_POST',
  'ARGS_NAMES',
  'ARGS_GET_NAMES',
  'ARGS_POST_NAMES',
  'ARGS_COMBINED_SIZE',
  'REQUEST_HEADERS',
  'REQUEST_HEADERS_NAMES',
  'REQUEST_COOKIES',
  'REQUEST_COOKIES_NAMES',
  'FILES',
  'FILES_NAMES',
  'FILES_SIZES',
  'FILES_TMP_CONTENT',
  'FILES_TMPNAMES',
  'FILES_COMBINED_SIZE',
  'MULTIPART_PART_HEADERS',
  'MULTIPART_FILENAME',
  'MULTIPART_NAME',
  'XML',
  'REQUEST_METHOD',
  'REQUEST_PROTOCOL',
  'REQUEST_URI',
  'REQUEST_URI_RAW',
  'REQUEST_LINE',
  'REQUEST_FILENAME',
  'REQUEST_BASENAME',
  'QUERY_STRING',
  'REQUEST_BODY',
  'REQUEST_BODY_LENGTH',
  'REMOTE_ADDR',
  'REMOTE_HOST',
  'REMOTE_PORT',
  'SERVER_ADDR',
  'SERVER_PORT',
  'SERVER_NAME',
  'AUTH_TYPE',
]);

/** The entries of each phase (1 to 5) in rule-set order; a marker stands in every phase. */
export function phaseLists(kept: readonly (CompiledRule | CompiledMarker)[]): PhaseEntry[][] {
  const phases: PhaseEntry[][] = [[], [], [], [], [], []];
  for (const e of kept) {
    if (e.kind === 'marker') for (let p = 1; p <= 5; p++) phases[p]?.push(e);
    else phases[e.phase]?.push(e);
  }
  return phases;
}

/** Per phase, each marker label's first index. */
export function markersOf(phases: readonly PhaseEntry[][]): Map<string, number>[] {
  return phases.map((list) => {
    const m = new Map<string, number>();
    list.forEach((e, i) => {
      if (e.kind === 'marker' && !m.has(e.label)) m.set(e.label, i);
    });
    return m;
  });
}

/** Transformation chain ids, target sets and prefilter bits, over every link of every rule. */
export function indexRules(kept: readonly (CompiledRule | CompiledMarker)[]): RuleIndex {
  const trie = new Map<string, number>();
  const transformParent: number[] = [-1];
  const transformFn: (Transformation | undefined)[] = [undefined];
  const targetSets = new Map<string, number>();
  const selectorIds = new Map<string, number>();
  const selectors: CompiledVariable[] = [];
  const required: (readonly string[])[] = [];
  let memos = 0;
  for (const e of kept) {
    for (let r: CompiledRule | undefined = e.kind === 'rule' ? e : undefined; r !== undefined; r = r.chain) {
      const names = r.transformKey === '' ? [] : r.transformKey.split(',');
      let node = 0;
      names.forEach((name, k) => {
        const key = `${node} ${name}`;
        let next = trie.get(key);
        if (next === undefined) {
          next = transformParent.length;
          trie.set(key, next);
          transformParent.push(node);
          transformFn.push(r?.transforms[k]);
        }
        node = next;
        r?.transformPath.push(node);
      });
      r.transformId = node;
      if (!r.unconditional && r.variables.every((v) => FIXED_AFTER_BODY.has(v.name))) {
        const key = JSON.stringify([r.variables.map(selectorKey), r.exclusions.map(selectorKey)]);
        let set = targetSets.get(key);
        if (set === undefined) {
          set = targetSets.size;
          targetSets.set(key, set);
        }
        r.targetSet = set;
        r.selectors = r.variables.map((v) => {
          const key = JSON.stringify(selectorKey(v));
          let id = selectorIds.get(key);
          if (id === undefined) {
            id = selectors.length;
            selectorIds.set(key, id);
            selectors.push(v);
          }
          return id;
        });
      }
      if (r.operator?.fn !== undefined) r.memo = memos++;
      const only = r.variables[0];
      if (
        r.variables.length === 1 &&
        only?.name === 'TX' &&
        only.key?.kind === 'literal' &&
        r.exclusions.length === 0 &&
        r.transforms.length === 0 &&
        !r.multiMatch &&
        r.operator?.fn !== undefined
      ) {
        r.txTarget = only;
      }
      const needles = r.operator?.required;
      if (needles !== undefined) {
        r.prefilter = required.length;
        required.push(needles);
      }
    }
  }
  return {
    transformParent,
    transformFn,
    targetSets: targetSets.size,
    selectors,
    prefilter: new Prefilter(required),
    memoWords: wordsFor(memos),
  };
}

/** The skip plan of every phase, with the pairs numbered across phases. */
export function phasePlans(phases: readonly PhaseEntry[][]): Plans {
  const pairIds = new Map<string, number>();
  const plans = phases.map((list) => planOf(list, pairIds));

  const pairSelector = new Int32Array(pairIds.size);
  const pairNode = new Int32Array(pairIds.size);
  for (const [key, id] of pairIds) {
    const [selector, node] = key.split(':').map(Number);
    pairSelector[id] = selector as number;
    pairNode[id] = node as number;
  }
  return { plans, pairSelector, pairNode };
}

/** Where each entry continues after it matched: its skipAfter marker, past `skip` rules, or the next entry. */
export function resolveJumps(
  phases: readonly PhaseEntry[][],
  markers: readonly Map<string, number>[],
  plans: readonly PhasePlan[],
): void {
  phases.forEach((list, phase) => {
    for (const e of list) {
      if (e.kind !== 'rule') continue;
      let last = e;
      while (last.chain) last = last.chain;
      const label = e.skipAfter ?? last.skipAfter;
      if (label === undefined) continue;
      const at = markers[phase]?.get(label);
      e.skipTo = at === undefined ? list.length : at + 1;
    }
  });
  phases.forEach((list, phase) => {
    const after = (plans[phase] as PhasePlan).after;
    list.forEach((e, i) => {
      after[i] = i + 1;
      if (e.kind !== 'rule') return;
      if (e.skipTo !== undefined) {
        after[i] = e.skipTo;
        return;
      }
      let last = e;
      while (last.chain) last = last.chain;
      let skip = e.skip || last.skip;
      let next = i + 1;
      while (skip > 0 && next < list.length) {
        if (list[next]?.kind === 'rule') skip--;
        next++;
      }
      after[i] = next;
    });
  });
}

/** The skip plan of one phase (see PhasePlan); `pairIds` numbers the (selector, node) pairs across phases. */
function planOf(list: readonly PhaseEntry[], pairIds: Map<string, number>): PhasePlan {
  const prefilter = new Int32Array(list.length).fill(-1);
  const word = new Int32Array(list.length);
  const mask = new Int32Array(list.length);
  const node = new Int32Array(list.length);
  const start = new Int32Array(list.length + 1);
  const selectors: number[] = [];
  const pairs: number[] = [];
  list.forEach((e, i) => {
    start[i] = selectors.length;
    if (e.kind !== 'rule' || e.unconditional || e.targetSet < 0 || e.prefilter < 0 || e.multiMatch) return;
    if (e.operator === undefined || e.operator.negated || e.txTarget !== undefined) return;
    prefilter[i] = e.prefilter;
    word[i] = (e.prefilter / WORD_BITS) | 0;
    mask[i] = 1 << (e.prefilter % WORD_BITS);
    node[i] = e.transformId;
    for (const selector of e.selectors) {
      const key = `${selector}:${e.transformId}`;
      let id = pairIds.get(key);
      if (id === undefined) {
        id = pairIds.size;
        pairIds.set(key, id);
      }
      selectors.push(selector);
      pairs.push(id);
    }
  });
  start[list.length] = selectors.length;
  return {
    prefilter,
    word,
    mask,
    node,
    start,
    selectors: Int32Array.from(selectors),
    pairs: Int32Array.from(pairs),
    after: new Int32Array(list.length),
  };
}

function selectorKey(v: CompiledVariable): unknown[] {
  return [
    v.name,
    v.count,
    v.key?.kind,
    v.key === undefined ? '' : v.key.kind === 'literal' ? v.key.value : v.key.source,
  ];
}
