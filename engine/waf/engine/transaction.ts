/**
 * One transaction: the variables of one request (and its response), the phases 1 to 5 run over a
 * compiled rule set, and what matched. Rule semantics follow ModSecurity v3: every target value is
 * tried; each match runs the rule's non-disruptive actions (setvar, ctl, capture); a chain needs
 * every link to match and logs with the last link's MATCHED_VAR; skipAfter jumps within the phase.
 */
import type { MatchedRule, OperatorFn, WafOutcome, WafRequest, WafResponse } from '../types.ts';
import { inRanges, tagMatches, type RequestExclusions } from './exclusions.ts';
import type {
  CompiledOperator,
  CompiledRule,
  CompiledRuleSet,
  CompiledVariable,
  KeySelector,
  PhaseEntry,
  PhasePlan,
} from './rule.ts';
import { ALWAYS, EVALUATE, IF_SAME, NEVER } from './level-plan.ts';
import { Prefilter } from './prefilter.ts';
import { type Bits, emptyBits, setBit } from './bits.ts';
import type { Operand, ValueRecord } from './value-cache.ts';
import type { TargetList } from './target-list.ts';
import { formatLogLine } from './compat-log.ts';
import { severityNumber, toInt, type TransactionOptions } from './variables.ts';
import { TransactionSnapshots } from './tx-snapshot.ts';

export type { TransactionOptions } from './variables.ts';

const CAPTURE_KEYS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];

/** Captures 0 to 9 unset (cheaper than truncating the array). */
function clearCaptures(captures: (string | undefined)[]): void {
  for (let i = 0; i < 10; i++) captures[i] = undefined;
}

/**
 * The class is built in layers, one file each: variables.ts (state and variable resolution),
 * actions.ts (setvar, ctl, macros), request-body.ts, tx-snapshot.ts, and this one (phases and rule
 * evaluation). Only this class is ever instantiated, so every call stays monomorphic.
 */
export class Transaction extends TransactionSnapshots {
  constructor(rs: CompiledRuleSet, req: WafRequest, opts: TransactionOptions) {
    super(rs, req, opts);
    // CRS 3 reads tx.paranoia_level; CRS 4 blocks on the scores of levels up to
    // tx.blocking_paranoia_level (its default, 1, would let higher-level rules fire but never block).
    const level = String(opts.paranoiaLevel);
    this.setTx('paranoia_level', level);
    this.setTx('blocking_paranoia_level', level);
    this.setTx('detection_paranoia_level', level);
    if (opts.tx) for (const [key, value] of opts.tx) this.setTx(key, value);
    this.bodyProcessor = this.processorFor((this.header('content-type') ?? '').toLowerCase());
  }

  protected newTransaction(req: WafRequest, opts: TransactionOptions): Transaction {
    return new Transaction(this.rs, req, opts);
  }

  /** An operator's exclusions for this request, as ctl:ruleRemoveById / ruleRemoveTargetById before phase 1. */
  exclude(exclusions: RequestExclusions): void {
    if (exclusions.ruleIds.length > 0) {
      this.removedRanges.push(...exclusions.ruleIds);
      this.removals++;
    }
    for (const t of exclusions.targets) this.removedTargets.push({ byId: [...t.ruleIds], target: t.target });
  }

  // -------------------------------------------------------------------------------------------
  // Phases
  // -------------------------------------------------------------------------------------------

  /** Phases 1 and 2 (with the request body between them). */
  processRequest(): WafOutcome {
    this.runPhase(1);
    this.processRequestBody();
    this.runPhase(2);
    return this.outcome();
  }

  /** Phases 3 and 4 over the upstream response. */
  processResponse(res: WafResponse): WafOutcome {
    this.res = res;
    this.resolvedSets = [];
    this.selectorLists = [];
    this.pairBits = undefined;
    this.runPhase(3);
    this.runPhase(4);
    return this.outcome();
  }

  /** Phase 5 (logging): always runs, even after an interruption. */
  processLogging(): WafOutcome {
    this.runPhase(5);
    return this.outcome();
  }

  outcome(): WafOutcome {
    const score =
      this.txNumber('blocking_inbound_anomaly_score') ??
      this.txNumber('anomaly_score') ??
      this.txNumber('inbound_anomaly_score') ??
      0;
    const threshold = this.txNumber('inbound_anomaly_score_threshold');
    return {
      interrupted: this.interrupted,
      status: this.interrupted ? this.status : 200,
      matched: this.matched,
      score,
      ...(threshold === undefined ? {} : { threshold }),
    };
  }

