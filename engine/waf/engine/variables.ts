/**
 * What a transaction holds (the request, its body's results, TX and the other collections, the
 * per-rule and outcome state) and how variables resolve against it: a selector to its values
 * (`collect`), collections and scalar variables by name, target lists with exclusions and removed
 * targets, per-value records with their transformed operands and prefilter answers, and the
 * prefilter's skip tests over them. The layers above add actions (actions.ts), the request body
 * (request-body.ts), the TX snapshot (tx-snapshot.ts) and the phases (transaction.ts).
 */
import type { MatchedRule, MatchState, Transformation, WafRequest, WafResponse } from '../types.ts';
import { emptyFlags, strictError, type MultipartFile, type MultipartFlags } from './body/multipart.ts';
import type { XmlResult } from './body/xml.ts';
import { inRanges, tagMatches } from './exclusions.ts';
import { PARANOIA_KEYS } from './groups.ts';
import { buildRequestLineData, type Entry, type RequestLineData } from './request-data.ts';
import type {
  CompiledRule,
  CompiledRuleSet,
  CompiledVariable,
  LevelPlan,
  LiteralKey,
  PhasePlan,
  RegexKey,
  TxSnapshot,
} from './rule.ts';
import { levelPlanFor } from './level-plan.ts';
import { Prefilter } from './prefilter.ts';
import type { Bits } from './bits.ts';
import { newRecord, type Operand, type ValueRecord } from './value-cache.ts';
import { TargetList } from './target-list.ts';

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
  /**
   * TX entries set before phase 1, as a setup file's SecAction would (the rule set's own setup
   * still overrides them); `txKey` names the set, since the TX snapshot is taken with them.
   */
  tx?: readonly (readonly [string, string])[] | undefined;
  txKey?: string | undefined;
}

