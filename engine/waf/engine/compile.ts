/**
 * Directive[] -> CompiledRuleSet. Operators and transformations are resolved from their tables,
 * variable selectors and macros precompiled, SecDefaultAction applied per phase, markers indexed
 * for skipAfter, and the compile-time exclusions (SecRuleRemoveById / ByTag / ByMsg,
 * SecRuleUpdateTargetById / ByTag / ByMsg) applied. Every problem carries its file and line; a rule
 * that cannot be compiled is left out and reported, never half-built.
 */
import type {
  CompileEnv,
  Directive,
  OperatorDef,
  ParsedAction,
  ParseProblem,
  SourcePosition,
  Transformation,
  VariableSelector,
} from '../types.ts';
import { dirname, isAbsolute, resolve } from 'node:path';
import { compileMacro } from './macro.ts';
import { groupOfFile } from './groups.ts';
import { Prefilter } from './prefilter.ts';
import { WORD_BITS, wordsFor } from './bits.ts';
import { ValueCache } from './value-cache.ts';
import { newLevelPlanCache, txOnlyPrefix } from './level-plan.ts';
import { lowerKey, variableName } from './variable-name.ts';
import type {
  CompiledMarker,
  CompiledRule,
  CompiledRuleSet,
  CompiledVariable,
  CtlAction,
  Disruptive,
  EngineConfig,
  KeySelector,
  PhaseEntry,
  PhasePlan,
  SetVarAction,
} from './rule.ts';

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

interface DefaultActions {
  transforms: Transformation[];
  transformNames: string[];
  log: boolean;
  auditlog: boolean;
  disruptive: Disruptive;
  status: number | undefined;
}

const PHASE_NAMES: Record<string, number> = { request: 2, response: 4, logging: 5 };

export const DEFAULT_CONFIG: EngineConfig = {
  ruleEngine: 'On',
  requestBodyAccess: true,
  responseBodyAccess: true,
  requestBodyLimit: 128 * 1024,
  requestBodyLimitAction: 'Reject',
  responseBodyLimit: 512 * 1024,
  responseBodyMimeTypes: ['text/plain', 'text/html', 'text/xml'],
  argumentSeparator: '&',
  argumentsLimit: 1000,
};

class CompileError extends Error {}

function basename(p: string): string {
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i < 0 ? p : p.slice(i + 1);
}

function regexKey(source: string): KeySelector {
  return { kind: 'regex', re: new RegExp(source, 'i'), source, literal: keyLiteral(source) };
}

/**
 * The plain prefix of a key regex (after `^`), lower-cased, when every match must contain it:
 * `^header_name_` gives `header_name_`, `MULTIPART_HEADERS_CONTENT_TYPES_*` gives
 * `multipart_headers_content_types`. None with an alternation anywhere. The regex is
 * case-insensitive without the u flag, which folds ASCII letters only to ASCII, so a matching
 * key lower-cased contains the literal; the transaction skips other keys without running it.
 */
export function keyLiteral(source: string): string | undefined {
  if (source.includes('|')) return undefined;
  let i = source.startsWith('^') ? 1 : 0;
  const from = i;
  while (i < source.length && /[A-Za-z0-9_-]/.test(source[i] as string)) i++;
  let end = i;
  const next = source[i];
  if (next === '*' || next === '?' || next === '{' || next === '+') end--;
  return end - from >= 2 ? source.slice(from, end).toLowerCase() : undefined;
}

/** Parses a key selector: `foo`, `/regex/`, `'/regex/'`. Regex keys are case-insensitive as in ModSecurity. */
export function compileKey(key: VariableSelector['key']): KeySelector | undefined {
  if (key === undefined) return undefined;
  if (key.kind === 'regex') return regexKey(key.source);
  return { kind: 'literal', value: key.value, lower: lowerKey(key.value) };
}