  protected txNumber(key: string): number | undefined {
    const e = this.tx.get(key);
    return e === undefined ? undefined : toInt(e[1]);
  }

  protected runPhase(phase: number): void {
    if (this.phasesDone >= phase) return;
    this.phasesDone = phase;
    if (this.ruleEngine === 'Off') return;
    if (phase < 5 && (this.interrupted || this.allowAll)) return;
    if (phase <= 2 && this.allowRequest) return;
    let i = 0;
    if (phase === 1 && this.rs.txPrefix > 0) i = this.fromSnapshot();
    this.runFrom(phase, i, (this.rs.phases[phase] ?? []).length);
  }

  /**
   * Runs a phase's entries from index `i` until one at or past `end`; returns where it stopped,
   * or -1 when a rule ended the phase (interruption, allow).
   */
  protected runFrom(phase: number, start: number, end: number): number {
    const list = this.rs.phases[phase] ?? [];
    const plan = this.rs.plans[phase] as PhasePlan;
    const fates = this.levelPlan.fates[phase] as Int8Array;
    let i = start;
    while (i < end) {
      let fate = fates[i] as number;
      if (fate !== EVALUATE) {
        // Removed targets change what a rule reads: the precomputed outcomes no longer hold.
        if (this.removedTargets.length > 0) fate = EVALUATE;
        else if (fate > IF_SAME) fate = this.sameTx(phase, i) ? fate - IF_SAME : EVALUATE;
      }
      if (fate === NEVER) {
        i++;
        continue;
      }
      // A rule none of whose targets passes the prefilter cannot match: skipped without reading it.
      if ((plan.prefilter[i] as number) >= 0 && !this.planMayMatch(plan, i)) {
        i++;
        continue;
      }
      const e = list[i] as PhaseEntry;
      if (fate === ALWAYS) {
        // A paranoia guard whose outcome the level profile fixes: its match sets MATCHED_VAR and
        // jumps, all from the plans (the rule object itself stays unread).
        if (this.removals > 0 && this.isRemoved(e as CompiledRule)) {
          i++;
          continue;
        }
        this.currentRule = e as CompiledRule;
        this.matchedVar = this.levelPlan.guardValues[phase]?.[i] as string;
        this.matchedVarName = this.levelPlan.guardNames[phase]?.[i] as string;
        i = plan.after[i] as number;
        continue;
      }
      // Markers are NEVER in every level plan; this only guards the type.
      if (e.kind === 'marker' || (this.removals > 0 && this.isRemoved(e))) {
        i++;
        continue;
      }
      this.paranoiaOverride = e.group >= 0 ? this.opts.groupLevels[e.group] : undefined;
      this.matchedCount = 0;
      const ok = this.evaluate(e);
      this.paranoiaOverride = undefined;
      if (!ok) {
        i++;
        continue;
      }
      this.onFullMatch(e);
      if (this.interrupted && phase < 5) return -1;
      if (this.allowAll || (this.allowRequest && phase <= 2)) return -1;
      if (this.allowPhase) {
        this.allowPhase = false;
        return -1;
      }
      i = plan.after[i] as number;
    }
    return i;
  }

  protected lastLink(rule: CompiledRule): CompiledRule {
    let r = rule;
    while (r.chain) r = r.chain;
    return r;
  }

  protected isRemoved(rule: CompiledRule): boolean {
    if (this.removedRanges.length > 0 && inRanges(rule.idNum, this.removedRanges)) return true;
    if (this.removedTags.length > 0) {
      for (const t of this.removedTags) for (const tag of rule.tags) if (tagMatches(t, tag)) return true;
    }
    if (this.removedMsgs.length > 0 && rule.msg !== undefined && this.removedMsgs.includes(rule.msg.source))
      return true;
    return false;
  }

  // -------------------------------------------------------------------------------------------
  // Rule evaluation
  // -------------------------------------------------------------------------------------------

