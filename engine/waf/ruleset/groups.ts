/**
 * The 12 rule groups of the product (001 to 012; the table is engine/groups.ts) over CRS files, and
 * each rule's paranoia level.
 *
 * A rule's level comes from its `paranoia-level/N` tag; a rule without one takes the level of the
 * section it stands in, i.e. the last `TX:EXECUTING_PARANOIA_LEVEL "@lt N"` (CRS 3) or
 * `TX:DETECTION_PARANOIA_LEVEL "@lt N"` (CRS 4) skipAfter guard above it. A rule is `scoring` when
 * it, or a rule of its chain, adds to an anomaly score (`setvar:tx.*anomaly_score*=+...`): those
 * are the rules a person enables or disables; guards and setvar helpers are not.
 */
import { basename } from 'node:path';
import type { Directive, ParsedAction, SourcePosition } from '../types.ts';
import { actionValue } from '#engine/waf/seclang';
import { RULE_GROUPS, type RuleGroup } from '#engine/waf/engine';

export { RULE_GROUPS, type RuleGroup };

const BY_FILE = new Map(RULE_GROUPS.map((g) => [g.crsFile, g]));

/** The group of a CRS rule file (`.../REQUEST-942-APPLICATION-ATTACK-SQLI.conf` -> 008), if any. */
export function groupOf(file: string): RuleGroup | undefined {
  const m = /^REQUEST-(\d{3})-/.exec(basename(file));
  return m?.[1] ? BY_FILE.get(Number(m[1])) : undefined;
}

export type ParanoiaLevel = 1 | 2 | 3 | 4;

export interface RuleLevel extends SourcePosition {
  id: string;
  group: RuleGroup;
  level: ParanoiaLevel;
  /** Where the level came from. */
  levelFrom: 'tag' | 'guard';
  /** Adds to an anomaly score (see the module comment). */
  scoring: boolean;
  /** A `TX:*_PARANOIA_LEVEL "@lt N"` skipAfter guard. */
  guard: boolean;
  msg: string;
  tags: string[];
}

/** Every rule id of the 12 groups' files, in load order. */
export function ruleLevels(directives: readonly Directive[]): RuleLevel[] {
  const out: RuleLevel[] = [];
  const sectionLevel = new Map<string, ParanoiaLevel>();
  for (const d of directives) {
    if (d.kind !== 'rule' && d.kind !== 'action') continue;
    const group = groupOf(d.file);
    if (!group) continue;
    const id = actionValue(d.actions, 'id');
    const guardLevel = d.kind === 'rule' ? paranoiaGuard(d) : null;
    if (guardLevel !== null) sectionLevel.set(d.file, guardLevel);
    if (id === undefined) continue;
    const tags = d.actions.filter((a) => a.name === 'tag').map((a) => a.value ?? '');
    const tagged = tags.map((t) => /^paranoia-level\/([1-4])$/.exec(t)?.[1]).find((v) => v !== undefined);
    const level = (tagged ? Number(tagged) : (sectionLevel.get(d.file) ?? 1)) as ParanoiaLevel;
    out.push({
      id,
      group,
      level,
      levelFrom: tagged ? 'tag' : 'guard',
      scoring: guardLevel === null && chainActions(d).some(addsAnomalyScore),
      guard: guardLevel !== null,
      msg: actionValue(d.actions, 'msg') ?? '',
      tags,
      file: d.file,
      line: d.line,
    });
  }
  return out;
}

/** `SecRule TX:EXECUTING_PARANOIA_LEVEL "@lt N" "...,skipAfter:END-..."` -> N. */
function paranoiaGuard(d: Directive & { kind: 'rule' }): ParanoiaLevel | null {
  const v = d.variables[0];
  if (d.variables.length !== 1 || v?.name !== 'TX' || v.key?.kind !== 'literal') return null;
  if (!/^(executing|detection)_paranoia_level$/i.test(v.key.value)) return null;
  if (d.operator.name.toLowerCase() !== 'lt' || d.operator.negated) return null;
  if (actionValue(d.actions, 'skipAfter') === undefined) return null;
  const n = Number(d.operator.argument.trim());
  return n >= 1 && n <= 4 ? (n as ParanoiaLevel) : null;
}

function chainActions(d: Directive & { kind: 'rule' | 'action' }): ParsedAction[] {
  const out = [...d.actions];
  let link = d.kind === 'rule' ? d.chained : undefined;
  while (link) {
    out.push(...link.actions);
    link = link.chained;
  }
  return out;
}

const DISRUPTIVE = new Set(['deny', 'drop', 'block', 'redirect']);

/**
 * Ids of the rules, in any file, that a block can be put down to: those that add to an anomaly score
 * and those that interrupt by themselves (ModSecurity's 200002, CRS's 911100, 949100). The anomaly
 * evaluation rules, which only turn the others' scores into a block (they read TX:*anomaly_score*),
 * are not among them: the access log names the rules that scored instead.
 */
export function attributableRuleIds(directives: readonly Directive[]): Set<string> {
  const out = new Set<string>();
  for (const d of directives) {
    if (d.kind !== 'rule' && d.kind !== 'action') continue;
    const id = actionValue(d.actions, 'id');
    if (id === undefined) continue;
    const actions = chainActions(d);
    if (actions.some(addsAnomalyScore)) out.add(id);
    else if (d.actions.some((a) => DISRUPTIVE.has(a.name.toLowerCase())) && !readsAnomalyScore(d)) out.add(id);
  }
  return out;
}

function readsAnomalyScore(d: Directive & { kind: 'rule' | 'action' }): boolean {
  if (d.kind !== 'rule') return false;
  return d.variables.some((v) => v.name === 'TX' && v.key?.kind === 'literal' && /anomaly_score/i.test(v.key.value));
}

function addsAnomalyScore(a: ParsedAction): boolean {
  return a.name === 'setvar' && /^tx\.[a-z0-9_]*anomaly_score[a-z0-9_]*=\+/i.test(a.value ?? '');
}

export interface GroupLevelCount {
  group: RuleGroup;
  /** Scoring rules enabled at paranoia level 1, 2, 3, 4 (cumulative: level N runs rules of 1..N). */
  enabled: [number, number, number, number];
  /** Scoring rules whose own level is 1, 2, 3, 4. */
  atLevel: [number, number, number, number];
}

/** Scoring-rule counts per group and level. */
export function countGroupLevels(levels: readonly RuleLevel[]): GroupLevelCount[] {
  return RULE_GROUPS.map((group) => {
    const atLevel: [number, number, number, number] = [0, 0, 0, 0];
    for (const r of levels) {
      if (r.group.id === group.id && r.scoring) atLevel[r.level - 1] = (atLevel[r.level - 1] ?? 0) + 1;
    }
    const enabled: [number, number, number, number] = [
      atLevel[0],
      atLevel[0] + atLevel[1],
      atLevel[0] + atLevel[1] + atLevel[2],
      atLevel[0] + atLevel[1] + atLevel[2] + atLevel[3],
    ];
    return { group, enabled, atLevel };
  });
}
