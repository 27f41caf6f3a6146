/**
 * Rule compilation: one SecRule / SecAction (and its chain) to a CompiledRule. SecDefaultAction
 * per phase, each action, the variables and the operator (compiled once, or per macro expansion
 * when its argument has one). A problem throws CompileError; the rule is then left out whole.
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import type { CompileEnv, Directive, OperatorDef, ParsedAction, SourcePosition, Transformation } from '../types.ts';
import { compileMacro } from './macro.ts';
import { groupOfFile } from './groups.ts';
import { lowerKey, variableName } from './variable-name.ts';
import { CompileError } from './compile-error.ts';
import { compileKey } from './selector.ts';
import { parseCtl } from './exclusions.ts';
import type { CompiledOperator, CompiledRule, CompiledVariable, Disruptive, SetVarAction } from './rule.ts';

/** SecDefaultAction of one phase: what a rule of that phase starts from. */
export interface DefaultActions {
  transforms: Transformation[];
  transformNames: string[];
  log: boolean;
  auditlog: boolean;
  disruptive: Disruptive;
  status: number | undefined;
}

/** What compiling a rule needs beyond the directive. */
export interface RuleContext {
  operators: ReadonlyMap<string, OperatorDef>;
  transformations: ReadonlyMap<string, Transformation>;
  /** Data files by name (as in @pmFromFile) or path; looked up by exact name, then basename. */
  dataFiles: ReadonlyMap<string, string[]>;
  /** SecDefaultAction per phase, as far as the directives have been read. */
  defaults: DefaultActions[];
}

/** The rule (or chain link) an action applies to, with the transformations gathered so far. */
interface Link {
  /** A chained link: id and phase are the chain's start's. */
  chained: boolean;
  transforms: Transformation[];
  transformNames: string[];
  transformations: ReadonlyMap<string, Transformation>;
}

const PHASE_NAMES: Record<string, number> = { request: 2, response: 4, logging: 5 };

function basename(p: string): string {
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i < 0 ? p : p.slice(i + 1);
}

function parseSetVar(value: string): SetVarAction {
  let v = value.trim();
  let del = false;
  if (v.startsWith('!')) {
    del = true;
    v = v.slice(1);
  }
  const eq = v.indexOf('=');
  const lhs = eq < 0 ? v : v.slice(0, eq);
  const dot = lhs.indexOf('.');
  if (dot < 0) throw new CompileError('setvar_no_collection', { value }, `setvar '${value}' has no collection`);
  const collection = variableName(lhs.slice(0, dot));
  const key = compileMacro(lhs.slice(dot + 1));
  const lower = key.constant ? lowerKey(key.source) : undefined;
  if (del) return { collection, key, lowerKey: lower, op: 'delete', value: compileMacro('') };
  if (eq < 0) return { collection, key, lowerKey: lower, op: 'set', value: compileMacro('1') };
  let rhs = v.slice(eq + 1);
  let op: SetVarAction['op'] = 'set';
  if (rhs.startsWith('+')) {
    op = 'add';
    rhs = rhs.slice(1);
  } else if (rhs.startsWith('-')) {
    op = 'sub';
    rhs = rhs.slice(1);
  }
  return { collection, key, lowerKey: lower, op, value: compileMacro(rhs) };
}

function parsePhase(v: string): number {
  const p = PHASE_NAMES[v.toLowerCase()] ?? Number(v);
  if (!Number.isInteger(p) || p < 1 || p > 5) throw new CompileError('bad_phase', { value: v }, `bad phase '${v}'`);
  return p;
}

export function defaultsFrom(
  actions: readonly ParsedAction[],
  transformations: ReadonlyMap<string, Transformation>,
): [number, DefaultActions] {
  const d: DefaultActions = {
    transforms: [],
    transformNames: [],
    log: true,
    auditlog: true,
    disruptive: 'pass',
    status: undefined,
  };
  let phase = 2;
  for (const a of actions) {
    const n = a.name.toLowerCase();
    if (n === 'phase') phase = parsePhase(a.value ?? '');
    else if (n === 't') {
      const tn = (a.value ?? '').toLowerCase();
      if (tn === 'none') {
        d.transforms = [];
        d.transformNames = [];
      } else {
        const fn = transformations.get(tn);
        if (!fn)
          throw new CompileError(
            'unknown_transformation',
            { transformation: a.value ?? '' },
            `unknown transformation '${a.value ?? ''}'`,
          );
        d.transforms.push(fn);
        d.transformNames.push(tn);
      }
    } else if (n === 'log') d.log = true;
    else if (n === 'nolog') {
      d.log = false;
      d.auditlog = false;
    } else if (n === 'auditlog') d.auditlog = true;
    else if (n === 'noauditlog') d.auditlog = false;
    else if (n === 'pass' || n === 'deny' || n === 'drop' || n === 'block' || n === 'allow' || n === 'redirect')
      d.disruptive = n;
    else if (n === 'status') d.status = Number(a.value);
  }
  return [phase, d];
}