  protected evaluate(rule: CompiledRule): boolean {
    this.currentRule = rule;
    let any: boolean;
    if (rule.unconditional) {
      this.onMatch(rule);
      any = true;
    } else {
      const op = rule.operator;
      if (op === undefined) return false;
      const removed = this.removedTargets.length > 0 ? this.removedFor(rule) : undefined;
      if (rule.txTarget !== undefined && removed === undefined) return this.evaluateTx(rule, rule.txTarget, op);
      let targets: TargetList;
      if (rule.targetSet >= 0 && removed === undefined && rule.exclusions.length === 0)
        return this.evaluateSelectors(rule, op);
      if (rule.targetSet >= 0 && removed === undefined) {
        if (rule.prefilter >= 0 && !op.negated && !rule.multiMatch && !this.mayMatch(rule)) {
          // No target can match: skip the rule without building its target list.
          this.matchedCount = 0;
          return false;
        }
        targets = this.resolvedSets[rule.targetSet] ?? this.resolveSet(rule);
      } else {
        // Stays valid through the loop: actions run by recordMatch never resolve targets.
        targets = this.scratch;
        targets.count = 0;
        this.resolveTargets(rule, removed, targets);
      }
      this.matchedCount = 0;
      any = this.runTargets(rule, targets);
    }
    if (!any) return false;
    if (rule.chain) return this.evaluate(rule.chain);
    return true;
  }

  /** Runs a rule's operator over every target of a list; whether any matched (each match recorded). */
  protected runTargets(rule: CompiledRule, targets: TargetList): boolean {
    let any = false;
    const values = targets.values;
    const count = targets.count;
    const node = rule.transformId;
    for (let t = 0; t < count; t++) {
      const record = values[t] as ValueRecord;
      if (rule.multiMatch) {
        // The value, then each transformation's result that differs from the one before.
        let o = record.operands[0] as Operand;
        let matched = this.runOperator(rule, o);
        for (const step of rule.transformPath) {
          if (matched) break;
          const next = record.operands[step] ?? this.operandAt(step, record);
          if (next.value === o.value) continue;
          o = next;
          matched = this.runOperator(rule, o);
        }
        if (matched) {
          any = true;
          this.recordMatch(rule, targets.name(t), o.value);
        }
      } else {
        const o = record.operands[node] ?? this.operandAt(node, record);
        if (this.runOperator(rule, o)) {
          any = true;
          this.recordMatch(rule, targets.name(t), o.value);
        }
      }
    }
    return any;
  }

  /**
   * A rule whose variables are all fixed once the body is read and that has no exclusions: its
   * targets are its selectors' lists one after the other (what resolving them would give), so it
   * runs over those lists directly, passing over each list in which no value holds a string its
   * operator needs.
   */
  protected evaluateSelectors(rule: CompiledRule, op: CompiledOperator): boolean {
    this.matchedCount = 0;
    const skippable = rule.prefilter >= 0 && !op.negated && !rule.multiMatch;
    const node = rule.transformId;
    const selectors = rule.selectors;
    let any = false;
    for (let k = 0; k < selectors.length; k++) {
      const list = this.selectorList(selectors[k] as number);
      if (list.count === 0) continue;
      if (skippable && !Prefilter.has(list.anyBits[node] ?? this.anyBits(list, node), rule.prefilter)) continue;
      if (this.runTargets(rule, list)) any = true;
    }
    if (!any) return false;
    if (rule.chain) return this.evaluate(rule.chain);
    return true;
  }

  /** A rule whose one target is `TX:name` or `&TX:name` (a third of CRS's rules): no target list. */
  protected evaluateTx(rule: CompiledRule, target: CompiledVariable, op: CompiledOperator): boolean {
    this.matchedCount = 0;
    const key = target.key as KeySelector & { kind: 'literal' };
    const value = this.txValue(key);
    let input: string;
    if (target.count) input = value === undefined ? '0' : '1';
    else if (value === undefined) return false;
    else input = value;
    const st = this.state;
    if (rule.capture) clearCaptures(st.captures);
    st.capture = rule.capture;
    const r = (op.fn as OperatorFn)(input, st);
    if (r === op.negated) return false;
    this.recordMatch(rule, target.count ? 'TX' : `TX:${this.txKey(key)}`, input);
    if (rule.chain) return this.evaluate(rule.chain);
    return true;
  }

