/**
 * The WAF's public surface: compile a loaded rule set once with the operator's settings (per-group
 * enable switch and paranoia level, request body limit, compatibility log), then inspect requests
 * (phases 1 and 2) and, where Rampart sees it, the response (phases 3 and 4). Synchronous and pure:
 * the hot path does no I/O except the optional log sink.
 */
import { randomBytes } from 'node:crypto';
import type {
  Directive,
  OperatorDef,
  ParseProblem,
  Transformation,
  WafOutcome,
  WafRequest,
  WafResponse,
} from './types.ts';
import { OPERATORS } from '#engine/waf/operators';
import { TRANSFORMATIONS } from '#engine/waf/transformations';
import {
  compileRuleSet,
  GROUPS,
  literalTarget,
  Transaction,
  type GroupId,
  type GroupSetting,
  type RequestExclusions,
} from '#engine/waf/engine';

export type { WafOutcome, WafRequest, WafResponse, MatchedRule, Directive, ParseProblem } from './types.ts';
export { PARSE_PROBLEM_CODES, type ParseProblemCode, type ProblemParams } from './problems.ts';
export { GROUPS, type GroupId, type GroupSetting, type RequestExclusions } from '#engine/waf/engine';
export {
  compileCustomRules,
  patternIssue,
  patternProblem,
  CUSTOM_LOCATIONS,
  PAIR_LOCATIONS,
  PLUGIN_LOCATIONS,
  MAX_PATTERN_LENGTH,
} from '#engine/waf/custom';
// Rule sets: finding, loading and unpacking them, and what the console shows of their groups.
export {
  attributableRuleIds,
  countGroupLevels,
  detectRuleSetDir,
  DEBIAN_LOCATION,
  extractArchive,
  loadRuleSet,
  ruleLevels,
  RULE_GROUPS,
} from '#engine/waf/ruleset';
export type {
  ArchiveProblemCode,
  GroupLevelCount,
  InstalledRuleSet,
  LoadOptions,
  RuleGroup,
  RuleLevel,
  RuleSet,
  RuleSetLocation,
} from '#engine/waf/ruleset';
export { parseSecLang } from '#engine/waf/seclang';
// Our SQL and HTML tokenizers, for the second opinion on a rule's match (basic-rules).
export { detectSqli, detectXss } from '#engine/waf/detect';
export type {
  CustomLocation,
  ConditionLocation,
  CustomCondition,
  CustomRuleSpec,
  CustomRequest,
  CustomRuleMatcher,
} from '#engine/waf/custom';

export interface WafSettings {
  /** Per group (CRS file number): enabled and paranoia level 1..4. Default: enabled, level 1. */
  groups?: Partial<Record<GroupId, Partial<GroupSetting>>>;
  /** Request body inspection limit in bytes (default 128 KB). */
  requestBodyLimit?: number;
  /** Like SecRequestBodyLimitAction: Reject (413) or ProcessPartial (inspect the first bytes). */
  requestBodyLimitAction?: 'Reject' | 'ProcessPartial';
  /** Overrides the rule set's SecRuleEngine (default On). */
  ruleEngine?: 'On' | 'Off' | 'DetectionOnly';
  /** Select the JSON / XML body processors from Content-Type (ModSecurity's recommended rules 200000/200001). Default true. */
  jsonXmlByContentType?: boolean;
  /** Compatibility log: ModSecurity-style error-log lines with `[id "NNN"]` per matched rule. */
  compatibilityLog?: (line: string) => void;
  /** For tests: other operator / transformation tables. */
  operators?: ReadonlyMap<string, OperatorDef>;
  transformations?: ReadonlyMap<string, Transformation>;
}

/** What `createWaf` needs of a loaded rule set (engine/waf/ruleset's `RuleSet` fits). */
export interface RuleSetInput {
  directives: readonly Directive[];
  dataFiles: ReadonlyMap<string, string[]>;
}

/**
 * Per-group paranoia levels prepared once (see `Waf.levels`) and passed to each inspection, with
 * the TX entries a site sets before phase 1 (its allowed content types, say).
 */
export interface LevelProfile {
  readonly levels: readonly number[];
  readonly paranoiaLevel: number;
  readonly tx: readonly (readonly [string, string])[];
  readonly txKey: string;
}

export interface InspectOptions {
  /** Also run phases 3 and 4 over this response in the same transaction. */
  response?: WafResponse;
  /** Group levels for this request instead of those the WAF was created with (enable switches stay). */
  levels?: LevelProfile;
  /** Rules and targets removed for this request (a site's exclusions that apply to its path). */
  exclusions?: RequestExclusions | undefined;
}

/**
 * Exclusions for `InspectOptions.exclusions`: whole rules (`ruleIds`) and rules' targets, each
 * target as the WAF names a match (`ARGS:q`, `REQUEST_HEADERS:Referer`; a key is a literal name).
 */
