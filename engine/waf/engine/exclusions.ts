/**
 * Exclusions: rules and targets removed at compile time (SecRuleRemoveById / ByTag / ByMsg,
 * SecRuleUpdateTargetById / ByTag / ByMsg, applied to the whole rule set whatever their position,
 * as in ModSecurity) and the ctl actions that remove them per transaction (ctl:ruleRemove*), with
 * the id-range and tag matching both share.
 */
import type { Directive, ParseProblem, SourcePosition } from '../types.ts';
import { compileMacro } from './macro.ts';
import { CompileError } from './compile-error.ts';
import { parseTarget } from './selector.ts';
import { lowerKey, variableName } from './variable-name.ts';
import type { CompiledMarker, CompiledRule, CompiledVariable, CtlAction } from './rule.ts';

/** The compile-time exclusions a rule set's configuration directives gathered. */
export interface Exclusions {
  removeIds: [number, number][];
  removeTags: string[];
  removeMsgs: string[];
  targetUpdates: TargetUpdate[];
}

/** One SecRuleUpdateTargetBy*: the rules it selects and the targets it adds (or, with `!`, excludes). */
export interface TargetUpdate {
  by: 'id' | 'tag' | 'msg';
  ranges: [number, number][];
  text: string;
  targets: string[];
  at: SourcePosition;
}

/**
 * What an operator excluded for one request, applied as ModSecurity applies ctl:ruleRemoveById and
 * ctl:ruleRemoveTargetById at the start of the transaction: whole rules, and targets of rules.
 */
export interface RequestExclusions {
  readonly ruleIds: readonly [number, number][];
  readonly targets: readonly { readonly ruleIds: readonly [number, number][]; readonly target: CompiledVariable }[];
}

/**
 * A target as the WAF names a match (`ARGS:q`, `REQUEST_HEADERS:Referer`, `REQUEST_COOKIES`), its
 * key always a literal: parameter names are request data, so `/x/` is a name, not a regex.
 */
export function literalTarget(variable: string): CompiledVariable {
  const colon = variable.indexOf(':');
  const name = variableName(colon < 0 ? variable : variable.slice(0, colon));
  const key = colon < 0 ? '' : variable.slice(colon + 1);
  return {
    name,
    key: key === '' ? undefined : { kind: 'literal', value: key, lower: lowerKey(key) },
    count: false,
  };
}

export function noExclusions(): Exclusions {
  return { removeIds: [], removeTags: [], removeMsgs: [], targetUpdates: [] };
}

/** `942100`, `1-999999`, `942100 942200`, `942100,942200`. */
export function parseIdRanges(text: string): [number, number][] {
  const out: [number, number][] = [];
  for (const part of text.split(/[\s,]+/)) {
    if (part === '') continue;
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new CompileError('bad_rule_range', { value: part }, `bad rule id or range '${part}'`);
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

/** ModSecurity treats ruleRemoveByTag's argument as a regex over each tag. */
export function tagMatches(pattern: string, tag: string): boolean {
  if (pattern === tag) return true;
  try {
    return new RegExp(pattern).test(tag);
  } catch {
    return false;
  }
}

/** ctl:NAME=VALUE: runtime configuration, or a removal of rules or targets for this transaction. */
export function parseCtl(value: string): CtlAction {
  const eq = value.indexOf('=');
  if (eq < 0) throw new CompileError('ctl_no_value', { value }, `ctl '${value}' has no value`);
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
      throw new CompileError('unsupported_ctl', { ctl: name }, `unsupported ctl '${name}'`);
  }
}

/** Gathers a SecRuleRemove* / SecRuleUpdateTarget* directive; false for any other directive. */
export function addExclusion(d: Directive & { kind: 'config' }, ex: Exclusions): boolean {
  const name = d.name.toLowerCase();
  const a0 = d.args[0] ?? '';
  switch (name) {
    case 'secruleremovebyid':
      for (const a of d.args) ex.removeIds.push(...parseIdRanges(a));
      return true;
    case 'secruleremovebytag':
      ex.removeTags.push(...d.args);
      return true;
    case 'secruleremovebymsg':
      ex.removeMsgs.push(...d.args);
      return true;
    case 'secruleupdatetargetbyid':
    case 'secruleupdatetargetbytag':
    case 'secruleupdatetargetbymsg': {
      const by = name.endsWith('id') ? 'id' : name.endsWith('tag') ? 'tag' : 'msg';
      const targets = (d.args[1] ?? '').split('|').filter((t) => t.trim() !== '');
      ex.targetUpdates.push({ by, ranges: by === 'id' ? parseIdRanges(a0) : [], text: a0, targets, at: d });
      return true;
    }
    default:
      return false;
  }
}

/**
 * The rules and markers left once the removals apply, with the target updates applied to them; a
 * target that cannot be parsed is reported against its SecRuleUpdateTarget directive.
 */
export function applyExclusions(
  ordered: readonly (CompiledRule | CompiledMarker)[],
  ex: Exclusions,
  problems: ParseProblem[],
): (CompiledRule | CompiledMarker)[] {
  const kept = ordered.filter(
    (e) =>
      e.kind === 'marker' ||
      !(
        inRanges(e.idNum, ex.removeIds) ||
        e.tags.some((t) => ex.removeTags.some((rt) => tagMatches(rt, t))) ||
        (e.msg !== undefined && ex.removeMsgs.includes(e.msg.source))
      ),
  );
  for (const u of ex.targetUpdates) {
    for (const rule of kept) {
      if (rule.kind !== 'rule') continue;
      const hit =
        u.by === 'id'
          ? inRanges(rule.idNum, u.ranges)
          : u.by === 'tag'
            ? rule.tags.some((t) => tagMatches(u.text, t))
            : rule.msg?.source === u.text;
      if (!hit) continue;
      let current = '';
      try {
        for (const t of u.targets) {
          current = t;
          const target = parseTarget(t);
          (target.exclude ? rule.exclusions : rule.variables).push({
            name: target.name,
            key: target.key,
            count: target.count,
          });
        }
      } catch (err) {
        const message = (err as Error).message;
        problems.push({
          file: u.at.file,
          line: u.at.line,
          message,
          code: 'bad_target',
          params: { target: current, error: message },
        });
      }
    }
  }
  return kept;
}