export function emptyDefaults(): DefaultActions {
  return { transforms: [], transformNames: [], log: true, auditlog: true, disruptive: 'pass', status: undefined };
}

/** The environment an operator compiles in: data files resolved from the rule's own folder. */
function envFor(ctx: RuleContext, from: SourcePosition): CompileEnv {
  return {
    readDataFile(name: string): string[] {
      const direct =
        ctx.dataFiles.get(isAbsolute(name) ? name : resolve(dirname(from.file), name)) ??
        ctx.dataFiles.get(name) ??
        ctx.dataFiles.get(basename(name));
      if (direct) return direct;
      for (const [k, v] of ctx.dataFiles) if (basename(k) === basename(name)) return v;
      throw new CompileError(
        'data_file_not_loaded',
        { dataFile: name },
        `data file '${name}' not found (rule at ${from.file}:${from.line})`,
      );
    },
  };
}

/** A SecRule or SecAction (with its chain): `parent` is the chain's first rule when this is a link. */
export function compileRule(
  d: Directive & { kind: 'rule' | 'action' },
  parent: CompiledRule | undefined,
  ctx: RuleContext,
): CompiledRule {
  const group = groupOfFile(d.file);
  // Phase first: defaults depend on it.
  let phase = parent?.phase ?? 2;
  if (!parent) for (const a of d.actions) if (a.name.toLowerCase() === 'phase') phase = parsePhase(a.value ?? '');
  const def = ctx.defaults[phase] ?? emptyDefaults();
  const transforms: Transformation[] = [...def.transforms];
  const transformNames: string[] = [...def.transformNames];
  // Fields the transaction reads for every rule come first: they share the object's first
  // cache lines.

  const rule: CompiledRule = {
    kind: 'rule',
    group,
    unconditional: d.kind === 'action',
    operator: undefined,
    txTarget: undefined,
    targetSet: -1,
    selectors: [],
    prefilter: -1,
    memo: -1,
    multiMatch: false,
    capture: false,
    transformId: 0,
    chain: undefined,
    skipTo: undefined,
    skip: 0,
    setvars: [],
    ctls: [],
    variables: [],
    exclusions: [],
    id: parent?.id ?? '',
    idNum: parent?.idNum ?? 0,
    phase,
    file: d.file,
    line: d.line,
    transforms,
    transformKey: '',
    transformPath: [],
    disruptive: undefined,
    allowScope: 'all',
    status: undefined,
    log: parent ? parent.log : def.log,
    auditlog: parent ? parent.auditlog : def.auditlog,
    msg: undefined,
    logdata: undefined,
    tags: [],
    severity: '',
    ver: '',
    rev: '',
    maturity: '',
    accuracy: '',
    skipAfter: undefined,
    defaultDisruptive: def.disruptive,
    defaultStatus: def.status,
  };
  const link: Link = {
    chained: parent !== undefined,
    transforms,
    transformNames,
    transformations: ctx.transformations,
  };
  let hasChain = false;
  for (const a of d.actions) if (applyAction(rule, a, link)) hasChain = true;
  rule.transformKey = transformNames.join(',');
  if (d.kind === 'rule') {
    for (const sel of d.variables) {
      const cv: CompiledVariable = { name: variableName(sel.name), key: compileKey(sel.key), count: sel.count };
      (sel.exclude ? rule.exclusions : rule.variables).push(cv);
    }
    rule.operator = compileOperator(d, ctx);
    if (hasChain) {
      if (!d.chained) throw new CompileError('chain_without_rule', {}, 'chain action without a following rule');
      rule.chain = compileRule(d.chained, parent ?? rule, ctx);
    }
  } else if (hasChain) {
    throw new CompileError('action_chain', {}, 'SecAction cannot start a chain');
  }
  return rule;
}

