/**
 * One transaction: the variables of one request (and its response), the phases 1 to 5 run over a
 * compiled rule set, and what matched. Rule semantics follow ModSecurity v3: every target value is
 * tried; each match runs the rule's non-disruptive actions (setvar, ctl, capture); a chain needs
 * every link to match and logs with the last link's MATCHED_VAR; skipAfter jumps within the phase.
 */
import type {
  MatchedRule,
  MatchState,
  OperatorFn,
  Transformation,
  WafOutcome,
  WafRequest,
  WafResponse,
} from '../types.ts';
import { parseUrlencoded } from './body/urlencoded.ts';
import { parseMultipart, strictError, emptyFlags, type MultipartFile, type MultipartFlags } from './body/multipart.ts';
import { parseJson } from './body/json.ts';
import { parseXml, type XmlResult } from './body/xml.ts';
import { inRanges, tagMatches } from './compile.ts';
import { PARANOIA_KEYS } from './groups.ts';
import { lowerKey } from './variable-name.ts';
import { buildRequestLineData, type Entry, type RequestLineData } from './request-data.ts';
import type {
  CompiledOperator,
  CompiledRule,
  CompiledRuleSet,
  CompiledVariable,
  CtlAction,
  KeySelector,
  LevelPlan,
  LiteralKey,
  Macro,
  PhaseEntry,
  PhasePlan,
  RegexKey,
  SetVarAction,
  TxSnapshot,
} from './rule.ts';
import { ALWAYS, EVALUATE, effectFree, IF_SAME, levelPlanFor, NEVER, txConditionKeys } from './level-plan.ts';
import { Prefilter } from './prefilter.ts';
import { type Bits, emptyBits, setBit, wordsFor } from './bits.ts';
import { newRecord, type Operand, type ValueRecord } from './value-cache.ts';
import { TargetList } from './target-list.ts';
import { formatLogLine } from './compat-log.ts';

export interface TransactionOptions {
  /** Paranoia level per group index (groups.ts); the rules of a group see it while they run. */
  groupLevels: readonly number[];
  /** Initial tx.paranoia_level (the highest enabled group level); the rule set may override it. */
  paranoiaLevel: number;
  /** Picks the JSON / XML processors from Content-Type, as ModSecurity's recommended rules 200000/200001 do. */
  jsonXmlByContentType: boolean;
  logSink: ((line: string) => void) | undefined;
  uniqueId: string;
  now: Date;
}

interface RemovedTarget {
  byId?: [number, number][];
  byTag?: string;
  byMsg?: string;
  target: CompiledVariable;
}

const SEVERITIES: Record<string, number> = {
  emergency: 0,
  alert: 1,
  critical: 2,
  error: 3,
  warning: 4,
  notice: 5,
  info: 6,
  debug: 7,
};

function severityNumber(s: string): number {
  if (s === '') return 255;
  const n = Number(s);
  if (Number.isInteger(n)) return n;
  return SEVERITIES[s.toLowerCase()] ?? 255;
}

function toInt(s: string | undefined): number {
  if (s === undefined) return 0;
  const n = Number.parseInt(s, 10);
  return Number.isNaN(n) ? 0 : n;
}

const NO_ENTRIES: Entry[] = [];
const LEVELS = ['0', '1', '2', '3', '4'];
const CAPTURE_KEYS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];
const NO_VARIABLES: readonly CompiledVariable[] = [];
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

const KEY_MATCHES = new WeakMap<RegExp, Map<string, boolean>>();

/**
 * A regex key selector (`TX:/^header_name_/`, `ARGS:/^id_/`) against one key, remembered per
 * selector: the same TX and argument names come back in every transaction.
 */
function keyMatches(re: RegExp, key: string): boolean {
  return memoMatches(keyMemo(re), re, key);
}

function keyMemo(re: RegExp): Map<string, boolean> {
  let memo = KEY_MATCHES.get(re);
  if (memo === undefined) {
    memo = new Map();
    KEY_MATCHES.set(re, memo);
  }
  return memo;
}

function memoMatches(memo: Map<string, boolean>, re: RegExp, key: string): boolean {
  let hit = memo.get(key);
  if (hit === undefined) {
    hit = re.test(key);
    if (memo.size >= 4096) memo.clear();
    memo.set(key, hit);
  }
  return hit;
}

/** Captures 0 to 9 unset (cheaper than truncating the array). */
function clearCaptures(captures: (string | undefined)[]): void {
  for (let i = 0; i < 10; i++) captures[i] = undefined;
}

export class Transaction {
  private readonly rs: CompiledRuleSet;
  private readonly opts: TransactionOptions;
  private readonly req: WafRequest;
  private readonly line: RequestLineData;
  private res: WafResponse | undefined;
  private readonly started = process.hrtime.bigint();