/** Parses a target written in a ctl or SecRuleUpdateTarget: `ARGS:foo`, `!ARGS:/re/`, `REQUEST_COOKIES`. */
export function parseTarget(text: string): CompiledVariable & { exclude: boolean } {
  let t = text.trim();
  let exclude = false;
  let count = false;
  if (t.startsWith('!')) {
    exclude = true;
    t = t.slice(1);
  }
  if (t.startsWith('&')) {
    count = true;
    t = t.slice(1);
  }
  const colon = t.indexOf(':');
  const name = variableName(colon < 0 ? t : t.slice(0, colon));
  let rawKey = colon < 0 ? undefined : t.slice(colon + 1);
  if (rawKey !== undefined && rawKey.length >= 2 && rawKey.startsWith("'") && rawKey.endsWith("'")) {
    rawKey = rawKey.slice(1, -1);
  }
  let key: KeySelector | undefined;
  if (rawKey !== undefined && rawKey.length > 0) {
    key =
      rawKey.length >= 2 && rawKey.startsWith('/') && rawKey.endsWith('/')
        ? regexKey(rawKey.slice(1, -1))
        : { kind: 'literal', value: rawKey, lower: lowerKey(rawKey) };
  }
  return { name, key, count, exclude };
}

/** `942100`, `1-999999`, `942100 942200`, `942100,942200`. */
export function parseIdRanges(text: string): [number, number][] {
  const out: [number, number][] = [];
  for (const part of text.split(/[\s,]+/)) {
    if (part === '') continue;
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new CompileError(`bad rule id or range '${part}'`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    out.push([Math.min(a, b), Math.max(a, b)]);
  }
  return out;
}

export function inRanges(id: number, ranges: readonly [number, number][]): boolean {
  for (const [a, b] of ranges) if (id >= a && id <= b) return true;
  return false;
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
  if (dot < 0) throw new CompileError(`setvar '${value}' has no collection`);
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

function parseCtl(value: string): CtlAction {
  const eq = value.indexOf('=');
  if (eq < 0) throw new CompileError(`ctl '${value}' has no value`);
  const name = value.slice(0, eq).trim().toLowerCase();
  const arg = value.slice(eq + 1).trim();
  const semi = arg.indexOf(';');
  const head = semi < 0 ? arg : arg.slice(0, semi);
  const tail = semi < 0 ? '' : arg.slice(semi + 1);
  const onOff = (s: string): boolean => /^(on|true|1)$/i.test(s);
  switch (name) {
    case 'ruleengine': {
      const v = arg.toLowerCase();
      return { kind: 'ruleEngine', value: v === 'on' ? 'On' : v === 'off' ? 'Off' : 'DetectionOnly' };
    }
    case 'ruleremovebyid':
      return { kind: 'ruleRemoveById', ranges: parseIdRanges(arg) };
    case 'ruleremovebytag':
      return { kind: 'ruleRemoveByTag', tag: compileMacro(arg) };
    case 'ruleremovebymsg':
      return { kind: 'ruleRemoveByMsg', msg: arg };
    case 'ruleremovetargetbyid':
      return { kind: 'ruleRemoveTargetById', ranges: parseIdRanges(head), target: parseTarget(tail) };
    case 'ruleremovetargetbytag':
      return { kind: 'ruleRemoveTargetByTag', tag: head, target: parseTarget(tail) };
    case 'ruleremovetargetbymsg':
      return { kind: 'ruleRemoveTargetByMsg', msg: head, target: parseTarget(tail) };
    case 'requestbodyprocessor':
      return { kind: 'requestBodyProcessor', value: arg.toUpperCase() };
    case 'requestbodyaccess':
      return { kind: 'requestBodyAccess', value: onOff(arg) };
    case 'forcerequestbodyvariable':
      return { kind: 'forceRequestBodyVariable', value: onOff(arg) };
    case 'requestbodylimit':
      return { kind: 'requestBodyLimit', value: Number(arg) || 0 };
    case 'auditengine':
    case 'auditlogparts':
    case 'debugloglevel':
    case 'responsebodyaccess':
    case 'hashengine':
    case 'hashenforcement':
    case 'parsexmlintoargs':
      return { kind: 'noop' };
    default:
      throw new CompileError(`unsupported ctl '${name}'`);
  }
}

function parsePhase(v: string): number {
  const p = PHASE_NAMES[v.toLowerCase()] ?? Number(v);
  if (!Number.isInteger(p) || p < 1 || p > 5) throw new CompileError(`bad phase '${v}'`);
  return p;
}

function defaultsFrom(
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
        if (!fn) throw new CompileError(`unknown transformation '${a.value ?? ''}'`);
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

function emptyDefaults(): DefaultActions {
  return { transforms: [], transformNames: [], log: true, auditlog: true, disruptive: 'pass', status: undefined };
}

export function compileRuleSet(input: CompileInput): CompileResult {
  const problems: ParseProblem[] = [];
  const config: EngineConfig = { ...DEFAULT_CONFIG, ...input.config };
  const defaults: DefaultActions[] = [
    emptyDefaults(),
    emptyDefaults(),
    emptyDefaults(),
    emptyDefaults(),
    emptyDefaults(),
    emptyDefaults(),
  ];
  const ordered: (CompiledRule | CompiledMarker)[] = [];
  const byId = new Map<string, CompiledRule>();
  const removeIds: [number, number][] = [];
  const removeTags: string[] = [];
  const removeMsgs: string[] = [];
  const targetUpdates: {
    by: 'id' | 'tag' | 'msg';
    ranges: [number, number][];
    text: string;
    targets: string[];
    at: SourcePosition;
  }[] = [];
  const disabled = input.disabledGroups ?? new Set<number>();

  const env = (from: SourcePosition): CompileEnv => ({
    readDataFile(name: string): string[] {
      const direct =
        input.dataFiles.get(isAbsolute(name) ? name : resolve(dirname(from.file), name)) ??
        input.dataFiles.get(name) ??
        input.dataFiles.get(basename(name));
      if (direct) return direct;
      for (const [k, v] of input.dataFiles) if (basename(k) === basename(name)) return v;
      throw new CompileError(`data file '${name}' not found (rule at ${from.file}:${from.line})`);
    },
  });

  const compileRule = (d: Directive & { kind: 'rule' | 'action' }, parent: CompiledRule | undefined): CompiledRule => {
    const group = groupOfFile(d.file);
    // Phase first: defaults depend on it.
    let phase = parent?.phase ?? 2;
    if (!parent) for (const a of d.actions) if (a.name.toLowerCase() === 'phase') phase = parsePhase(a.value ?? '');
    const def = defaults[phase] ?? emptyDefaults();
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
    let hasChain = false;
    for (const a of d.actions) {
      const n = a.name.toLowerCase();
      const v = a.value ?? '';
      switch (n) {
        case 'id':
          if (!parent) {
            rule.id = v.trim();
            rule.idNum = Number(v);
          }
          break;
        case 'phase':
          break;
        case 't': {
          const tn = v.toLowerCase();
          if (tn === 'none') {
            transforms.length = 0;
            transformNames.length = 0;
          } else {
            const fn = input.transformations.get(tn);
            if (!fn) throw new CompileError(`unknown transformation '${v}'`);
            transforms.push(fn);
            transformNames.push(tn);
          }
          break;
        }
        case 'chain':
          hasChain = true;
          break;
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
          throw new CompileError(`unsupported action '${a.name}'`);
      }
    }
    rule.transformKey = transformNames.join(',');
    if (d.kind === 'rule') {
      for (const sel of d.variables) {
        const cv: CompiledVariable = { name: variableName(sel.name), key: compileKey(sel.key), count: sel.count };
        (sel.exclude ? rule.exclusions : rule.variables).push(cv);
      }
      const opName = d.operator.name.toLowerCase();
      const opDef = input.operators.get(opName);
      if (!opDef) throw new CompileError(`unsupported operator '@${d.operator.name}'`);
      const e = env(d);
      const dynamic = d.operator.argument.indexOf('%{') >= 0 ? compileMacro(d.operator.argument) : undefined;
      let fn;
      if (!dynamic) {
        try {
          fn = opDef.compile(d.operator.argument, e);
        } catch (err) {
          throw new CompileError(`operator @${d.operator.name}: ${(err as Error).message}`);
        }
      }
      rule.operator = {
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
      if (hasChain) {
        if (!d.chained) throw new CompileError('chain action without a following rule');
        rule.chain = compileRule(d.chained, parent ?? rule);
      }
    } else if (hasChain) {
      throw new CompileError('SecAction cannot start a chain');
    }
    return rule;
  };

  for (const d of input.directives) {
    try {
      switch (d.kind) {
        case 'rule':
        case 'action': {
          const rule = compileRule(d, undefined);
          if (rule.id === '') throw new CompileError('rule without id');
          if (byId.has(rule.id)) throw new CompileError(`duplicate rule id ${rule.id}`);
          byId.set(rule.id, rule);
          if (rule.group >= 0 && disabled.has(rule.group)) break;
          ordered.push(rule);
          break;
        }
        case 'marker':
          ordered.push({ kind: 'marker', label: d.label, group: groupOfFile(d.file) });
          break;
        case 'defaultAction': {
          const [phase, def] = defaultsFrom(d.actions, input.transformations);
          defaults[phase] = def;
          break;
        }
        case 'config':
          applyConfig(d, config, removeIds, removeTags, removeMsgs, targetUpdates);
          break;
      }
    } catch (err) {
      if (!(err instanceof CompileError) && !(err instanceof SyntaxError)) throw err;
      problems.push({ file: d.file, line: d.line, message: err.message });
    }
  }

  // Compile-time exclusions apply to the whole rule set, whatever their position (as in ModSecurity).
  const kept = ordered.filter(
    (e) =>
      e.kind === 'marker' ||
      !(
        inRanges(e.idNum, removeIds) ||
        e.tags.some((t) => removeTags.some((rt) => tagMatches(rt, t))) ||
        (e.msg !== undefined && removeMsgs.includes(e.msg.source))
      ),
  );
  for (const u of targetUpdates) {
    for (const rule of kept) {
      if (rule.kind !== 'rule') continue;
      const hit =
        u.by === 'id'
          ? inRanges(rule.idNum, u.ranges)
          : u.by === 'tag'
            ? rule.tags.some((t) => tagMatches(u.text, t))
            : rule.msg?.source === u.text;
      if (!hit) continue;
      try {
        for (const t of u.targets) {
          const target = parseTarget(t);
          (target.exclude ? rule.exclusions : rule.variables).push({
            name: target.name,
            key: target.key,
            count: target.count,
          });
        }
      } catch (err) {
        problems.push({ file: u.at.file, line: u.at.line, message: (err as Error).message });
      }
    }
  }

  const phases: PhaseEntry[][] = [[], [], [], [], [], []];
  for (const e of kept) {
    if (e.kind === 'marker') for (let p = 1; p <= 5; p++) phases[p]?.push(e);
    else phases[e.phase]?.push(e);
  }
  const markers = phases.map((list) => {
    const m = new Map<string, number>();
    list.forEach((e, i) => {
      if (e.kind === 'marker' && !m.has(e.label)) m.set(e.label, i);
    });
    return m;
  });
  // Transformation chain ids, target sets and prefilter bits, over every link of every rule.
  const trie = new Map<string, number>();
  const transformParent: number[] = [-1];
  const transformFn: (Transformation | undefined)[] = [undefined];
  const targetSets = new Map<string, number>();
  const selectorIds = new Map<string, number>();
  const selectors: CompiledVariable[] = [];
  const required: (readonly string[])[] = [];
  let memos = 0;
  for (const e of kept) {
    for (let r: CompiledRule | undefined = e.kind === 'rule' ? e : undefined; r !== undefined; r = r.chain) {
      const names = r.transformKey === '' ? [] : r.transformKey.split(',');
      let node = 0;
      names.forEach((name, k) => {
        const key = `${node} ${name}`;
        let next = trie.get(key);
        if (next === undefined) {
          next = transformParent.length;
          trie.set(key, next);
          transformParent.push(node);
          transformFn.push(r?.transforms[k]);
        }
        node = next;
        r?.transformPath.push(node);
      });
      r.transformId = node;
      if (!r.unconditional && r.variables.every((v) => FIXED_AFTER_BODY.has(v.name))) {
        const key = JSON.stringify([r.variables.map(selectorKey), r.exclusions.map(selectorKey)]);
        let set = targetSets.get(key);
        if (set === undefined) {
          set = targetSets.size;
          targetSets.set(key, set);
        }
        r.targetSet = set;
        r.selectors = r.variables.map((v) => {
          const key = JSON.stringify(selectorKey(v));
          let id = selectorIds.get(key);
          if (id === undefined) {
            id = selectors.length;
            selectorIds.set(key, id);
            selectors.push(v);
          }
          return id;
        });
      }
      if (r.operator?.fn !== undefined) r.memo = memos++;
      const only = r.variables[0];
      if (
        r.variables.length === 1 &&
        only?.name === 'TX' &&
        only.key?.kind === 'literal' &&
        r.exclusions.length === 0 &&
        r.transforms.length === 0 &&
        !r.multiMatch &&
        r.operator?.fn !== undefined
      ) {
        r.txTarget = only;
      }
      const needles = r.operator?.required;
      if (needles !== undefined) {
        r.prefilter = required.length;
        required.push(needles);
      }
    }
  }
  const memoWords = wordsFor(memos);
  const prefilter = new Prefilter(required);
  const pairIds = new Map<string, number>();
  const plans = phases.map((list) => planOf(list, pairIds));
  const pairSelector = new Int32Array(pairIds.size);
  const pairNode = new Int32Array(pairIds.size);
  for (const [key, id] of pairIds) {
    const [selector, node] = key.split(':').map(Number);
    pairSelector[id] = selector as number;
    pairNode[id] = node as number;
  }
  phases.forEach((list, phase) => {
    for (const e of list) {
      if (e.kind !== 'rule') continue;
      let last = e;
      while (last.chain) last = last.chain;
      const label = e.skipAfter ?? last.skipAfter;
      if (label === undefined) continue;
      const at = markers[phase]?.get(label);
      e.skipTo = at === undefined ? list.length : at + 1;
    }
  });
  phases.forEach((list, phase) => {
    const after = (plans[phase] as PhasePlan).after;
    list.forEach((e, i) => {
      after[i] = i + 1;
      if (e.kind !== 'rule') return;
      if (e.skipTo !== undefined) {
        after[i] = e.skipTo;
        return;
      }
      let last = e;
      while (last.chain) last = last.chain;
      let skip = e.skip || last.skip;
      let next = i + 1;
      while (skip > 0 && next < list.length) {
        if (list[next]?.kind === 'rule') skip--;
        next++;
      }
      after[i] = next;
    });
  });
  return {
    ruleSet: {
      phases,
      markers,
      byId,
      config,
      transformParent,
      transformFn,
      targetSets: targetSets.size,
      prefilter,
      memoWords,
      values: new ValueCache(transformFn.length),
      lastSets: [],
      selectors,
      plans,
      pairSelector,
      pairNode,
      txPrefix: txOnlyPrefix(phases[1] ?? []),
      levelPlans: newLevelPlanCache(),
    },
    problems,
  };
}

/**
 * Variables whose values are fixed once the request body has been processed (the transaction
 * drops its resolved target sets then, and again when the response arrives).
 */
const FIXED_AFTER_BODY: ReadonlySet<string> = new Set([
  'ARGS',
  'ARGS_GET',
  'ARGS_POST',
  'ARGS_NAMES',
  'ARGS_GET_NAMES',
  'ARGS_POST_NAMES',
  'ARGS_COMBINED_SIZE',
  'REQUEST_HEADERS',
  'REQUEST_HEADERS_NAMES',
  'REQUEST_COOKIES',
  'REQUEST_COOKIES_NAMES',
  'FILES',
  'FILES_NAMES',
  'FILES_SIZES',
  'FILES_TMP_CONTENT',
  'FILES_TMPNAMES',
  'FILES_COMBINED_SIZE',
  'MULTIPART_PART_HEADERS',
  'MULTIPART_FILENAME',
  'MULTIPART_NAME',
  'XML',
  'REQUEST_METHOD',
  'REQUEST_PROTOCOL',
  'REQUEST_URI',
  'REQUEST_URI_RAW',
  'REQUEST_LINE',
  'REQUEST_FILENAME',
  'REQUEST_BASENAME',
  'QUERY_STRING',
  'REQUEST_BODY',
  'REQUEST_BODY_LENGTH',
  'REMOTE_ADDR',
  'REMOTE_HOST',
  'REMOTE_PORT',
  'SERVER_ADDR',
  'SERVER_PORT',
  'SERVER_NAME',
  'AUTH_TYPE',
]);

/** The skip plan of one phase (see PhasePlan); `pairIds` numbers the (selector, node) pairs across phases. */
function planOf(list: readonly PhaseEntry[], pairIds: Map<string, number>): PhasePlan {
  const prefilter = new Int32Array(list.length).fill(-1);
  const word = new Int32Array(list.length);
  const mask = new Int32Array(list.length);
  const node = new Int32Array(list.length);
  const start = new Int32Array(list.length + 1);
  const selectors: number[] = [];
  const pairs: number[] = [];
  list.forEach((e, i) => {
    start[i] = selectors.length;
    if (e.kind !== 'rule' || e.unconditional || e.targetSet < 0 || e.prefilter < 0 || e.multiMatch) return;
    if (e.operator === undefined || e.operator.negated || e.txTarget !== undefined) return;
    prefilter[i] = e.prefilter;
    word[i] = (e.prefilter / WORD_BITS) | 0;
    mask[i] = 1 << (e.prefilter % WORD_BITS);
    node[i] = e.transformId;
    for (const selector of e.selectors) {
      const key = `${selector}:${e.transformId}`;
      let id = pairIds.get(key);
      if (id === undefined) {
        id = pairIds.size;
        pairIds.set(key, id);
      }
      selectors.push(selector);
      pairs.push(id);
    }
  });
  start[list.length] = selectors.length;
  return {
    prefilter,
    word,
    mask,
    node,
    start,
    selectors: Int32Array.from(selectors),
    pairs: Int32Array.from(pairs),
    after: new Int32Array(list.length),
  };
}

function selectorKey(v: CompiledVariable): unknown[] {
  return [
    v.name,
    v.count,
    v.key?.kind,
    v.key === undefined ? '' : v.key.kind === 'literal' ? v.key.value : v.key.source,
  ];
}

/** ModSecurity treats ruleRemoveByTag's argument as a regex over each tag. */
export function tagMatches(pattern: string, tag: string): boolean {
  if (pattern === tag) return true;
  try {
    return new RegExp(pattern).test(tag);
  } catch {
    return false;
  }
}

function applyConfig(
  d: Directive & { kind: 'config' },
  config: EngineConfig,
  removeIds: [number, number][],
  removeTags: string[],
  removeMsgs: string[],
  targetUpdates: {
    by: 'id' | 'tag' | 'msg';
    ranges: [number, number][];
    text: string;
    targets: string[];
    at: SourcePosition;
  }[],
): void {
  const name = d.name.toLowerCase();
  const a0 = d.args[0] ?? '';
  const onOff = /^on$/i.test(a0);
  switch (name) {
    case 'secruleengine':
      config.ruleEngine = /^on$/i.test(a0) ? 'On' : /^off$/i.test(a0) ? 'Off' : 'DetectionOnly';
      break;
    case 'secrequestbodyaccess':
      config.requestBodyAccess = onOff;
      break;
    case 'secresponsebodyaccess':
      config.responseBodyAccess = onOff;
      break;
    case 'secrequestbodylimit':
      config.requestBodyLimit = Number(a0) || config.requestBodyLimit;
      break;
    case 'secrequestbodylimitaction':
      config.requestBodyLimitAction = /^reject$/i.test(a0) ? 'Reject' : 'ProcessPartial';
      break;
    case 'secresponsebodylimit':
      config.responseBodyLimit = Number(a0) || config.responseBodyLimit;
      break;
    case 'secresponsebodymimetype':
      config.responseBodyMimeTypes = d.args.flatMap((x) => x.split(/\s+/)).filter(Boolean);
      break;
    case 'secargumentseparator':
      config.argumentSeparator = a0 || '&';
      break;
    case 'secargumentslimit':
      config.argumentsLimit = Number(a0) || config.argumentsLimit;
      break;
    case 'secruleremovebyid':
      for (const a of d.args) removeIds.push(...parseIdRanges(a));
      break;
    case 'secruleremovebytag':
      removeTags.push(...d.args);
      break;
    case 'secruleremovebymsg':
      removeMsgs.push(...d.args);
      break;
    case 'secruleupdatetargetbyid':
    case 'secruleupdatetargetbytag':
    case 'secruleupdatetargetbymsg': {
      const by = name.endsWith('id') ? 'id' : name.endsWith('tag') ? 'tag' : 'msg';
      const targets = (d.args[1] ?? '').split('|').filter((t) => t.trim() !== '');
      targetUpdates.push({ by, ranges: by === 'id' ? parseIdRanges(a0) : [], text: a0, targets, at: d });
      break;
    }
    default:
      // Other configuration (audit log, debug log, PCRE limits, collection timeouts, ...) has no
      // effect on decisions here.
      break;
  }
}
