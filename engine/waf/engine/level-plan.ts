/**
 * What a rule set does that depends only on the group levels of a transaction, worked out once per
 * distinct level profile: which paranoia guards (`SecRule TX:EXECUTING_PARANOIA_LEVEL "@lt 2"
 * "pass,nolog,skipAfter:..."`) match, and the TX state the leading TX-only rules of phase 1 leave
 * behind (the snapshot itself is taken by the transaction, which knows how to run rules).
 */
import type { MatchState } from '../types.ts';
import type { CompiledRule, CompiledRuleSet, LevelPlan, LevelPlanCache, Macro, PhaseEntry } from './rule.ts';
import { PARANOIA_KEYS } from './groups.ts';

/** Fates of a phase entry under a level profile. */
export const EVALUATE = 0;
export const NEVER = 1;
export const ALWAYS = 2;
export const NEVER_IF_SAME = 3;
export const ALWAYS_IF_SAME = 4;
/** NEVER_IF_SAME - IF_SAME === NEVER, ALWAYS_IF_SAME - IF_SAME === ALWAYS. */
export const IF_SAME = 2;

const LEVELS = ['0', '1', '2', '3', '4'];
const MAX_KEYED_PLANS = 64;

export function newLevelPlanCache(): LevelPlanCache {
  return { byArray: new WeakMap(), byKey: new Map() };
}

/** `txKey` names the TX entries set before phase 1 (TransactionOptions.tx): the snapshot holds them. */
export function levelPlanFor(
  rs: CompiledRuleSet,
  levels: readonly number[],
  paranoiaLevel: number,
  txKey: string,
): LevelPlan {
  const cache = rs.levelPlans;
  const known = cache.byArray.get(levels);
  if (known !== undefined && known.paranoiaLevel === paranoiaLevel && known.txKey === txKey) return known;
  const key = `${paranoiaLevel}:${levels.join(',')}:${txKey}`;
  let plan = cache.byKey.get(key);
  if (plan === undefined) {
    plan = buildLevelPlan(rs.phases, levels, paranoiaLevel, txKey);
    if (cache.byKey.size >= MAX_KEYED_PLANS) cache.byKey.clear();
    cache.byKey.set(key, plan);
  }
  cache.byArray.set(levels, plan);
  return plan;
}

function buildLevelPlan(
  phases: readonly PhaseEntry[][],
  levels: readonly number[],
  paranoiaLevel: number,
  txKey: string,
): LevelPlan {
  const state: MatchState = { capture: false, captures: [] };
  const fates: Int8Array[] = [];
  const guardValues: string[][] = [];
  const guardNames: string[][] = [];
  for (const list of phases) {
    const fate = new Int8Array(list.length);
    const values: string[] = [];
    const names: string[] = [];
    list.forEach((e, i) => {
      if (e.kind === 'marker') {
        // A marker does nothing: passed over without reading it.
        fate[i] = NEVER;
        return;
      }
      if (!isLevelGuard(e)) return;
      const level = levels[e.group];
      if (level === undefined) return;
      const input = LEVELS[level] ?? String(level);
      const op = e.operator;
      const fn = op?.fn;
      if (op === undefined || fn === undefined) return;
      if (fn(input, state) === op.negated) {
        fate[i] = NEVER;
        return;
      }
      fate[i] = ALWAYS;
      values[i] = input;
      names[i] = `TX:${e.txTarget?.key?.kind === 'literal' ? e.txTarget.key.value : ''}`;
    });
    fates.push(fate);
    guardValues.push(values);
    guardNames.push(names);
  }
  return {
    paranoiaLevel,
    txKey,
    fates,
    guardValues,
    guardNames,
    txKeys: phases.map(() => []),
    txEntries: phases.map(() => []),
    txWatch: new Map(),
    txMasks: phases.map(() => []),
    txWords: 1,
    snapshot: undefined,
  };
}

/**
 * A rule of a CRS group reading one paranoia key: the transaction answers those keys from the
 * group's level (not from TX), so the rule's outcome is fixed by the profile. Only rules whose
 * match has no effect beyond MATCHED_VAR and a jump qualify: no chain, capture, setvar, ctl, log,
 * severity or disruptive action.
 */