/** A rule's operator: compiled now, or per expansion at run time when its argument has a macro. */
function compileOperator(d: Directive & { kind: 'rule' }, ctx: RuleContext): CompiledOperator {
  const opName = d.operator.name.toLowerCase();
  const opDef = ctx.operators.get(opName);
  if (!opDef)
    throw new CompileError(
      'unsupported_operator',
      { operator: d.operator.name },
      `unsupported operator '@${d.operator.name}'`,
    );
  const e = envFor(ctx, d);
  const dynamic = d.operator.argument.indexOf('%{') >= 0 ? compileMacro(d.operator.argument) : undefined;
  let fn;
  if (!dynamic) {
    try {
      fn = opDef.compile(d.operator.argument, e);
    } catch (err) {
      throw new CompileError(
        'operator_invalid',
        { operator: d.operator.name, error: (err as Error).message },
        `operator @${d.operator.name}: ${(err as Error).message}`,
      );
    }
  }
  return {
    name: d.operator.name,
    negated: d.operator.negated,
    argument: d.operator.argument,
    def: opDef,
    fn,
    dynamic,
    cache: dynamic ? new Map() : undefined,
    env: e,
    required: dynamic || !opDef.required ? undefined : opDef.required(d.operator.argument, e),
  };
}

/** Applies one action to a rule or chain link; true for `chain`. */
function applyAction(rule: CompiledRule, a: ParsedAction, link: Link): boolean {
  const n = a.name.toLowerCase();
  const v = a.value ?? '';

  switch (n) {
    case 'id':
      if (!link.chained) {
        rule.id = v.trim();
        rule.idNum = Number(v);
      }
      break;
    case 'phase':
      break;
    case 't': {
      const tn = v.toLowerCase();
      if (tn === 'none') {
        link.transforms.length = 0;
        link.transformNames.length = 0;
      } else {
        const fn = link.transformations.get(tn);
        if (!fn)
          throw new CompileError('unknown_transformation', { transformation: v }, `unknown transformation '${v}'`);
        link.transforms.push(fn);
        link.transformNames.push(tn);
      }
      break;
    }
    case 'chain':
      return true;
    case 'multimatch':
      rule.multiMatch = true;
      break;
    case 'capture':
      rule.capture = true;
      break;
    case 'pass':
    case 'block':
    case 'deny':
    case 'drop':
    case 'redirect':
      rule.disruptive = n;
      break;
    case 'allow':
      rule.disruptive = 'allow';
      rule.allowScope = v.toLowerCase() === 'phase' ? 'phase' : v.toLowerCase() === 'request' ? 'request' : 'all';
      break;
    case 'status':
      rule.status = Number(v);
      break;
    case 'log':
      rule.log = true;
      break;
    case 'nolog':
      rule.log = false;
      rule.auditlog = false;
      break;
    case 'auditlog':
      rule.auditlog = true;
      break;
    case 'noauditlog':
      rule.auditlog = false;
      break;
    case 'msg':
      rule.msg = compileMacro(v);
      break;
    case 'logdata':
      rule.logdata = compileMacro(v);
      break;
    case 'tag':
      rule.tags.push(v);
      break;
    case 'severity':
      rule.severity = v;
      break;
    case 'ver':
      rule.ver = v;
      break;
    case 'rev':
      rule.rev = v;
      break;
    case 'maturity':
      rule.maturity = v;
      break;
    case 'accuracy':
      rule.accuracy = v;
      break;
    case 'setvar':
      rule.setvars.push(parseSetVar(v));
      break;
    case 'ctl':
      rule.ctls.push(parseCtl(v));
      break;
    case 'skip':
      rule.skip = Number(v) || 0;
      break;
    case 'skipafter':
      rule.skipAfter = v.trim();
      break;
    // Accepted and without effect here (persistent collections, environment, audit log, ...).
    case 'initcol':
    case 'expirevar':
    case 'setenv':
    case 'setuid':
    case 'setsid':
    case 'sanitisematched':
    case 'sanitisearg':
    case 'sanitizematched':
    case 'sanitisematchedbytes':
    case 'deprecatevar':
    case 'append':
    case 'prepend':
    case 'xmlns':
    case 'exec':
    case 'pause':
    case 'proxy':
    case 'sanitiserequestheader':
    case 'sanitiseresponseheader':
      break;
    default:
      throw new CompileError('unsupported_action', { action: a.name }, `unsupported action '${a.name}'`);
  }
  return false;
}