  private tx = new Map<string, Entry>();
  /** Once started from the snapshot: bits (LevelPlan.txWatch) of the watched TX keys written since. */
  private txDirty: Bits | undefined;
  /** Once started from the snapshot: it, the TX keys added since in order, and whether any was deleted (see collectTxRegex). */
  private txSnap: TxSnapshot | undefined;
  private txAdded: string[] | undefined;
  private txDeleted = false;
  private readonly levelPlan: LevelPlan;
  private txList: Entry[] | undefined;
  private persistent: Map<string, Map<string, Entry>> | undefined;
  /** Per distinct long value (short ones are in the rule set's ValueCache): its operands. */
  private records: Map<string, ValueRecord> | undefined;
  /** Targets of rules without a target set, refilled per evaluation. */
  private readonly scratch = new TargetList();
  /** Per CompiledRule.targetSet, resolved once (until the request body or the response changes them). */
  private resolvedSets: (TargetList | undefined)[] = [];
  /** Per CompiledRuleSet.selectors entry: see selectorList. */
  private selectorLists: (TargetList | undefined)[] = [];
  /** Per CompiledRuleSet pair (selector, trie node): its list's prefilter OR (reset with selectorLists). */
  private pairBits: (Bits | null | undefined)[] | undefined;
  /** Per transaction (created on first use, as the other maps here): lower-cased keys of the stable collections, and their *_NAMES forms. */
  private lowerKeys: Map<readonly Entry[], string[]> | undefined;
  private namesOf: Map<readonly Entry[], Entry[]> | undefined;
  private stableNames: Set<readonly Entry[]> | undefined;
  /** Lists made by matchedVarsList: never cached by identity. */
  private matchedLists: WeakSet<readonly Entry[]> | undefined;
  private readonly state: MatchState = { capture: false, captures: [] };

  // Request body results.
  private argsPost: Entry[] = [];
  private files: MultipartFile[] = [];
  private partHeaders: Entry[] = [];
  private multipartFlags: MultipartFlags = emptyFlags();
  private xml: XmlResult | undefined;
  private reqBody = '';
  private reqBodyLength = 0;
  private reqBodyError = false;
  private reqBodyErrorMsg = '';
  private processorName = '';
  private urlencodedError = false;
  private inboundDataError = false;
  private outboundDataError = false;
  private argsCache: Entry[] | undefined;

  // Per-rule and per-match state.
  private matchedVar = '';
  private matchedVarName = '';
  /** MATCHED_VARS of the rule being evaluated: names and values, the first matchedCount valid. */
  private readonly matchedNames: string[] = [];
  private readonly matchedValues: string[] = [];
  private matchedCount = 0;
  private currentRule: CompiledRule | undefined;
  private paranoiaOverride: number | undefined;

  // Runtime configuration changed by ctl.
  private ruleEngine: 'On' | 'Off' | 'DetectionOnly';
  private bodyProcessor: string | undefined;
  private bodyAccess: boolean;
  private forceBodyVariable = false;
  private bodyLimit: number;
  /** ruleRemoveById / ByTag / ByMsg so far (runFrom checks each rule only when there are any). */
  private removals = 0;
  private removedRanges: [number, number][] = [];
  private removedTags: string[] = [];
  private removedMsgs: string[] = [];
  private removedTargets: RemovedTarget[] = [];

  // Outcome.
  private readonly matched: MatchedRule[] = [];
  private interrupted = false;
  private status = 200;
  private allowAll = false;
  private allowRequest = false;
  private highestSeverity = 255;
  private phasesDone = 0;

  constructor(rs: CompiledRuleSet, req: WafRequest, opts: TransactionOptions) {
    this.rs = rs;
    this.req = req;
    this.opts = opts;
    this.levelPlan = levelPlanFor(rs, opts.groupLevels, opts.paranoiaLevel);
    this.ruleEngine = rs.config.ruleEngine;
    this.bodyAccess = rs.config.requestBodyAccess;
    this.bodyLimit = rs.config.requestBodyLimit;
    this.line = buildRequestLineData(req, rs.config.argumentSeparator, rs.config.argumentsLimit);
    this.urlencodedError = this.line.urlencodedError;
    // CRS 3 reads tx.paranoia_level; CRS 4 blocks on the scores of levels up to
    // tx.blocking_paranoia_level (its default, 1, would let higher-level rules fire but never block).
    const level = String(opts.paranoiaLevel);
    this.setTx('paranoia_level', level);
    this.setTx('blocking_paranoia_level', level);
    this.setTx('detection_paranoia_level', level);
    this.bodyProcessor = this.processorFor((this.header('content-type') ?? '').toLowerCase());
  }

  /** The processor ModSecurity picks from Content-Type while reading the headers (before phase 1). */
  private processorFor(ct: string): string | undefined {
    if (ct.startsWith('application/x-www-form-urlencoded')) return 'URLENCODED';
    if (ct.startsWith('multipart/form-data')) return 'MULTIPART';
    if (this.opts.jsonXmlByContentType && ct.startsWith('application/json')) return 'JSON';
    if (this.opts.jsonXmlByContentType && /^(?:application(?:\/soap\+|\/)|text\/)xml/.test(ct)) return 'XML';
    return undefined;
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
    return {
      interrupted: this.interrupted,
      status: this.interrupted ? this.status : 200,
      matched: this.matched,
      score,
    };
  }

  private txNumber(key: string): number | undefined {
    const e = this.tx.get(key);
    return e === undefined ? undefined : toInt(e[1]);
  }

