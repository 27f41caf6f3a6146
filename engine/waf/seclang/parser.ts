/**
 * SecLang text to `Directive[]`: one pass over logical lines, no I/O (Include is left to the rule-set
 * loader as a `config` directive). Never throws: every failure becomes a `ParseProblem` with the file
 * and the line where the directive starts, and the faulty directive is left out.
 */
import type { Directive, ParsedAction, ParsedOperator, ParseProblem } from '../types.ts';
import { logicalLines, snippet, splitWords, type Word } from './lexer.ts';
import { parseVariables } from './variables.ts';
import { actionValue, hasAction, parseActions } from './actions.ts';
import { failure, type ParseProblemCode, type ProblemFailure, type ProblemParams } from '../problems.ts';

type Rule = Directive & { kind: 'rule' };

/** Directives of ModSecurity v3 (plus Apache's Include), in their canonical spelling. */
const DIRECTIVE_NAMES = [
  'Include',
  'IncludeOptional',
  'SecAction',
  'SecArgumentSeparator',
  'SecArgumentsLimit',
  'SecAuditEngine',
  'SecAuditLog',
  'SecAuditLog2',
  'SecAuditLogDirMode',
  'SecAuditLogFileMode',
  'SecAuditLogFormat',
  'SecAuditLogParts',
  'SecAuditLogRelevantStatus',
  'SecAuditLogStorageDir',
  'SecAuditLogType',
  'SecCacheTransformations',
  'SecChrootDir',
  'SecCollectionTimeout',
  'SecComponentSignature',
  'SecConnEngine',
  'SecConnReadStateLimit',
  'SecConnWriteStateLimit',
  'SecContentInjection',
  'SecCookieFormat',
  'SecCookieV0Separator',
  'SecDataDir',
  'SecDebugLog',
  'SecDebugLogLevel',
  'SecDefaultAction',
  'SecDisableBackendCompression',
  'SecGeoLookupDb',
  'SecGsbLookupDb',
  'SecGuardianLog',
  'SecHashEngine',
  'SecHashKey',
  'SecHashMethodPm',
  'SecHashMethodRx',
  'SecHashParam',
  'SecHttpBlKey',
  'SecInterceptOnError',
  'SecMarker',
  'SecPcreMatchLimit',
  'SecPcreMatchLimitRecursion',
  'SecReadStateLimit',
  'SecRemoteRules',
  'SecRemoteRulesFailAction',
  'SecRequestBodyAccess',
  'SecRequestBodyInMemoryLimit',
  'SecRequestBodyJsonDepthLimit',
  'SecRequestBodyLimit',
  'SecRequestBodyLimitAction',
  'SecRequestBodyNoFilesLimit',
  'SecResponseBodyAccess',
  'SecResponseBodyLimit',
  'SecResponseBodyLimitAction',
  'SecResponseBodyMimeType',
  'SecResponseBodyMimeTypesClear',
  'SecRule',
  'SecRuleEngine',
  'SecRuleInheritance',
  'SecRulePerfTime',
  'SecRuleRemoveById',
  'SecRuleRemoveByMsg',
  'SecRuleRemoveByTag',
  'SecRuleScript',
  'SecRuleUpdateActionById',
  'SecRuleUpdateTargetById',
  'SecRuleUpdateTargetByMsg',
  'SecRuleUpdateTargetByTag',
  'SecSensorId',
  'SecServerSignature',
  'SecStatusEngine',
  'SecStreamInBodyInspection',
  'SecStreamOutBodyInspection',
  'SecTmpDir',
  'SecTmpSaveUploadedFiles',
  'SecUnicodeCodePage',
  'SecUnicodeMapFile',
  'SecUploadDir',
  'SecUploadFileLimit',
  'SecUploadFileMode',
  'SecUploadKeepFiles',
  'SecWebAppId',
  'SecWriteStateLimit',
  'SecXmlExternalEntity',
] as const;

const DIRECTIVES = new Map<string, string>(DIRECTIVE_NAMES.map((name) => [name.toLowerCase(), name]));

/** Config directives that may stand without arguments. */
const NO_ARGUMENTS = new Set(['SecResponseBodyMimeTypesClear']);

/** Operators of ModSecurity v3 (lower-case) and whether they need an argument. */
const OPERATORS: ReadonlyMap<string, boolean> = new Map([
  ['beginswith', true],
  ['contains', true],
  ['containsword', true],
  ['detectsqli', false],
  ['detectxss', false],
  ['endswith', true],
  ['eq', true],
  ['fuzzyhash', true],
  ['ge', true],
  ['geolookup', false],
  ['gsblookup', true],
  ['gt', true],
  ['inspectfile', true],
  ['ipmatch', true],
  ['ipmatchf', true],
  ['ipmatchfromfile', true],
  ['le', true],
  ['lt', true],
  ['nomatch', false],
  ['pm', true],
  ['pmf', true],
  ['pmfromfile', true],
  ['rbl', true],
  ['rsub', true],
  ['rx', true],
  ['rxglobal', true],
  ['streq', true],
  ['strmatch', true],
  ['unconditionalmatch', false],
  ['validatebyterange', true],
  ['validatedtd', true],
  ['validatehash', true],
  ['validateschema', true],
  ['validateurlencoding', false],
  ['validateutf8encoding', false],
  ['verifycc', true],
  ['verifycpf', true],
  ['verifyssn', true],
  ['verifysvnr', true],
  ['within', true],
]);

