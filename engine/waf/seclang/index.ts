/**
 * SecLang: text to `Directive[]` (see ../types.ts), with file and line of every directive and a
 * `ParseProblem` for every failure; never throws and does no I/O (`Include` comes out as a `config`
 * directive for the rule-set loader). The variable, operator and action parsers are exported for the
 * engine's SecRuleUpdateTargetBy* / SecRuleUpdateActionById / ctl handling.
 */
export { parseSecLang, parseOperator } from './parser.ts';
export type { ParseResult, OperatorResult } from './parser.ts';
export { parseVariables, formatVariable, VARIABLES } from './variables.ts';
export type { VariablesResult } from './variables.ts';
export { parseActions, actionValue, hasAction, ACTION_NAMES } from './actions.ts';
export type { ActionsResult } from './actions.ts';