function isLevelGuard(rule: CompiledRule): boolean {
  if (rule.group < 0 || rule.unconditional || rule.chain !== undefined) return false;
  const target = rule.txTarget;
  if (target === undefined || target.count || target.key?.kind !== 'literal' || !PARANOIA_KEYS.has(target.key.lower))
    return false;
  if (rule.operator?.fn === undefined || rule.operator.dynamic !== undefined) return false;
  if (rule.capture || rule.setvars.length > 0 || rule.ctls.length > 0 || rule.log || rule.severity !== '') return false;
  let action = rule.disruptive ?? rule.defaultDisruptive;
  if (action === 'block') action = rule.defaultDisruptive === 'block' ? 'deny' : rule.defaultDisruptive;
  return action === 'pass';
}

/**
 * The lower-case TX keys a rule's first link (or every link) reads, when that is all it reads (`SecRule
 * &TX:crs_exclusions_drupal|TX:crs_exclusions_drupal "@eq 0" ...`): whether that link matches is
 * then a function of those TX entries, which the transaction works out once against the snapshot
 * and reuses while they are unchanged.
 */
export function txConditionKeys(rule: CompiledRule, wholeChain: boolean): string[] | undefined {
  const keys: string[] = [];
  for (let link: CompiledRule | undefined = rule; link !== undefined; link = wholeChain ? link.chain : undefined) {
    if (link.unconditional || link.variables.length === 0 || link.exclusions.length > 0 || link.multiMatch)
      return undefined;
    if (link.operator?.fn === undefined || link.operator.dynamic !== undefined) return undefined;
    for (const v of link.variables) {
      if (v.name !== 'TX' || v.key?.kind !== 'literal') return undefined;
      // In a CRS group the paranoia keys read the group's level, not TX (see isLevelGuard).
      if (rule.group >= 0 && PARANOIA_KEYS.has(v.key.lower)) return undefined;
      keys.push(v.key.lower);
    }
  }
  return keys;
}

/** A rule whose match has no effect beyond MATCHED_VAR and a jump (its outcome can be reused whole). */
export function effectFree(rule: CompiledRule): boolean {
  if (rule.log || rule.severity !== '') return false;
  for (let link: CompiledRule | undefined = rule; link !== undefined; link = link.chain) {
    if (link.capture || link.setvars.length > 0 || link.ctls.length > 0) return false;
  }
  let action = rule.disruptive ?? rule.defaultDisruptive;
  if (action === 'block') action = rule.defaultDisruptive === 'block' ? 'deny' : rule.defaultDisruptive;
  return action === 'pass';
}

/**
 * The length of the leading run of phase-1 entries that read only TX and write only TX (no
 * capture, ctl, other collection or request-dependent macro): their effect is the same for every
 * request with the same level profile.
 */
export function txOnlyPrefix(list: readonly PhaseEntry[]): number {
  let i = 0;
  while (i < list.length) {
    const e = list[i] as PhaseEntry;
    if (e.kind === 'rule' && !txOnly(e)) break;
    i++;
  }
  return i;
}

function txOnly(rule: CompiledRule): boolean {
  for (let link: CompiledRule | undefined = rule; link !== undefined; link = link.chain) {
    if (link.capture || link.ctls.length > 0 || link.multiMatch) return false;
    if (!link.unconditional) {
      if (link.operator === undefined || link.variables.length === 0) return false;
      for (const v of link.variables) if (v.name !== 'TX') return false;
      if (link.operator.dynamic !== undefined && !txMacro(link.operator.dynamic)) return false;
    }
    for (const sv of link.setvars) if (sv.collection !== 'TX' || !txMacro(sv.key) || !txMacro(sv.value)) return false;
  }
  return true;
}

/** A macro that reads only TX or the rule's own fields. */
function txMacro(m: Macro): boolean {
  if (m.constant) return true;
  for (const p of m.parts) if (typeof p !== 'string' && p.collection !== 'TX' && p.collection !== 'RULE') return false;
  return true;
}
