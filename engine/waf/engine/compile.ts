/**
 * Directive[] -> CompiledRuleSet. Operators and transformations are resolved from their tables,
 * variable selectors and macros precompiled, SecDefaultAction applied per phase, markers indexed
 * for skipAfter, and the compile-time exclusions (SecRuleRemoveById / ByTag / ByMsg,
 * SecRuleUpdateTargetById / ByTag / ByMsg) applied. Every problem carries its file and line; a rule
 * that cannot be compiled is left out and reported, never half-built.
 */
import type { Directive, OperatorDef, ParseProblem, Transformation } from '../types.ts';
import { groupOfFile } from './groups.ts';
import { ValueCache } from './value-cache.ts';
import { newLevelPlanCache, txOnlyPrefix } from './level-plan.ts';
import { CompileError } from './compile-error.ts';
import { compileRule, defaultsFrom, emptyDefaults, type DefaultActions, type RuleContext } from './compile-rule.ts';
import { addExclusion, applyExclusions, noExclusions, type Exclusions } from './exclusions.ts';
import { applyConfig, DEFAULT_CONFIG } from './config.ts';
import { indexRules, markersOf, phaseLists, phasePlans, resolveJumps } from './plans.ts';
import type { CompiledMarker, CompiledRule, CompiledRuleSet, EngineConfig } from './rule.ts';

export { DEFAULT_CONFIG } from './config.ts';

export interface CompileInput {
  directives: readonly Directive[];
  operators: ReadonlyMap<string, OperatorDef>;
  transformations: ReadonlyMap<string, Transformation>;
  /** Data files by name (as in @pmFromFile) or path; looked up by exact name, then basename. */
  dataFiles: ReadonlyMap<string, string[]>;
  /** Group indexes (groups.ts) whose rules are left out entirely. */
  disabledGroups?: ReadonlySet<number>;
  /** Engine configuration before the rule set's own directives apply. */
  config?: Partial<EngineConfig>;
}

export interface CompileResult {
  ruleSet: CompiledRuleSet;
  problems: ParseProblem[];
}

export function compileRuleSet(input: CompileInput): CompileResult {
  const problems: ParseProblem[] = [];
  const config: EngineConfig = { ...DEFAULT_CONFIG, ...input.config };
  const { list, exclusions, byId } = compileDirectives(input, config, problems);
  const kept = applyExclusions(list, exclusions, problems);
  const phases = phaseLists(kept);
  const markers = markersOf(phases);
  const index = indexRules(kept);
  const { plans, pairSelector, pairNode } = phasePlans(phases);
  resolveJumps(phases, markers, plans);
  const ruleSet: CompiledRuleSet = {
    phases,
    markers,
    byId,
    config,
    transformParent: index.transformParent,
    transformFn: index.transformFn,
    targetSets: index.targetSets,
    prefilter: index.prefilter,
    memoWords: index.memoWords,
    values: new ValueCache(index.transformFn.length),
    lastSets: [],
    selectors: index.selectors,
    plans,
    pairSelector,
    pairNode,
    txPrefix: txOnlyPrefix(phases[1] ?? []),
    levelPlans: newLevelPlanCache(),
  };
  return { ruleSet, problems };
}

/**
 * Reads the directives in order: rules and markers (rules of disabled groups left out), SecDefaultAction
 * per phase, configuration and exclusions. A directive that cannot be compiled is reported and skipped.
 */
function compileDirectives(
  input: CompileInput,
  config: EngineConfig,
  problems: ParseProblem[],
): { list: (CompiledRule | CompiledMarker)[]; exclusions: Exclusions; byId: Map<string, CompiledRule> } {
  const defaults: DefaultActions[] = [
    emptyDefaults(),
    emptyDefaults(),
    emptyDefaults(),
    emptyDefaults(),
    emptyDefaults(),
    emptyDefaults(),
  ];
  const ctx: RuleContext = {
    operators: input.operators,
    transformations: input.transformations,
    dataFiles: input.dataFiles,
    defaults,
  };
  const list: (CompiledRule | CompiledMarker)[] = [];
  const byId = new Map<string, CompiledRule>();
  const exclusions = noExclusions();
  const disabled = input.disabledGroups ?? new Set<number>();
  for (const d of input.directives) {
    try {
      switch (d.kind) {
        case 'rule':
        case 'action': {
          const rule = compileRule(d, undefined, ctx);
          if (rule.id === '') throw new CompileError('rule_without_id', {}, 'rule without id');
          if (byId.has(rule.id))
            throw new CompileError('duplicate_rule', { id: rule.id }, `duplicate rule id ${rule.id}`);
          byId.set(rule.id, rule);
          if (rule.group >= 0 && disabled.has(rule.group)) break;
          list.push(rule);
          break;
        }
        case 'marker':
          list.push({ kind: 'marker', label: d.label, group: groupOfFile(d.file) });
          break;
        case 'defaultAction': {
          const [phase, def] = defaultsFrom(d.actions, input.transformations);
          defaults[phase] = def;
          break;
        }
        case 'config':
          if (!addExclusion(d, exclusions)) applyConfig(d, config);
          break;
      }
    } catch (err) {
      if (err instanceof CompileError) {
        problems.push({ file: d.file, line: d.line, message: err.message, code: err.code, params: err.params });
      } else if (err instanceof SyntaxError) {
        problems.push({
          file: d.file,
          line: d.line,
          message: err.message,
          code: 'compile_failed',
          params: { error: err.message },
        });
      } else throw err;
    }
  }
  return { list, exclusions, byId };
}
