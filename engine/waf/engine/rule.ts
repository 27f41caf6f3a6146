/**
 * The executable form of a rule set: what compile.ts produces and transaction.ts runs.
 */
import type { OperatorFn, OperatorDef, Transformation, CompileEnv } from '../types.ts';
import type { Prefilter } from './prefilter.ts';
import type { ValueCache } from './value-cache.ts';
import type { TargetList } from './target-list.ts';
import type { Entry } from './request-data.ts';

/** A string with %{...} macros, split once at compile time. */
export type MacroPart = string | { collection: string; key: string | undefined; selector: LiteralKey | undefined };
export interface Macro {
  source: string;
  parts: MacroPart[];
  /** True when the source has no macro: parts is [source]. */
  constant: boolean;
}

export type KeySelector = LiteralKey | RegexKey;
export interface RegexKey {
  kind: 'regex';
  re: RegExp;
  source: string;
  /** Lower-case text every key the regex matches contains, lower-cased (see selector.ts keyLiteral). */
  literal: string | undefined;
}
export interface LiteralKey {
  kind: 'literal';
  value: string;
  lower: string;
}

export interface CompiledVariable {
  name: string;
  key: KeySelector | undefined;
  count: boolean;
}

export interface CompiledOperator {
  name: string;
  negated: boolean;
  argument: string;
  def: OperatorDef;
  /** Compiled once when the argument has no macro. */
  fn: OperatorFn | undefined;
  /** The argument as a macro when it has one: compiled per expanded value. */
  dynamic: Macro | undefined;
  cache: Map<string, OperatorFn> | undefined;
  env: CompileEnv;
  /** OperatorDef.required for the static argument, when the operator names one. */
  required: readonly string[] | undefined;
}

export interface SetVarAction {
  collection: string;
  key: Macro;
  /** The key lower-cased, when it has no macro. */
  lowerKey: string | undefined;
  op: 'set' | 'add' | 'sub' | 'delete';
  value: Macro;
}

export type CtlAction =
  | { kind: 'ruleEngine'; value: 'On' | 'Off' | 'DetectionOnly' }
  | { kind: 'ruleRemoveById'; ranges: [number, number][] }
  | { kind: 'ruleRemoveByTag'; tag: Macro }
  | { kind: 'ruleRemoveByMsg'; msg: string }
  | { kind: 'ruleRemoveTargetById'; ranges: [number, number][]; target: CompiledVariable }
  | { kind: 'ruleRemoveTargetByTag'; tag: string; target: CompiledVariable }
  | { kind: 'ruleRemoveTargetByMsg'; msg: string; target: CompiledVariable }
  | { kind: 'requestBodyProcessor'; value: string }
  | { kind: 'requestBodyAccess'; value: boolean }
  | { kind: 'forceRequestBodyVariable'; value: boolean }
  | { kind: 'requestBodyLimit'; value: number }
  | { kind: 'noop' };

export type Disruptive = 'pass' | 'block' | 'deny' | 'drop' | 'allow' | 'redirect';
export type AllowScope = 'all' | 'phase' | 'request';

export interface CompiledRule {
  kind: 'rule';
  id: string;
  idNum: number;
  phase: number;
  file: string;
  line: number;
  /** Index of the CRS group this rule's file belongs to (see groups.ts), or -1. */
  group: number;
  /** SecAction: no operator, always matches once. */
  unconditional: boolean;
  variables: CompiledVariable[];
  exclusions: CompiledVariable[];
  operator: CompiledOperator | undefined;
  transforms: Transformation[];
  /** Identifies the transformation chain for the per-transaction cache. */
  transformKey: string;
  /**
   * The chain's node in the rule set's transformation trie (0: no transformation): chains that
   * start alike share their prefix, so a value is put through each distinct prefix once.
   */
  transformId: number;
  /** The trie nodes of the chain's prefixes, shortest first (the last is transformId). */
  transformPath: number[];
  /** This rule's bit in the prefilter (see prefilter.ts), or -1 when its operator has none. */
  prefilter: number;
  /** This rule's bit in Operand.misses when its operator is compiled once (static argument), else -1. */
  memo: number;
  /**
   * Rules with the same variables and exclusions share an id when all their variables are fixed
   * once the request body is read (ARGS, REQUEST_HEADERS, REQUEST_URI, ...; not TX): the
   * transaction resolves their targets once per id. -1: resolved per evaluation.
   */
  targetSet: number;
  /** With a target set: the rule set's selector (CompiledRuleSet.selectors) of each variable. */
  selectors: number[];
  /**
   * Set when the rule's only target is `TX:name` or `&TX:name` with no transformation, exclusion,
   * multiMatch or macro in the operator: evaluated without a target list.
   */
  txTarget: CompiledVariable | undefined;
  /** For the first link of a rule with skipAfter: where its phase continues (index in the list). */
  skipTo: number | undefined;
  multiMatch: boolean;
  capture: boolean;
  disruptive: Disruptive | undefined;
  allowScope: AllowScope;
  status: number | undefined;
  log: boolean;
  auditlog: boolean;
  msg: Macro | undefined;
  logdata: Macro | undefined;
  tags: string[];
  severity: string;
  ver: string;
  rev: string;
  maturity: string;
  accuracy: string;
  setvars: SetVarAction[];
  ctls: CtlAction[];
  skip: number;
  skipAfter: string | undefined;
  chain: CompiledRule | undefined;
  /** Set on the first rule of a chain: the default action's disruptive action for `block`. */
  defaultDisruptive: Disruptive;
  defaultStatus: number | undefined;
}

export interface CompiledMarker {
  kind: 'marker';
  label: string;
  group: number;
}