export interface RemovedTarget {
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

export function severityNumber(s: string): number {
  if (s === '') return 255;
  const n = Number(s);
  if (Number.isInteger(n)) return n;
  return SEVERITIES[s.toLowerCase()] ?? 255;
}

export function toInt(s: string | undefined): number {
  if (s === undefined) return 0;
  const n = Number.parseInt(s, 10);
  return Number.isNaN(n) ? 0 : n;
}

const NO_ENTRIES: Entry[] = [];
const LEVELS = ['0', '1', '2', '3', '4'];
const NO_VARIABLES: readonly CompiledVariable[] = [];

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

/** Whether an exclusion (or removed target) names this key of collection `name`. */
export function excluded(
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

export abstract class TransactionVariables {
  protected readonly rs: CompiledRuleSet;
  protected readonly opts: TransactionOptions;
  protected readonly req: WafRequest;
  protected readonly line: RequestLineData;
  protected res: WafResponse | undefined;
  protected readonly started = process.hrtime.bigint();

  protected tx = new Map<string, Entry>();
  /** Once started from the snapshot: bits (LevelPlan.txWatch) of the watched TX keys written since. */
  protected txDirty: Bits | undefined;
  /** Once started from the snapshot: it, the TX keys added since in order, and whether any was deleted (see collectTxRegex). */
  protected txSnap: TxSnapshot | undefined;
  protected txAdded: string[] | undefined;
  protected txDeleted = false;
  protected readonly levelPlan: LevelPlan;
  protected txList: Entry[] | undefined;
  protected persistent: Map<string, Map<string, Entry>> | undefined;
  /** Per distinct long value (short ones are in the rule set's ValueCache): its operands. */
  protected records: Map<string, ValueRecord> | undefined;
  /** Targets of rules without a target set, refilled per evaluation. */
  protected readonly scratch = new TargetList();
  /** Per CompiledRule.targetSet, resolved once (until the request body or the response changes them). */
  protected resolvedSets: (TargetList | undefined)[] = [];
  /** Per CompiledRuleSet.selectors entry: see selectorList. */
  protected selectorLists: (TargetList | undefined)[] = [];
  /** Per CompiledRuleSet pair (selector, trie node): its list's prefilter OR (reset with selectorLists). */
  protected pairBits: (Bits | null | undefined)[] | undefined;
  /** Per transaction (created on first use, as the other maps here): lower-cased keys of the stable collections, and their *_NAMES forms. */
  protected lowerKeys: Map<readonly Entry[], string[]> | undefined;
  protected namesOf: Map<readonly Entry[], Entry[]> | undefined;
  protected stableNames: Set<readonly Entry[]> | undefined;
  /** Lists made by matchedVarsList: never cached by identity. */
  protected matchedLists: WeakSet<readonly Entry[]> | undefined;
  protected readonly state: MatchState = { capture: false, captures: [] };

  // Request body results.
  protected argsPost: Entry[] = [];
  protected files: MultipartFile[] = [];
  protected partHeaders: Entry[] = [];
  protected multipartFlags: MultipartFlags = emptyFlags();
  protected xml: XmlResult | undefined;
  protected reqBody = '';
  protected reqBodyLength = 0;
  protected reqBodyError = false;
  protected reqBodyErrorMsg = '';
  protected processorName = '';
  protected urlencodedError = false;
  protected inboundDataError = false;
  protected outboundDataError = false;
  protected argsCache: Entry[] | undefined;

  // Per-rule and per-match state.
  protected matchedVar = '';
  protected matchedVarName = '';
  /** MATCHED_VARS of the rule being evaluated: names and values, the first matchedCount valid. */
  protected readonly matchedNames: string[] = [];
  protected readonly matchedValues: string[] = [];
  protected matchedCount = 0;
  protected currentRule: CompiledRule | undefined;
  protected paranoiaOverride: number | undefined;

  // Runtime configuration changed by ctl.
  protected ruleEngine: 'On' | 'Off' | 'DetectionOnly';
  protected bodyProcessor: string | undefined;
  protected bodyAccess: boolean;
  protected forceBodyVariable = false;
  protected bodyLimit: number;
  /** ruleRemoveById / ByTag / ByMsg so far (runFrom checks each rule only when there are any). */
  protected removals = 0;
  protected removedRanges: [number, number][] = [];
  protected removedTags: string[] = [];
  protected removedMsgs: string[] = [];
  protected removedTargets: RemovedTarget[] = [];

  // Outcome.
  protected readonly matched: MatchedRule[] = [];
  protected interrupted = false;
  protected status = 200;
  protected allowAll = false;
  protected allowRequest = false;
  protected highestSeverity = 255;
  protected phasesDone = 0;

  /** Set by an `allow:phase` match; runFrom ends the phase and clears it. */
  protected allowPhase = false;
  protected responseBodyCache: string | undefined;

  constructor(rs: CompiledRuleSet, req: WafRequest, opts: TransactionOptions) {
    this.rs = rs;
    this.req = req;
    this.opts = opts;
    this.levelPlan = levelPlanFor(rs, opts.groupLevels, opts.paranoiaLevel, opts.txKey ?? '');
    this.ruleEngine = rs.config.ruleEngine;
    this.bodyAccess = rs.config.requestBodyAccess;
    this.bodyLimit = rs.config.requestBodyLimit;
    this.line = buildRequestLineData(req, rs.config.argumentSeparator, rs.config.argumentsLimit);
    this.urlencodedError = this.line.urlencodedError;
  }

  /** The record of a value: one per distinct string per transaction. */
  protected record(value: string): ValueRecord {
    const shared = this.rs.values.get(value);
    if (shared !== undefined) return shared;
    let r = this.records?.get(value);
    if (r === undefined) {
      r = newRecord(value, this.rs.transformFn.length);
      (this.records ??= new Map()).set(value, r);
    }
    return r;
  }

  /**
   * A value after the transformations of one trie node, kept on the value's record. A
   * transformation that changes nothing yields its input's operand, so the prefilter's answer is
   * shared by every chain the value passes through unchanged.
   */
  protected operandAt(node: number, record: ValueRecord): Operand {
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

  /** The union of the prefilter's answers over a shared target list after one trie node's transformations. */
  protected anyBits(targets: TargetList, node: number): Bits | null {
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

  /** The prefilter's answer for one operand, kept on it. */
  protected scanOperand(o: Operand): Bits | null {
    const bits = this.rs.prefilter.scan(o.value);
    o.bits = bits;
    if (bits !== null) this.rs.values.heldBits(bits.length);
    return bits;
  }

  /** Targets removed from this rule by ctl:ruleRemoveTargetBy* in this transaction. */
  protected removedFor(rule: CompiledRule): CompiledVariable[] | undefined {
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

  protected resolveTargets(rule: CompiledRule, removed: CompiledVariable[] | undefined, out: TargetList): void {
    for (const v of rule.variables) this.collect(v, rule.exclusions, removed, out);
  }

  /**
   * A target set with exclusions, from its selectors' lists (already resolved for the skip plan):
   * each list's entries are copied but those an exclusion names. Exclusions apply to a
   * collection's keyed entries only (as collect applies them); a count with an exclusion on its
   * collection is collected anew, since the exclusion changes the count.
   */
  protected resolveSet(rule: CompiledRule): TargetList {
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
        if (applies && key !== undefined && excluded(v.name, key.toLowerCase(), key, exclusions)) continue;
        out.push(list.collections[t] as string, key, list.values[t] as ValueRecord);
      }
    });
    this.resolvedSets[rule.targetSet] = out;
    return out;
  }

  /** One selector's targets, without exclusions, once per transaction (until the body or response). */
  protected selectorList(selector: number): TargetList {
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
  protected planMayMatch(plan: PhasePlan, i: number): boolean {
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
  protected mayMatch(rule: CompiledRule): boolean {
    const node = rule.transformId;
    for (const selector of rule.selectors) {
      if (Prefilter.has(this.anyBits(this.selectorList(selector), node), rule.prefilter)) return true;
    }
    return false;
  }

  /** Appends the values one selector yields (or its count with `&`). */
  protected collect(
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
      if (removed !== undefined && excluded(name, '', '', removed)) return;
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
        if (excluded(name, lk, k, exclusions) || excluded(name, lk, k, removed)) continue;
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
  protected collectTxRegex(v: CompiledVariable, key: RegexKey & { literal: string }, out: TargetList): void {
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
  protected lowered(entries: readonly Entry[]): string[] {
    let lowers = this.lowerKeys?.get(entries);
    if (lowers === undefined) {
      lowers = entries.map((e) => e[0].toLowerCase());
      if (this.stable(entries)) (this.lowerKeys ??= new Map()).set(entries, lowers);
    }
    return lowers;
  }

  /** Collections that never change once built (unlike TX, MATCHED_VARS, or lists made per call). */
  protected stable(entries: readonly Entry[]): boolean {
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
  protected firstValue(collection: string, key: LiteralKey | undefined): string | undefined {
    if (collection === 'TX' && key !== undefined) return this.txValue(key);
    const entries = this.collection(collection, key);
    if (entries === undefined) return this.scalar(collection);
    for (const e of entries) if (key === undefined || e[0].toLowerCase() === key.lower) return e[1];
    return undefined;
  }

  /** TX as a list, rebuilt only after a setvar changed it. */
  protected txEntries(): readonly Entry[] {
    if (this.txList === undefined) this.txList = [...this.tx.values()];
    return this.txList;
  }

  protected txValue(key: LiteralKey): string | undefined {
    if (this.paranoiaOverride !== undefined && PARANOIA_KEYS.has(key.lower))
      return LEVELS[this.paranoiaOverride] ?? String(this.paranoiaOverride);
    return this.tx.get(key.lower)?.[1];
  }

  protected txKey(key: LiteralKey): string {
    if (this.paranoiaOverride !== undefined && PARANOIA_KEYS.has(key.lower)) return key.value;
    return this.tx.get(key.lower)?.[0] ?? key.value;
  }

  protected header(lowerName: string): string | undefined {
    for (const [k, v] of this.req.headers) if (k.toLowerCase() === lowerName) return v;
    return undefined;
  }

  protected args(): Entry[] {
    return (this.argsCache ??= this.line.argsGet.concat(this.argsPost));
  }

  /** MATCHED_VARS as a collection (built when a rule reads it; it changes with every match). */
  protected matchedVarsList(): Entry[] {
    const list: Entry[] = [];
    for (let k = 0; k < this.matchedCount; k++)
      list.push([this.matchedNames[k] as string, this.matchedValues[k] as string]);
    (this.matchedLists ??= new WeakSet()).add(list);
    return list;
  }

  /** A collection's names as a collection (ARGS_NAMES), kept per transaction for stable ones. */
  protected names(entries: readonly Entry[]): Entry[] {
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
  protected collection(name: string, key: CompiledVariable['key']): readonly Entry[] | undefined {
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

  protected collectionMap(name: string): Map<string, Entry> {
    if (name === 'TX') return this.tx;
    let m = this.persistent?.get(name);
    if (m === undefined) {
      m = new Map();
      (this.persistent ??= new Map()).set(name, m);
    }
    return m;
  }

  protected ruleField(field: string): string {
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

  protected scalar(name: string): string | undefined {
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

  protected fullRequest(): string {
    let s = this.line.requestLine + '\n';
    for (const [k, v] of this.req.headers) s += `${k}: ${v}\n`;
    return s + '\n' + this.reqBody;
  }

  protected time(name: string): string {
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

  protected responseHeader(lower: string): string | undefined {
    for (const [k, v] of this.res?.headers ?? []) if (k.toLowerCase() === lower) return v;
    return undefined;
  }

  protected responseBody(): string | undefined {
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
}