  protected recordMatch(rule: CompiledRule, name: string, value: string): void {
    this.matchedVar = value;
    this.matchedVarName = name;
    this.matchedNames[this.matchedCount] = name;
    this.matchedValues[this.matchedCount++] = value;
    if (rule.capture) {
      const caps = this.state.captures;
      for (let i = 0; i < 10; i++) {
        const c = caps[i];
        if (c !== undefined) this.setTx(CAPTURE_KEYS[i] as string, c);
      }
    }
    this.onMatch(rule);
  }

  protected onMatch(rule: CompiledRule): void {
    for (const sv of rule.setvars) this.setVar(sv);
    for (const c of rule.ctls) this.ctl(c);
  }

  /** `bits`: the prefilter's answer for `input` when the rule has a prefilter bit. */
  protected runOperator(rule: CompiledRule, o: Operand): boolean {
    const op = rule.operator;
    if (op === undefined) return false;
    const st = this.state;
    if (rule.prefilter >= 0 && !Prefilter.has(this.bitsOf(rule, o), rule.prefilter)) {
      // None of the strings every match contains occurs: the operator cannot match.
      if (op.negated && rule.capture) clearCaptures(st.captures);
      return op.negated;
    }
    // Operators write captures only when asked to; recordMatch reads them only then.
    if (rule.capture) clearCaptures(st.captures);
    const memo = rule.memo;
    if (memo >= 0 && o.misses !== undefined && Prefilter.has(o.misses, memo)) return op.negated;
    let fn: OperatorFn | undefined = op.fn;
    if (fn === undefined && op.dynamic !== undefined && op.cache !== undefined) {
      const arg = this.expand(op.dynamic);
      fn = op.cache.get(arg);
      if (fn === undefined) {
        try {
          fn = op.def.compile(arg, op.env);
        } catch {
          fn = () => false;
        }
        if (op.cache.size < 1000) op.cache.set(arg, fn);
      }
    }
    if (fn === undefined) return false;
    st.capture = rule.capture;
    const r = fn(o.value, st);
    if (!r && memo >= 0) this.remember(o, memo);
    return op.negated ? !r : r;
  }

  /** Records that operator `memo` did not match this operand (operators are pure functions of it). */
  protected remember(o: Operand, memo: number): void {
    let misses = o.misses;
    if (misses === undefined) {
      misses = o.misses = emptyBits(this.rs.memoWords);
      this.rs.values.heldBits(misses.length);
    }
    setBit(misses, memo);
  }

  protected bitsOf(rule: CompiledRule, o: Operand): Bits | null {
    if (rule.prefilter < 0) return null;
    return o.bits === undefined ? this.scanOperand(o) : o.bits;
  }

  protected onFullMatch(rule: CompiledRule): void {
    const sev = severityNumber(rule.severity);
    if (sev < this.highestSeverity) this.highestSeverity = sev;
    const engineOn = this.ruleEngine === 'On';
    let action = rule.disruptive ?? rule.defaultDisruptive;
    if (action === 'block') action = rule.defaultDisruptive === 'block' ? 'deny' : rule.defaultDisruptive;
    const disrupts = engineOn && (action === 'deny' || action === 'drop' || action === 'redirect');
    if (rule.log) {
      const message = rule.msg ? this.expand(rule.msg) : '';
      const data = rule.logdata ? this.expand(rule.logdata) : '';
      const m: MatchedRule = {
        id: rule.id,
        phase: rule.phase,
        message,
        data,
        severity: rule.severity,
        tags: rule.tags,
        file: rule.file,
        line: rule.line,
        variable: this.matchedVarName,
        value: this.matchedVar,
      };
      this.matched.push(m);
      if (this.opts.logSink) {
        const last = this.lastLink(rule);
        this.opts.logSink(
          formatLogLine({
            rule,
            match: m,
            operator: last.operator,
            value: this.matchedVar,
            disruptive: disrupts ? (rule.status ?? rule.defaultStatus ?? 403) : undefined,
            host: this.header('host') ?? '',
            uri: this.line.uri,
            uniqueId: this.opts.uniqueId,
          }),
        );
      }
    }
    if (!engineOn) return;
    if (disrupts) {
      this.interrupted = true;
      this.status = rule.status ?? rule.defaultStatus ?? 403;
    } else if (action === 'allow') {
      if (rule.allowScope === 'phase') this.allowPhase = true;
      else if (rule.allowScope === 'request') this.allowRequest = true;
      else this.allowAll = true;
    }
  }
}