export interface ParseResult {
  directives: Directive[];
  problems: ParseProblem[];
}

/** Parses one file's SecLang text. `file` is only recorded (no I/O). */
export function parseSecLang(text: string, file: string): ParseResult {
  const directives: Directive[] = [];
  const problems: ParseProblem[] = [];
  /** The last rule of an open chain: the next SecRule becomes its `chained`. */
  let open: Rule | null = null;

  for (const { text: lineText, line } of logicalLines(text)) {
    const problem = (code: ParseProblemCode, params: ProblemParams, message: string): void => {
      problems.push({ file, line, message, code, params });
    };
    /** A lexer, variable, operator or action failure inside `directive`. */
    const within = (directive: string, failed: ProblemFailure): void => {
      problem(failed.code, { ...failed.params, in: directive }, `${directive}: ${failed.message}`);
    };
    const lexed = splitWords(lineText);
    if (!lexed.ok) {
      within(directiveWord(lineText), lexed);
      continue;
    }
    const [head, ...args] = lexed.words;
    if (!head) continue;
    const name = DIRECTIVES.get(head.value.toLowerCase());
    if (!name) {
      problem(
        'unknown_directive',
        { directive: snippet(head.value) },
        `unknown directive ${JSON.stringify(snippet(head.value))}`,
      );
      continue;
    }
    if (open && name !== 'SecRule') {
      problems.push({
        file: open.file,
        line: open.line,
        message: `rule ${ruleLabel(open)} ends with chain but the next directive (${name}, line ${line}) is not a SecRule`,
        code: 'chain_not_followed',
        params: { ...ruleParams(open), next: name, nextLine: line },
      });
      open = null;
    }
    const pos = { file, line };
    switch (name) {
      case 'SecRule': {
        const rule = parseRule(args, pos, problem, within);
        if (!rule) {
          // The chain head stays without its broken link; the problem is reported already.
          open = null;
          break;
        }
        if (open) {
          open.chained = rule;
        } else {
          if (actionValue(rule.actions, 'id') === undefined)
            problem('missing_id', { directive: 'SecRule' }, 'SecRule has no id action (every rule needs id:N)');
          directives.push(rule);
        }
        open = hasAction(rule.actions, 'chain') ? rule : null;
        break;
      }
      case 'SecAction':
      case 'SecDefaultAction': {
        if (args.length !== 1 || !args[0]) {
          problem(
            'action_list_arguments',
            { directive: name, count: args.length },
            `${name} takes one argument, the action list (got ${args.length})`,
          );
          break;
        }
        const parsed = parseActions(args[0].value);
        if (!parsed.ok) {
          within(name, parsed);
          break;
        }
        if (name === 'SecAction') {
          if (actionValue(parsed.actions, 'id') === undefined)
            problem('missing_id', { directive: 'SecAction' }, 'SecAction has no id action (every rule needs id:N)');
          if (hasAction(parsed.actions, 'chain')) problem('action_chain', {}, 'SecAction cannot start a chain');
          directives.push({ kind: 'action', actions: parsed.actions, ...pos });
        } else {
          if (actionValue(parsed.actions, 'phase') === undefined)
            problem('default_action_phase', {}, 'SecDefaultAction needs a phase action');
          directives.push({ kind: 'defaultAction', actions: parsed.actions, ...pos });
        }
        break;
      }
      case 'SecMarker': {
        if (args.length !== 1 || !args[0] || args[0].value === '') {
          problem(
            'marker_arguments',
            { count: args.length },
            `SecMarker takes one argument, the label (got ${args.length})`,
          );
          break;
        }
        directives.push({ kind: 'marker', label: args[0].value, ...pos });
        break;
      }
      default: {
        const failed = checkConfig(name, args);
        if (failed) {
          problem(failed.code, failed.params, failed.message);
          break;
        }
        directives.push({ kind: 'config', name, args: args.map((a) => a.value), ...pos });
      }
    }
  }
  if (open) {
    problems.push({
      file: open.file,
      line: open.line,
      message: `chain at end of file: rule ${ruleLabel(open)} has chain but no SecRule follows`,
      code: 'chain_at_end',
      params: ruleParams(open),
    });
  }
  return { directives, problems };
}