export type PhaseEntry = CompiledRule | CompiledMarker;

export interface EngineConfig {
  ruleEngine: 'On' | 'Off' | 'DetectionOnly';
  requestBodyAccess: boolean;
  responseBodyAccess: boolean;
  requestBodyLimit: number;
  requestBodyLimitAction: 'Reject' | 'ProcessPartial';
  responseBodyLimit: number;
  responseBodyMimeTypes: string[];
  argumentSeparator: string;
  argumentsLimit: number;
}

/**
 * Per phase, per position in its list, what the transaction needs to skip a rule the prefilter
 * rules out without reading the rule itself: its prefilter bit (-1: not skippable this way), its
 * transformation trie node and its selectors (selectors[start[i]] up to selectors[start[i + 1]]).
 */
export interface PhasePlan {
  prefilter: Int32Array;
  /** The prefilter bit as word index and mask (see bits.ts). */
  word: Int32Array;
  mask: Int32Array;
  node: Int32Array;
  start: Int32Array;
  selectors: Int32Array;
  /** Parallel to selectors: the (selector, trie node) pair (CompiledRuleSet.pairSelector / pairNode). */
  pairs: Int32Array;
  /**
   * Where the phase goes on after entry i matched (and did not end it): its skipAfter marker,
   * else past its `skip` count of rules, else i + 1.
   */
  after: Int32Array;
}

export interface CompiledRuleSet {
  /** Index 1..5; index 0 unused. */
  phases: PhaseEntry[][];
  /** Per phase: marker label -> index in that phase's list. */
  markers: Map<string, number>[];
  byId: Map<string, CompiledRule>;
  config: EngineConfig;
  /** The transformation trie: per node, its parent (-1 at the root) and its last transformation. */
  transformParent: readonly number[];
  transformFn: readonly (Transformation | undefined)[];
  /** Number of distinct target sets (CompiledRule.targetSet < this). */
  targetSets: number;
  prefilter: Prefilter;
  /** Words of Operand.misses. */
  memoWords: number;
  /** Transformed forms and prefilter answers of values, shared by the transactions. */
  values: ValueCache;
  /**
   * The distinct variables of target sets (without exclusions). The transaction resolves each
   * once and asks the prefilter about a set through the union of its selectors, so a rule whose
   * operator no target can satisfy is skipped before its set is built.
   */
  selectors: CompiledVariable[];
  /** Index 0..5 like phases. */
  plans: PhasePlan[];
  /**
   * The distinct (selector, trie node) pairs the plans ask about: the transaction keeps each
   * pair's prefilter OR in one flat array (Transaction.pairBits).
   */
  pairSelector: Int32Array;
  pairNode: Int32Array;
  /** Per selector, the list the last transaction resolved (see Transaction.selectorList). */
  lastSets: (TargetList | undefined)[];
  /** Phase 1 entries [0, txPrefix) read and write only TX (see level-plan.ts). */
  txPrefix: number;
  /** Per level profile: guard outcomes and the TX snapshot (see level-plan.ts). */
  levelPlans: LevelPlanCache;
}

/** The TX state after the phase-1 prefix of TX-only rules (CompiledRuleSet.txPrefix). */
export interface TxSnapshot {
  /** TX as [lower-case key, entry] pairs (a Map builds faster from an array than from a Map). */
  tx: readonly (readonly [string, Entry])[];
  /** Where phase 1 continues. */
  resume: number;
  matchedVar: string;
  matchedVarName: string;
  highestSeverity: number;
  currentRule: CompiledRule | undefined;
  /** The engine mode the prefix ran under (a matching `deny` would differ between On and DetectionOnly). */
  ruleEngine: string;
  /** Per regex key literal (RegexKey.literal): the snapshot's lower-case TX keys holding it, in order. */
  byLiteral: Map<string, string[]>;
}

export interface LevelPlan {
  readonly paranoiaLevel: number;
  /** The TX entries set before phase 1 it was made for (TransactionOptions.txKey). */
  readonly txKey: string;
  /**
   * Per phase (index 1..5), per entry (see level-plan.ts): EVALUATE; NEVER (a guard that cannot
   * match at these levels); ALWAYS (a guard that matches, with no effect but MATCHED_VAR and its
   * jump); NEVER_IF_SAME and ALWAYS_IF_SAME (the same, as long as the TX entries the rule reads
   * are those of the snapshot: txKeys / txEntries).
   */
  readonly fates: Int8Array[];
  /** For ALWAYS entries: the MATCHED_VAR and MATCHED_VAR_NAME the guard's match sets. */
  readonly guardValues: string[][];
  readonly guardNames: string[][];
  /** For *_IF_SAME entries: the TX keys (lower case) the rule reads and the snapshot's entries. */
  readonly txKeys: string[][][];
  readonly txEntries: (Entry | undefined)[][][];
  /**
   * The same condition as bits: each TX key an *_IF_SAME entry reads numbered (txWatch), and per
   * entry the mask of its keys (txMasks, txWords words). A transaction started from the snapshot
   * sets a key's bit when it writes the key, so the test needs no map lookup.
   */
  readonly txWatch: Map<string, number>;
  readonly txMasks: number[][][];
  txWords: number;
  /** undefined: not taken yet; null: the prefix cannot be replayed (it matched, logged or disrupted). */
  snapshot: TxSnapshot | null | undefined;
}

/** Plans by level array identity (sites prepare a profile once) and, for fresh arrays, by value. */
export interface LevelPlanCache {
  byArray: WeakMap<readonly number[], LevelPlan>;
  byKey: Map<string, LevelPlan>;
}
