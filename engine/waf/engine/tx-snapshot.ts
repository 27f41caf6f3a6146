/**
 * The TX snapshot (see the README): phase 1's leading TX-only rules run once per level profile in
 * a template transaction, whose TX every later transaction starts from; the template also works
 * out the TX-conditional fates of the level plan, and sameTx tells whether those still hold.
 */
import type { WafRequest } from '../types.ts';
import type { Entry } from './request-data.ts';
import type { CompiledRule, TxSnapshot } from './rule.ts';
import type { Operand, ValueRecord } from './value-cache.ts';
import { ALWAYS, EVALUATE, effectFree, IF_SAME, NEVER, txConditionKeys } from './level-plan.ts';
import { emptyBits, setBit, wordsFor } from './bits.ts';
import type { TransactionOptions } from './variables.ts';
import { TransactionBody } from './request-body.ts';

/** The request a TX snapshot is taken with (its rules read none of it). */
const TEMPLATE_REQUEST: WafRequest = {
  method: 'GET',
  uri: '/',
  protocol: 'HTTP/1.1',
  headers: [],
  body: null,
  remoteAddr: '127.0.0.1',
  remotePort: 0,
  serverAddr: '127.0.0.1',
  serverPort: 80,
};

export abstract class TransactionSnapshots extends TransactionBody {
  /** A transaction of the same class over the same rule set (the template). */
  protected abstract newTransaction(req: WafRequest, opts: TransactionOptions): TransactionSnapshots;
  protected abstract runFrom(phase: number, start: number, end: number): number;
  protected abstract evaluate(rule: CompiledRule): boolean;
  protected abstract runOperator(rule: CompiledRule, o: Operand): boolean;

  /** Whether the TX entries entry i of a phase reads are still those its *_IF_SAME fate was computed on. */
  protected sameTx(phase: number, i: number): boolean {
    const dirty = this.txDirty;
    if (dirty !== undefined) {
      // Started from the snapshot: the entries are the snapshot's unless one was written since.
      const masks = this.levelPlan.txMasks[phase]?.[i] as number[];
      for (let w = 0; w < masks.length; w++) if (((dirty[w] as number) & (masks[w] as number)) !== 0) return false;
      return true;
    }
    const keys = this.levelPlan.txKeys[phase]?.[i] as string[];
    const entries = this.levelPlan.txEntries[phase]?.[i] as (Entry | undefined)[];
    for (let k = 0; k < keys.length; k++) if (this.tx.get(keys[k] as string) !== entries[k]) return false;
    return true;
  }

  /**
   * Starts phase 1 from the TX state its leading TX-only rules produce under this level profile
   * (taken once by running them in a template transaction); returns where phase 1 continues.
   */
  protected fromSnapshot(): number {
    const plan = this.levelPlan;
    let snap = plan.snapshot;
    if (snap === undefined) snap = plan.snapshot = this.takeSnapshot();
    if (snap === null || snap.ruleEngine !== this.ruleEngine) return 0;
    this.tx = new Map(snap.tx);
    this.txList = undefined;
    this.txDirty = emptyBits(plan.txWords);
    this.txSnap = snap;
    this.txAdded = [];
    this.matchedVar = snap.matchedVar;
    this.matchedVarName = snap.matchedVarName;
    this.currentRule = snap.currentRule;
    if (snap.highestSeverity < this.highestSeverity) this.highestSeverity = snap.highestSeverity;
    return snap.resume;
  }

  /**
   * In a template transaction just after the phase-1 prefix: evaluates each rule whose outcome
   * only depends on a few TX entries and records that outcome for as long as they stay the same.
   */
  protected conditionalFates(): void {
    const plan = this.levelPlan;
    this.rs.phases.forEach((list, phase) => {
      const fates = plan.fates[phase] as Int8Array;
      list.forEach((e, i) => {
        if (e.kind !== 'rule' || fates[i] !== EVALUATE) return;
        const whole = effectFree(e) ? txConditionKeys(e, true) : undefined;
        const keys = whole ?? txConditionKeys(e, false);
        if (keys === undefined) return;
        this.paranoiaOverride = e.group >= 0 ? this.opts.groupLevels[e.group] : undefined;
        let fate: number;
        if (whole !== undefined) {
          this.matchedCount = 0;
          this.matchedVar = '';
          this.matchedVarName = '';
          const ok = this.evaluate(e);
          if (ok) {
            (plan.guardValues[phase] as string[])[i] = this.matchedVar;
            (plan.guardNames[phase] as string[])[i] = this.matchedVarName;
          }
          fate = ok ? ALWAYS : NEVER;
        } else {
          // A rule with effects is only known not to match: its first link matches no target.
          fate = this.firstLinkMatches(e) ? EVALUATE : NEVER;
        }
        this.paranoiaOverride = undefined;
        if (fate === EVALUATE) return;
        (plan.txKeys[phase] as string[][])[i] = keys;
        (plan.txEntries[phase] as (Entry | undefined)[][])[i] = keys.map((k) => this.tx.get(k));
        fates[i] = IF_SAME + fate;
      });
    });
    // Each TX key an *_IF_SAME fate reads gets a bit; each such entry, the mask of its keys.
    const watch = plan.txWatch;
    for (const entries of plan.txKeys)
      for (const keys of entries)
        if (keys !== undefined) for (const k of keys) if (!watch.has(k)) watch.set(k, watch.size);
    plan.txWords = wordsFor(watch.size);
    plan.txKeys.forEach((entries, phase) => {
      entries.forEach((keys, i) => {
        const mask = emptyBits(plan.txWords);
        for (const k of keys) setBit(mask, watch.get(k) as number);
        (plan.txMasks[phase] as number[][])[i] = mask;
      });
    });
  }

  /** Whether any target of a rule's first link passes its operator (no action runs). */
  protected firstLinkMatches(rule: CompiledRule): boolean {
    const targets = this.scratch;
    targets.count = 0;
    this.resolveTargets(rule, undefined, targets);
    const node = rule.transformId;
    for (let t = 0; t < targets.count; t++) {
      const record = targets.values[t] as ValueRecord;
      if (this.runOperator(rule, record.operands[node] ?? this.operandAt(node, record))) return true;
    }
    return false;
  }

  protected takeSnapshot(): TxSnapshot | null {
    const t = this.newTransaction(TEMPLATE_REQUEST, { ...this.opts, logSink: undefined });
    // The prefix reads no request data (compile.ts checks), so any request gives the same TX.
    const resume = t.runFrom(1, 0, this.rs.txPrefix);
    if (resume < 0 || t.matched.length > 0 || t.interrupted || t.allowAll || t.allowRequest || t.allowPhase)
      return null;
    if (t.ruleEngine !== this.ruleEngine || t.removedRanges.length > 0 || t.removedTargets.length > 0) return null;
    const snapshot: TxSnapshot = {
      tx: [...t.tx],
      resume,
      matchedVar: t.matchedVar,
      matchedVarName: t.matchedVarName,
      highestSeverity: t.highestSeverity,
      currentRule: t.currentRule,
      ruleEngine: this.ruleEngine,
      byLiteral: new Map(),
    };
    t.conditionalFates();
    return snapshot;
  }
}