  private runPhase(phase: number): void {
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
  private runFrom(phase: number, start: number, end: number): number {
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

  /** Whether the TX entries entry i of a phase reads are still those its *_IF_SAME fate was computed on. */
  private sameTx(phase: number, i: number): boolean {
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
  private fromSnapshot(): number {
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
  private conditionalFates(): void {
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
  private firstLinkMatches(rule: CompiledRule): boolean {
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

  private takeSnapshot(): TxSnapshot | null {
    const t = new Transaction(this.rs, TEMPLATE_REQUEST, { ...this.opts, logSink: undefined });
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

  private allowPhase = false;

  private lastLink(rule: CompiledRule): CompiledRule {
    let r = rule;
    while (r.chain) r = r.chain;
    return r;
  }

  private isRemoved(rule: CompiledRule): boolean {
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

  private evaluate(rule: CompiledRule): boolean {
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
  private runTargets(rule: CompiledRule, targets: TargetList): boolean {
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
  private evaluateSelectors(rule: CompiledRule, op: CompiledOperator): boolean {
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
  private evaluateTx(rule: CompiledRule, target: CompiledVariable, op: CompiledOperator): boolean {
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

  private recordMatch(rule: CompiledRule, name: string, value: string): void {
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

  private onMatch(rule: CompiledRule): void {
    for (const sv of rule.setvars) this.setVar(sv);
    for (const c of rule.ctls) this.ctl(c);
  }

  /** `bits`: the prefilter's answer for `input` when the rule has a prefilter bit. */
  private runOperator(rule: CompiledRule, o: Operand): boolean {
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

  /**
   * A value after the transformations of one trie node, kept on the value's record. A
   * transformation that changes nothing yields its input's operand, so the prefilter's answer is
   * shared by every chain the value passes through unchanged.
   */
  private operandAt(node: number, record: ValueRecord): Operand {
    const input =
      record.operands[this.rs.transformParent[node] as number] ??
      this.operandAt(this.rs.transformParent[node] as number, record);
    const out = (this.rs.transformFn[node] as Transformation)(input.value);
    let o = input;
    if (out !== input.value) {
      o = { value: out, bits: undefined, misses: undefined };
      this.rs.values.heldOperand(out);
    }
    record.operands[node] = o;
    return o;
  }

  /** The record of a value: one per distinct string per transaction. */
  private record(value: string): ValueRecord {
    const shared = this.rs.values.get(value);
    if (shared !== undefined) return shared;
    let r = this.records?.get(value);
    if (r === undefined) {
      r = newRecord(value, this.rs.transformFn.length);
      (this.records ??= new Map()).set(value, r);
    }
    return r;
  }

  /** The union of the prefilter's answers over a shared target list after one trie node's transformations. */
  private anyBits(targets: TargetList, node: number): Bits | null {
    let bits = targets.anyBits[node];
    if (bits !== undefined) return bits;
    bits = null;
    // The first answer is used as it is (answers are never written to) and copied only when a
    // second one is ORed in: most lists hold one value, or one that passes the prefilter at all.
    let own = false;
    for (let t = 0; t < targets.count; t++) {
      const record = targets.values[t] as ValueRecord;
      const o = record.operands[node] ?? this.operandAt(node, record);
      const b = o.bits === undefined ? this.scanOperand(o) : o.bits;
      if (b === null || b === bits) continue;
      if (bits === null) {
        bits = b;
        continue;
      }
      if (!own) {
        bits = bits.slice();
        own = true;
      }
      for (let w = 0; w < b.length; w++) bits[w] = (bits[w] as number) | (b[w] as number);
    }
    targets.anyBits[node] = bits;
    return bits;
  }

  /** Records that operator `memo` did not match this operand (operators are pure functions of it). */
  private remember(o: Operand, memo: number): void {
    let misses = o.misses;
    if (misses === undefined) {
      misses = o.misses = emptyBits(this.rs.memoWords);
      this.rs.values.heldBits(misses.length);
    }
    setBit(misses, memo);
  }

  private bitsOf(rule: CompiledRule, o: Operand): Bits | null {
    if (rule.prefilter < 0) return null;
    return o.bits === undefined ? this.scanOperand(o) : o.bits;
  }

  /** The prefilter's answer for one operand, kept on it. */
  private scanOperand(o: Operand): Bits | null {
    const bits = this.rs.prefilter.scan(o.value);
    o.bits = bits;
    if (bits !== null) this.rs.values.heldBits(bits.length);
    return bits;
  }

  private onFullMatch(rule: CompiledRule): void {
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

  // -------------------------------------------------------------------------------------------
  // Actions
  // -------------------------------------------------------------------------------------------

  private setTx(key: string, value: string): void {
    const lower = lowerKey(key);
    const size = this.tx.size;
    this.tx.set(lower, [key, value]);
    this.txList = undefined;
    if (this.txDirty !== undefined) this.markTx(lower);
    if (this.tx.size !== size) this.txAdded?.push(lower);
  }

  /** Notes a write to a TX key some *_IF_SAME fate depends on (see sameTx). */
  private markTx(lower: string): void {
    const bit = this.levelPlan.txWatch.get(lower);
    if (bit !== undefined) setBit(this.txDirty as Bits, bit);
  }

  private collectionMap(name: string): Map<string, Entry> {
    if (name === 'TX') return this.tx;
    let m = this.persistent?.get(name);
    if (m === undefined) {
      m = new Map();
      (this.persistent ??= new Map()).set(name, m);
    }
    return m;
  }

  private setVar(sv: SetVarAction): void {
    const map = this.collectionMap(sv.collection);
    const key = this.expand(sv.key);
    const lower = sv.lowerKey ?? key.toLowerCase();
    const isTx = map === this.tx;
    if (isTx) {
      this.txList = undefined;
      if (this.txDirty !== undefined) this.markTx(lower);
    }
    if (sv.op === 'delete') {
      map.delete(lower);
      if (isTx) this.txDeleted = true;
      return;
    }
    const value = this.expand(sv.value);
    const size = map.size;
    if (sv.op === 'set') {
      map.set(lower, [key, value]);
    } else {
      const current = toInt(map.get(lower)?.[1]);
      const delta = toInt(value);
      map.set(lower, [key, String(sv.op === 'add' ? current + delta : current - delta)]);
    }
    if (isTx && map.size !== size) this.txAdded?.push(lower);
  }

  private ctl(c: CtlAction): void {
    switch (c.kind) {
      case 'ruleEngine':
        this.ruleEngine = c.value;
        break;
      case 'ruleRemoveById':
        this.removedRanges.push(...c.ranges);
        this.removals++;
        break;
      case 'ruleRemoveByTag':
        this.removedTags.push(this.expand(c.tag));
        this.removals++;
        break;
      case 'ruleRemoveByMsg':
        this.removedMsgs.push(c.msg);
        this.removals++;
        break;
      case 'ruleRemoveTargetById':
        this.removedTargets.push({ byId: c.ranges, target: c.target });
        break;
      case 'ruleRemoveTargetByTag':
        this.removedTargets.push({ byTag: c.tag, target: c.target });
        break;
      case 'ruleRemoveTargetByMsg':
        this.removedTargets.push({ byMsg: c.msg, target: c.target });
        break;
      case 'requestBodyProcessor':
        this.bodyProcessor = c.value;
        break;
      case 'requestBodyAccess':
        this.bodyAccess = c.value;
        break;
      case 'forceRequestBodyVariable':
        this.forceBodyVariable = c.value;
        break;
      case 'requestBodyLimit':
        if (c.value > 0) this.bodyLimit = c.value;
        break;
      case 'noop':
        break;
    }
  }

  /** Expands %{...}: the first value of the named variable, or an empty string. */
  expand(m: Macro): string {
    if (m.constant) return m.source;
    let out = '';
    for (const p of m.parts) {
      if (typeof p === 'string') {
        out += p;
        continue;
      }
      if (p.collection === 'RULE') {
        out += this.ruleField(p.key ?? '');
        continue;
      }
      out += this.firstValue(p.collection, p.selector) ?? '';
    }
    return out;
  }

  private ruleField(field: string): string {
    const r = this.currentRule;
    if (r === undefined) return '';
    const top = r.id !== '' ? (this.rs.byId.get(r.id) ?? r) : r;
    switch (field.toLowerCase()) {
      case 'id':
        return top.id;
      case 'msg':
        return top.msg ? top.msg.source.replace(/%\{rule\.msg\}/gi, '') : '';
      case 'severity':
        return top.severity === '' ? '' : String(severityNumber(top.severity));
      case 'logdata':
        return top.logdata?.source ?? '';
      case 'ver':
        return top.ver;
      case 'rev':
        return top.rev;
      case 'phase':
        return String(top.phase);
      default:
        return '';
    }
  }

  // -------------------------------------------------------------------------------------------
  // Variables
  // -------------------------------------------------------------------------------------------

  /** Targets removed from this rule by ctl:ruleRemoveTargetBy* in this transaction. */
  private removedFor(rule: CompiledRule): CompiledVariable[] | undefined {
    let removed: CompiledVariable[] | undefined;
    const top = rule.id !== '' ? (this.rs.byId.get(rule.id) ?? rule) : rule;
    for (const rt of this.removedTargets) {
      const hit =
        rt.byId !== undefined
          ? inRanges(top.idNum, rt.byId)
          : rt.byTag !== undefined
            ? top.tags.some((t) => tagMatches(rt.byTag ?? '', t))
            : top.msg !== undefined && top.msg.source === rt.byMsg;
      if (hit) (removed ??= []).push(rt.target);
    }
    return removed;
  }

  private resolveTargets(rule: CompiledRule, removed: CompiledVariable[] | undefined, out: TargetList): void {
    for (const v of rule.variables) this.collect(v, rule.exclusions, removed, out);
  }

  /**
   * A target set with exclusions, from its selectors' lists (already resolved for the skip plan):
   * each list's entries are copied but those an exclusion names. Exclusions apply to a
   * collection's keyed entries only (as collect applies them); a count with an exclusion on its
   * collection is collected anew, since the exclusion changes the count.
   */
  private resolveSet(rule: CompiledRule): TargetList {
    const out = new TargetList();
    const exclusions = rule.exclusions;
    rule.variables.forEach((v, k) => {
      let applies = false;
      for (const ex of exclusions) if (ex.name === v.name) applies = true;
      if (v.count && applies) {
        this.collect(v, exclusions, undefined, out);
        return;
      }
      const list = this.selectorList(rule.selectors[k] as number);
      for (let t = 0; t < list.count; t++) {
        const key = list.keys[t];
        if (applies && key !== undefined && Transaction.excluded(v.name, key.toLowerCase(), key, exclusions)) continue;
        out.push(list.collections[t] as string, key, list.values[t] as ValueRecord);
      }
    });
    this.resolvedSets[rule.targetSet] = out;
    return out;
  }

  /** One selector's targets, without exclusions, once per transaction (until the body or response). */
  private selectorList(selector: number): TargetList {
    let list = this.selectorLists[selector];
    if (list !== undefined) return list;
    list = new TargetList();
    this.collect(this.rs.selectors[selector] as CompiledVariable, NO_VARIABLES, undefined, list);
    this.selectorLists[selector] = list;
    // The prefilter's unions are a function of the records alone: when this selector yields the
    // same values as in the last transaction (the same headers, say), they carry over.
    const last = this.rs.lastSets[selector];
    if (last !== undefined && last.sameValues(list)) list.anyBits = last.anyBits;
    else this.rs.lastSets[selector] = list;
    return list;
  }

  /**
   * Whether any target of entry i's selectors passes the prefilter for its operator: one bit
   * looked up per selector in that selector's union after the entry's transformations (kept on
   * its list, see anyBits), so the rule itself is not read when none does.
   */
  private planMayMatch(plan: PhasePlan, i: number): boolean {
    const word = plan.word[i] as number;
    const mask = plan.mask[i] as number;
    const end = plan.start[i + 1] as number;
    const pairBits = (this.pairBits ??= new Array<Bits | null | undefined>(this.rs.pairSelector.length));
    for (let s = plan.start[i] as number; s < end; s++) {
      const pair = plan.pairs[s] as number;
      let bits = pairBits[pair];
      if (bits === undefined)
        bits = pairBits[pair] = this.anyBits(
          this.selectorList(this.rs.pairSelector[pair] as number),
          this.rs.pairNode[pair] as number,
        );
      if (bits !== null && ((bits[word] as number) & mask) !== 0) return true;
    }
    return false;
  }

  /**
   * Whether the prefilter lets at least one target of a rule's set through after its
   * transformations: asked of each selector's union (a superset when the set has exclusions,
   * which a skip decision may use).
   */
  private mayMatch(rule: CompiledRule): boolean {
    const node = rule.transformId;
    for (const selector of rule.selectors) {
      if (Prefilter.has(this.anyBits(this.selectorList(selector), node), rule.prefilter)) return true;
    }
    return false;
  }

  private static excluded(
    name: string,
    lowerKey: string,
    key: string,
    list: readonly CompiledVariable[] | undefined,
  ): boolean {
    if (list === undefined) return false;
    for (const ex of list) {
      if (ex.name !== name) continue;
      if (ex.key === undefined) return true;
      if (ex.key.kind === 'literal' ? ex.key.lower === lowerKey : keyMatches(ex.key.re, key)) return true;
    }
    return false;
  }

  /** Appends the values one selector yields (or its count with `&`). */
  private collect(
    v: CompiledVariable,
    exclusions: readonly CompiledVariable[],
    removed: CompiledVariable[] | undefined,
    out: TargetList,
  ): void {
    const name = v.name;
    const key = v.key;
    if (name === 'TX' && key?.kind === 'literal' && exclusions.length === 0 && removed === undefined) {
      // The common `TX:name` needs no scan: the key is the map's.
      const value = this.txValue(key);
      if (v.count) out.push(name, undefined, this.record(value === undefined ? '0' : '1'));
      else if (value !== undefined) out.push(name, this.txKey(key), this.record(value));
      return;
    }
    if (
      name === 'TX' &&
      key?.kind === 'regex' &&
      key.literal !== undefined &&
      exclusions.length === 0 &&
      removed === undefined
    ) {
      this.collectTxRegex(v, key as RegexKey & { literal: string }, out);
      return;
    }
    const entries = this.collection(name, key);
    if (entries === undefined) {
      // A scalar variable.
      if (removed !== undefined && Transaction.excluded(name, '', '', removed)) return;
      const value = this.scalar(name);
      if (v.count) out.push(name, undefined, this.record(value === undefined ? '0' : '1'));
      else if (value !== undefined) out.push(name, undefined, this.record(value));
      return;
    }
    const checkEx = exclusions.length > 0 || removed !== undefined;
    const lowers = (key !== undefined && key.kind === 'literal') || checkEx ? this.lowered(entries) : undefined;
    const memo = key?.kind === 'regex' ? keyMemo(key.re) : undefined;
    let count = 0;
    for (let j = 0; j < entries.length; j++) {
      const e = entries[j] as Entry;
      const k = e[0];
      if (key !== undefined) {
        if (
          key.kind === 'literal'
            ? (lowers as string[])[j] !== key.lower
            : !memoMatches(memo as Map<string, boolean>, key.re, k)
        )
          continue;
      }
      if (checkEx) {
        const lk = (lowers as string[])[j] as string;
        if (Transaction.excluded(name, lk, k, exclusions) || Transaction.excluded(name, lk, k, removed)) continue;
      }
      if (v.count) count++;
      else out.push(name, k, this.record(e[1]));
    }
    if (v.count) out.push(name, undefined, this.record(String(count)));
  }

  /**
   * `TX:/regex/` (CRS's `TX:/^header_name_/`, `&TX:/LEAKAGE\/ERRORS/`): the map's keys are
   * lower-cased, so keys without the regex's literal are passed over without running it.
   */
  private collectTxRegex(v: CompiledVariable, key: RegexKey & { literal: string }, out: TargetList): void {
    const memo = keyMemo(key.re);
    const literal = key.literal;
    let count = 0;
    const snap = this.txSnap;
    const added = this.txAdded;
    if (snap !== undefined && added !== undefined && !this.txDeleted) {
      // Nothing deleted since the snapshot: the map holds the snapshot's keys in their order, then
      // the keys added since in theirs, so the snapshot's keys with the literal are known already.
      let keys = snap.byLiteral.get(literal);
      if (keys === undefined) {
        keys = snap.tx.filter(([lower]) => lower.includes(literal)).map(([lower]) => lower);
        snap.byLiteral.set(literal, keys);
      }
      for (let k = 0; k < keys.length + added.length; k++) {
        const lower = k < keys.length ? (keys[k] as string) : (added[k - keys.length] as string);
        if (k >= keys.length && !lower.includes(literal)) continue;
        const e = this.tx.get(lower) as Entry;
        if (!memoMatches(memo, key.re, e[0])) continue;
        if (v.count) count++;
        else out.push('TX', e[0], this.record(e[1]));
      }
    } else {
      // forEach: no [key, value] pair allocated per entry.
      this.tx.forEach((e, lower) => {
        if (!lower.includes(literal) || !memoMatches(memo, key.re, e[0])) return;
        if (v.count) count++;
        else out.push('TX', e[0], this.record(e[1]));
      });
    }
    if (v.count) out.push('TX', undefined, this.record(String(count)));
  }

  /** Lower-cased keys, kept for the collections that do not change within the transaction. */
  private lowered(entries: readonly Entry[]): string[] {
    let lowers = this.lowerKeys?.get(entries);
    if (lowers === undefined) {
      lowers = entries.map((e) => e[0].toLowerCase());
      if (this.stable(entries)) (this.lowerKeys ??= new Map()).set(entries, lowers);
    }
    return lowers;
  }

  /** Collections that never change once built (unlike TX, MATCHED_VARS, or lists made per call). */
  private stable(entries: readonly Entry[]): boolean {
    return (
      entries === this.argsCache ||
      entries === this.line.argsGet ||
      entries === this.argsPost ||
      entries === this.req.headers ||
      entries === this.line.cookies ||
      entries === this.res?.headers ||
      this.stableNames?.has(entries) === true
    );
  }

  /** The first value a macro's variable yields (`%{tx.score}`, `%{REQUEST_HEADERS.host}`), or undefined. */
  private firstValue(collection: string, key: LiteralKey | undefined): string | undefined {
    if (collection === 'TX' && key !== undefined) return this.txValue(key);
    const entries = this.collection(collection, key);
    if (entries === undefined) return this.scalar(collection);
    for (const e of entries) if (key === undefined || e[0].toLowerCase() === key.lower) return e[1];
    return undefined;
  }

  /** TX as a list, rebuilt only after a setvar changed it. */
  private txEntries(): readonly Entry[] {
    if (this.txList === undefined) this.txList = [...this.tx.values()];
    return this.txList;
  }

  private txValue(key: LiteralKey): string | undefined {
    if (this.paranoiaOverride !== undefined && PARANOIA_KEYS.has(key.lower))
      return LEVELS[this.paranoiaOverride] ?? String(this.paranoiaOverride);
    return this.tx.get(key.lower)?.[1];
  }

  private txKey(key: LiteralKey): string {
    if (this.paranoiaOverride !== undefined && PARANOIA_KEYS.has(key.lower)) return key.value;
    return this.tx.get(key.lower)?.[0] ?? key.value;
  }

  private header(lowerName: string): string | undefined {
    for (const [k, v] of this.req.headers) if (k.toLowerCase() === lowerName) return v;
    return undefined;
  }

  private args(): Entry[] {
    return (this.argsCache ??= this.line.argsGet.concat(this.argsPost));
  }

  /** MATCHED_VARS as a collection (built when a rule reads it; it changes with every match). */
  private matchedVarsList(): Entry[] {
    const list: Entry[] = [];
    for (let k = 0; k < this.matchedCount; k++)
      list.push([this.matchedNames[k] as string, this.matchedValues[k] as string]);
    (this.matchedLists ??= new WeakSet()).add(list);
    return list;
  }

  /** A collection's names as a collection (ARGS_NAMES), kept per transaction for stable ones. */
  private names(entries: readonly Entry[]): Entry[] {
    let names = this.namesOf?.get(entries);
    if (names === undefined) {
      names = entries.map(([k]) => [k, k]);
      if (this.matchedLists?.has(entries) !== true) {
        (this.namesOf ??= new Map()).set(entries, names);
        (this.stableNames ??= new Set()).add(names);
      }
    }
    return names;
  }

  /** Keyed collections; undefined for scalar variables. */
  private collection(name: string, key: CompiledVariable['key']): readonly Entry[] | undefined {
    switch (name) {
      case 'ARGS':
        return this.args();
      case 'ARGS_GET':
        return this.line.argsGet;
      case 'ARGS_POST':
        return this.argsPost;
      case 'ARGS_NAMES':
        return this.names(this.args());
      case 'ARGS_GET_NAMES':
        return this.names(this.line.argsGet);
      case 'ARGS_POST_NAMES':
        return this.names(this.argsPost);
      case 'REQUEST_HEADERS':
        return this.req.headers as readonly Entry[];
      case 'REQUEST_HEADERS_NAMES':
        return this.names(this.req.headers as readonly Entry[]);
      case 'REQUEST_COOKIES':
        return this.line.cookies;
      case 'REQUEST_COOKIES_NAMES':
        return this.names(this.line.cookies);
      case 'FILES':
        return this.files.map((f) => [f.name, f.filename]);
      case 'FILES_NAMES':
        return this.files.map((f) => [f.name, f.name]);
      case 'FILES_SIZES':
        return this.files.map((f) => [f.name, String(f.content.length)]);
      case 'FILES_TMP_CONTENT':
        return this.files.map((f) => [f.name, f.content]);
      case 'FILES_TMPNAMES':
        return NO_ENTRIES;
      case 'MULTIPART_PART_HEADERS':
        return this.partHeaders;
      case 'MULTIPART_FILENAME':
        return this.files.map((f) => [f.name, f.filename]);
      case 'MULTIPART_NAME':
        return this.files.map((f) => [f.name, f.name]);
      case 'TX':
        if (key?.kind === 'literal') {
          if (this.paranoiaOverride !== undefined && PARANOIA_KEYS.has(key.lower)) {
            return [[key.value, String(this.paranoiaOverride)]];
          }
          const e = this.tx.get(key.lower);
          return e === undefined ? NO_ENTRIES : [e];
        }
        return this.txEntries();
      case 'IP':
      case 'GLOBAL':
      case 'SESSION':
      case 'USER':
      case 'RESOURCE':
        return [...this.collectionMap(name).values()];
      case 'ENV':
        return NO_ENTRIES;
      case 'GEO':
        return NO_ENTRIES;
      case 'RULE': {
        const r = this.currentRule;
        return r === undefined
          ? NO_ENTRIES
          : ['id', 'msg', 'severity', 'logdata', 'ver', 'rev', 'phase'].map((f) => [f, this.ruleField(f)]);
      }
      case 'MATCHED_VARS':
        return this.matchedVarsList();
      case 'MATCHED_VARS_NAMES':
        return this.names(this.matchedVarsList());
      case 'XML': {
        if (this.xml === undefined || this.xml.error !== undefined) return NO_ENTRIES;
        const path = key?.kind === 'literal' ? key.value : '/*';
        if (path === '/*' || path === '/' || path === '//*') return [[path, this.xml.text]];
        if (path === '//@*') return this.xml.attributes.map((a) => [path, a]);
        return NO_ENTRIES;
      }
      case 'RESPONSE_HEADERS':
        return (this.res?.headers ?? NO_ENTRIES) as readonly Entry[];
      case 'RESPONSE_HEADERS_NAMES':
        return this.names((this.res?.headers ?? NO_ENTRIES) as readonly Entry[]);
      default:
        return undefined;
    }
  }

  private scalar(name: string): string | undefined {
    const req = this.req;
    switch (name) {
      case 'REQUEST_METHOD':
        return req.method;
      case 'REQUEST_PROTOCOL':
        return req.protocol;
      case 'REQUEST_URI':
        return this.line.uri;
      case 'REQUEST_URI_RAW':
        return this.line.uriRaw;
      case 'REQUEST_LINE':
        return this.line.requestLine;
      case 'REQUEST_FILENAME':
        return this.line.filename;
      case 'REQUEST_BASENAME':
        return this.line.basename;
      case 'QUERY_STRING':
        return this.line.queryString;
      case 'REQUEST_BODY':
        return this.reqBody;
      case 'REQUEST_BODY_LENGTH':
        return String(this.reqBodyLength);
      case 'ARGS_COMBINED_SIZE': {
        let n = 0;
        for (const [k, v] of this.args()) n += k.length + v.length;
        return String(n);
      }
      case 'FILES_COMBINED_SIZE': {
        let n = 0;
        for (const f of this.files) n += f.content.length;
        return String(n);
      }
      case 'REQBODY_ERROR':
      case 'REQBODY_PROCESSOR_ERROR':
        return this.reqBodyError ? '1' : '0';
      case 'REQBODY_ERROR_MSG':
      case 'REQBODY_PROCESSOR_ERROR_MSG':
        return this.reqBodyErrorMsg;
      case 'REQBODY_PROCESSOR':
        return this.bodyProcessor ?? '';
      case 'URLENCODED_ERROR':
        return this.urlencodedError ? '1' : '0';
      case 'INBOUND_DATA_ERROR':
        return this.inboundDataError ? '1' : '0';
      case 'OUTBOUND_DATA_ERROR':
        return this.outboundDataError ? '1' : '0';
      case 'MULTIPART_STRICT_ERROR':
        return strictError(this.multipartFlags) || (this.processorName === 'MULTIPART' && this.reqBodyError)
          ? '1'
          : '0';
      case 'MULTIPART_UNMATCHED_BOUNDARY':
        return this.multipartFlags.unmatchedBoundary ? '1' : '0';
      case 'MULTIPART_BOUNDARY_QUOTED':
        return this.multipartFlags.boundaryQuoted ? '1' : '0';
      case 'MULTIPART_BOUNDARY_WHITESPACE':
        return this.multipartFlags.boundaryWhitespace ? '1' : '0';
      case 'MULTIPART_DATA_BEFORE':
        return this.multipartFlags.dataBefore ? '1' : '0';
      case 'MULTIPART_DATA_AFTER':
        return this.multipartFlags.dataAfter ? '1' : '0';
      case 'MULTIPART_HEADER_FOLDING':
        return this.multipartFlags.headerFolding ? '1' : '0';
      case 'MULTIPART_LF_LINE':
        return this.multipartFlags.lfLine ? '1' : '0';
      case 'MULTIPART_CRLF_LF_LINES':
        return this.multipartFlags.crlfLfLines ? '1' : '0';
      case 'MULTIPART_MISSING_SEMICOLON':
        return this.multipartFlags.missingSemicolon ? '1' : '0';
      case 'MULTIPART_INVALID_QUOTING':
        return this.multipartFlags.invalidQuoting ? '1' : '0';
      case 'MULTIPART_INVALID_PART':
        return this.multipartFlags.invalidPart ? '1' : '0';
      case 'MULTIPART_INVALID_HEADER_FOLDING':
        return this.multipartFlags.invalidHeaderFolding ? '1' : '0';
      case 'MULTIPART_FILE_LIMIT_EXCEEDED':
        return this.multipartFlags.fileLimitExceeded ? '1' : '0';
      case 'REMOTE_ADDR':
        return req.remoteAddr;
      case 'REMOTE_HOST':
        return req.remoteAddr;
      case 'REMOTE_PORT':
        return String(req.remotePort);
      case 'REMOTE_USER':
        return '';
      case 'SERVER_ADDR':
        return req.serverAddr;
      case 'SERVER_PORT':
        return String(req.serverPort);
      case 'SERVER_NAME':
        return (this.header('host') ?? req.serverAddr).replace(/:\d+$/, '');
      case 'AUTH_TYPE': {
        const a = this.header('authorization');
        return a === undefined ? undefined : (a.split(' ')[0] ?? '');
      }
      case 'UNIQUE_ID':
        return this.opts.uniqueId;
      case 'DURATION':
        return String(Number((process.hrtime.bigint() - this.started) / 1000n));
      case 'MATCHED_VAR':
        return this.matchedVar;
      case 'MATCHED_VAR_NAME':
        return this.matchedVarName;
      case 'HIGHEST_SEVERITY':
        return String(this.highestSeverity);
      case 'WEBAPPID':
        return 'default';
      case 'FULL_REQUEST':
        return this.fullRequest();
      case 'FULL_REQUEST_LENGTH':
        return String(this.fullRequest().length);
      case 'TIME':
      case 'TIME_DAY':
      case 'TIME_EPOCH':
      case 'TIME_HOUR':
      case 'TIME_MIN':
      case 'TIME_MON':
      case 'TIME_SEC':
      case 'TIME_WDAY':
      case 'TIME_YEAR':
        return this.time(name);
      case 'RESPONSE_STATUS':
        return this.res === undefined ? undefined : String(this.res.status);
      case 'RESPONSE_PROTOCOL':
        return this.res?.protocol;
      case 'STATUS_LINE':
        return this.res === undefined ? undefined : `${this.res.protocol} ${this.res.status}`;
      case 'RESPONSE_BODY':
        return this.responseBody();
      case 'RESPONSE_CONTENT_TYPE':
        return this.responseHeader('content-type');
      case 'RESPONSE_CONTENT_LENGTH':
        return this.responseHeader('content-length');
      default:
        return undefined;
    }
  }

  private fullRequest(): string {
    let s = this.line.requestLine + '\n';
    for (const [k, v] of this.req.headers) s += `${k}: ${v}\n`;
    return s + '\n' + this.reqBody;
  }

  private time(name: string): string {
    const d = this.opts.now;
    const p2 = (n: number): string => String(n).padStart(2, '0');
    switch (name) {
      case 'TIME_DAY':
        return p2(d.getDate());
      case 'TIME_EPOCH':
        return String(Math.floor(d.getTime() / 1000));
      case 'TIME_HOUR':
        return p2(d.getHours());
      case 'TIME_MIN':
        return p2(d.getMinutes());
      case 'TIME_MON':
        return p2(d.getMonth() + 1);
      case 'TIME_SEC':
        return p2(d.getSeconds());
      case 'TIME_WDAY':
        return String(d.getDay());
      case 'TIME_YEAR':
        return String(d.getFullYear());
      default:
        return `${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
    }
  }

  private responseHeader(lower: string): string | undefined {
    for (const [k, v] of this.res?.headers ?? []) if (k.toLowerCase() === lower) return v;
    return undefined;
  }

  private responseBodyCache: string | undefined;
  private responseBody(): string | undefined {
    if (this.res?.body == null || !this.rs.config.responseBodyAccess) return undefined;
    if (this.responseBodyCache !== undefined) return this.responseBodyCache;
    const ct = (this.responseHeader('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!this.rs.config.responseBodyMimeTypes.includes(ct)) return undefined;
    let body = this.res.body;
    if (body.length > this.rs.config.responseBodyLimit) {
      this.outboundDataError = true;
      body = body.subarray(0, this.rs.config.responseBodyLimit);
    }
    return (this.responseBodyCache = body.toString('latin1'));
  }

  // -------------------------------------------------------------------------------------------
  // Request body
  // -------------------------------------------------------------------------------------------

  private processRequestBody(): void {
    if (this.interrupted || this.allowAll || this.allowRequest || this.ruleEngine === 'Off') return;
    const raw = this.req.body;
    if (raw === null || raw.length === 0 || !this.bodyAccess) return;
    let buf = raw;
    if (buf.length > this.bodyLimit) {
      this.inboundDataError = true;
      if (this.rs.config.requestBodyLimitAction === 'Reject' && this.ruleEngine === 'On') {
        this.interrupted = true;
        this.status = 413;
        this.opts.logSink?.(
          `ModSecurity: Access denied with code 413 (phase 2). Request body (Content-Length) is larger than the configured limit (${this.bodyLimit}). [hostname "${this.header('host') ?? ''}"] [uri "${this.line.uri}"] [unique_id "${this.opts.uniqueId}"]`,
        );
        return;
      }
      buf = buf.subarray(0, this.bodyLimit);
    }
    const body = buf.toString('latin1');
    // As in ModSecurity, REQUEST_BODY is only filled for the URLENCODED processor or when forced.
    if (this.bodyProcessor === 'URLENCODED' || this.forceBodyVariable) this.reqBody = body;
    this.reqBodyLength = buf.length;
    const contentType = this.header('content-type') ?? '';
    const processor = this.bodyProcessor;
    const limit = this.rs.config.argumentsLimit;
    switch (processor) {
      case 'URLENCODED': {
        this.processorName = 'URLENCODED';
        const r = parseUrlencoded(body, this.rs.config.argumentSeparator, limit);
        this.argsPost = r.pairs;
        if (r.invalidEncoding) this.urlencodedError = true;
        break;
      }
      case 'MULTIPART': {
        this.processorName = 'MULTIPART';
        const r = parseMultipart(body, contentType, limit);
        this.argsPost = r.args;
        this.files = r.files;
        this.partHeaders = r.partHeaders;
        this.multipartFlags = r.flags;
        if (r.error !== undefined) this.bodyError(r.error);
        break;
      }
      case 'JSON': {
        this.processorName = 'JSON';
        const r = parseJson(body, limit + 1);
        this.argsPost = r.args.slice(0, limit);
        if (r.error !== undefined) this.bodyError(`JSON parsing error: ${r.error}`);
        else if (r.args.length > limit) this.bodyError('JSON parsing error: arguments limit exceeded');
        break;
      }
      case 'XML': {
        this.processorName = 'XML';
        this.xml = parseXml(body);
        if (this.xml.error !== undefined) this.bodyError(`XML parsing error: ${this.xml.error}`);
        break;
      }
      default:
        if (processor !== undefined) this.processorName = processor;
        break;
    }
    this.argsCache = undefined;
    this.resolvedSets = [];
    this.selectorLists = [];
    this.pairBits = undefined;
  }

  private bodyError(msg: string): void {
    this.reqBodyError = true;
    this.reqBodyErrorMsg = msg;
  }
}
