/**
 * engine/waf/engine: compiles parsed SecLang directives into an executable rule set and runs
 * transactions over it (phases 1 to 5, variables and collections, actions, body processors,
 * anomaly scoring as CRS's own rules compute it). Pure: no I/O; the compatibility log is a sink.
 */
export { compileRuleSet, DEFAULT_CONFIG, type CompileInput, type CompileResult } from './compile.ts';
export { Transaction, type TransactionOptions } from './transaction.ts';
export { literalTarget, type RequestExclusions } from './exclusions.ts';
export { GROUPS, RULE_GROUPS, groupOfFile, type GroupId, type GroupSetting, type RuleGroup } from './groups.ts';
export type { CompiledRuleSet, EngineConfig } from './rule.ts';
export { parseUrlencoded } from './body/urlencoded.ts';
export { parseMultipart } from './body/multipart.ts';
export { parseJson } from './body/json.ts';
export { parseXml } from './body/xml.ts';