export function requestExclusions(
  ruleIds: readonly number[],
  targets: readonly { ruleId: number; variable: string }[],
): RequestExclusions {
  return {
    ruleIds: ruleIds.map((id) => [id, id]),
    targets: targets.map((t) => ({ ruleIds: [[t.ruleId, t.ruleId]], target: literalTarget(t.variable) })),
  };
}

/** A transaction kept open between the request and its response (reverse proxy). */
export interface WafTransaction {
  readonly request: WafOutcome;
  inspectResponse(response: WafResponse): WafOutcome;
  /** Runs phase 5 (logging) and returns the final outcome. */
  finish(): WafOutcome;
}

export interface Waf {
  /** Phases 1 and 2 (and 3, 4 with options.response), then phase 5. */
  inspect(request: WafRequest, options?: InspectOptions): WafOutcome;
  /** Phases 1 and 2, keeping the transaction open for the response. */
  begin(request: WafRequest, options?: Pick<InspectOptions, 'levels' | 'exclusions'>): WafTransaction;
  /** A level profile for `inspect`: per group 1..4 (absent: 1), and TX entries set before phase 1. */
  levels(groups: Partial<Record<GroupId, number>>, tx?: Readonly<Record<string, string>>): LevelProfile;
  inspectResponse(transaction: WafTransaction, response: WafResponse): WafOutcome;
  /** Rules that could not be compiled (left out), with file and line. */
  readonly problems: readonly ParseProblem[];
  readonly ruleCount: number;
}

let uniqueCounter = 0;
const uniquePrefix = randomBytes(6).toString('hex');

function uniqueId(): string {
  uniqueCounter = (uniqueCounter + 1) % 0x7fffffff;
  return `${uniquePrefix}${uniqueCounter.toString(16).padStart(8, '0')}`;
}

function levelProfile(
  groups: Partial<Record<GroupId, number>>,
  disabled: ReadonlySet<number>,
  presets: Readonly<Record<string, string>> = {},
): LevelProfile {
  const levels = GROUPS.map((g) => Math.min(4, Math.max(1, Math.trunc(groups[g] ?? 1))));
  const enabledLevels = levels.filter((_, i) => !disabled.has(i));
  const tx = Object.entries(presets)
    .map(([key, value]) => [key.toLowerCase(), value] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return {
    levels,
    paranoiaLevel: enabledLevels.length > 0 ? Math.max(...enabledLevels) : 1,
    tx,
    txKey: tx.length === 0 ? '' : JSON.stringify(tx),
  };
}

export function createWaf(ruleSet: RuleSetInput, settings: WafSettings = {}): Waf {
  const disabled = new Set<number>();
  const configured: Partial<Record<GroupId, number>> = {};
  GROUPS.forEach((g, i) => {
    const s = settings.groups?.[g];
    if (s?.level !== undefined) configured[g] = s.level;
    if (s?.enabled === false) disabled.add(i);
  });
  const initial = levelProfile(configured, disabled);

  const { ruleSet: compiled, problems } = compileRuleSet({
    directives: ruleSet.directives,
    dataFiles: ruleSet.dataFiles,
    operators: settings.operators ?? OPERATORS,
    transformations: settings.transformations ?? TRANSFORMATIONS,
    disabledGroups: disabled,
  });
  if (settings.requestBodyLimit !== undefined) compiled.config.requestBodyLimit = settings.requestBodyLimit;
  if (settings.requestBodyLimitAction !== undefined)
    compiled.config.requestBodyLimitAction = settings.requestBodyLimitAction;
  if (settings.ruleEngine !== undefined) compiled.config.ruleEngine = settings.ruleEngine;

  const open = (
    request: WafRequest,
    profile: LevelProfile = initial,
    exclusions: RequestExclusions | undefined = undefined,
  ): Transaction => {
    const t = new Transaction(compiled, request, {
      groupLevels: profile.levels,
      paranoiaLevel: profile.paranoiaLevel,
      jsonXmlByContentType: settings.jsonXmlByContentType ?? true,
      logSink: settings.compatibilityLog,
      uniqueId: uniqueId(),
      now: new Date(),
      tx: profile.tx,
      txKey: profile.txKey,
    });
    if (exclusions) t.exclude(exclusions);
    return t;
  };

  const begin = (request: WafRequest, options?: Pick<InspectOptions, 'levels' | 'exclusions'>): WafTransaction => {
    const t = open(request, options?.levels, options?.exclusions);
    const first = t.processRequest();
    return {
      request: first,
      inspectResponse: (response) => t.processResponse(response),
      finish: () => t.processLogging(),
    };
  };

  let ruleCount = 0;
  for (const p of compiled.phases) for (const e of p) if (e.kind === 'rule') ruleCount++;

  return {
    inspect(request, options) {
      const t = open(request, options?.levels, options?.exclusions);
      t.processRequest();
      if (options?.response) t.processResponse(options.response);
      return t.processLogging();
    },
    begin,
    levels: (groups, tx) => levelProfile(groups, disabled, tx),
    inspectResponse: (transaction, response) => transaction.inspectResponse(response),
    problems,
    ruleCount,
  };
}