function parseRule(
  args: Word[],
  pos: { file: string; line: number },
  problem: (code: ParseProblemCode, params: ProblemParams, message: string) => void,
  within: (directive: string, failed: ProblemFailure) => void,
): Rule | null {
  const [vars, op, acts, ...extra] = args;
  if (!vars) {
    problem('rule_missing_variables', {}, 'SecRule is missing its variables, operator and actions');
    return null;
  }
  if (!op) {
    problem(
      'rule_missing_operator',
      { variables: snippet(vars.value) },
      `SecRule ${snippet(vars.value)} is missing its operator`,
    );
    return null;
  }
  if (extra.length > 0) {
    const text = snippet(extra.map((w) => w.value).join(' '));
    problem(
      'rule_extra_arguments',
      { count: args.length, extra: text },
      `SecRule has ${args.length} arguments, expected 3 (variables "operator" "actions"): extra ${JSON.stringify(text)}`,
    );
    return null;
  }
  const variables = parseVariables(vars.value);
  if (!variables.ok) {
    within('SecRule', variables);
    return null;
  }
  const operator = parseOperator(op.value);
  if (!operator.ok) {
    within('SecRule', operator);
    return null;
  }
  let actions: ParsedAction[] = [];
  if (acts) {
    const parsed = parseActions(acts.value);
    if (!parsed.ok) {
      within('SecRule', parsed);
      return null;
    }
    actions = parsed.actions;
  }
  return { kind: 'rule', variables: variables.variables, operator: operator.operator, actions, ...pos };
}

export type OperatorResult = { ok: true; operator: ParsedOperator } | ProblemFailure;

/** `@rx foo`, `!@within GET POST`, `foo` (bare regex), `@detectSQLi`. */
export function parseOperator(text: string): OperatorResult {
  let i = 0;
  let negated = false;
  if (text[i] === '!') {
    negated = true;
    i++;
  }
  if (text[i] !== '@') {
    if (text.length === 0) return failure('missing_operator', {}, 'missing operator (empty string)');
    return { ok: true, operator: { name: 'rx', negated, argument: text.slice(i) } };
  }
  i++;
  const start = i;
  while (i < text.length && /[A-Za-z0-9_]/.test(text[i] ?? '')) i++;
  const name = text.slice(start, i);
  if (name === '') {
    return failure(
      'missing_operator_name',
      { text: snippet(text) },
      `missing operator name after @ in ${JSON.stringify(snippet(text))}`,
    );
  }
  const needsArgument = OPERATORS.get(name.toLowerCase());
  if (needsArgument === undefined) return failure('unknown_operator', { operator: name }, `unknown operator @${name}`);
  if (i < text.length && !/\s/.test(text[i] ?? '')) {
    return failure(
      'operator_space',
      { operator: name, found: text.slice(i, i + 10) },
      `expected a space after @${name}, found ${JSON.stringify(text.slice(i, i + 10))}`,
    );
  }
  // ModSecurity takes exactly one blank between the name and the argument; the rest is the argument.
  const argument = i < text.length ? text.slice(i + 1) : '';
  if (needsArgument && argument.trim() === '')
    return failure('operator_argument_missing', { operator: name }, `operator @${name} needs an argument`);
  return { ok: true, operator: { name, negated, argument } };
}

/** Argument checks for config directives whose arguments the engine will read. */
function checkConfig(name: string, args: Word[]): ProblemFailure | null {
  if (args.length === 0 && !NO_ARGUMENTS.has(name))
    return failure('missing_argument', { directive: name }, `${name} needs an argument`);
  switch (name) {
    case 'SecRuleUpdateTargetById':
    case 'SecRuleUpdateTargetByTag':
    case 'SecRuleUpdateTargetByMsg': {
      if (args.length < 2 || args.length > 3) {
        return failure(
          'update_target_arguments',
          { directive: name, count: args.length },
          `${name} takes 2 or 3 arguments (rule, "targets"[, "replacement"]), got ${args.length}`,
        );
      }
      for (const target of args.slice(1)) {
        const parsed = parseVariables(target.value);
        if (!parsed.ok) return inside(name, parsed);
      }
      return null;
    }
    case 'SecRuleUpdateActionById': {
      if (args.length !== 2 || !args[1]) {
        return failure(
          'update_action_arguments',
          { directive: name, count: args.length },
          `${name} takes 2 arguments (id, "actions"), got ${args.length}`,
        );
      }
      const parsed = parseActions(args[1].value);
      return parsed.ok ? null : inside(name, parsed);
    }
    case 'SecRuleRemoveById': {
      const bad = args.find((a) => !/^\d+(-\d+)?$/.test(a.value));
      if (!bad) return null;
      return failure(
        'bad_id_range',
        { directive: name, value: bad.value },
        `${name}: ${JSON.stringify(bad.value)} is neither an id nor a range (N-M)`,
      );
    }
    default:
      return null;
  }
}

/** A variable, operator or action failure as found inside `directive`. */
function inside(directive: string, failed: ProblemFailure): ProblemFailure {
  return failure(failed.code, { ...failed.params, in: directive }, `${directive}: ${failed.message}`);
}

/** The rule a chain problem is about: its id (empty without one) and line. */
function ruleParams(rule: Rule): ProblemParams {
  return { rule: actionValue(rule.actions, 'id') ?? '', ruleLine: rule.line };
}

function ruleLabel(rule: Rule): string {
  const id = actionValue(rule.actions, 'id');
  return id === undefined ? `at line ${rule.line}` : `${id} (line ${rule.line})`;
}

function directiveWord(lineText: string): string {
  const m = /^\S+/.exec(lineText);
  return m ? m[0] : 'directive';
}
