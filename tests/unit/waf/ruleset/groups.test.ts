import { describe, expect, it } from 'vitest';
import {
  countGroupLevels,
  groupOf,
  loadRuleSet,
  ruleLevels,
  RULE_GROUPS,
} from '../../../../engine/waf/ruleset/index.ts';
import type { GroupLevelCount } from '../../../../engine/waf/ruleset/index.ts';
import { parseSecLang } from '../../../../engine/waf/seclang/index.ts';
import { GROUPS, groupOfFile, RULE_GROUPS as ENGINE_RULE_GROUPS } from '../../../../engine/waf/engine/index.ts';
import { CRS3, CRS4, HAS_CRS3, missing } from '../../../support/crs-dirs.ts';
import { skipAllWithout } from '../../../support/skip.ts';

const totals = (counts: readonly GroupLevelCount[]): number[] =>
  [0, 1, 2, 3].map((i) => counts.reduce((n, c) => n + (c.enabled[i] ?? 0), 0));

const table = (counts: readonly GroupLevelCount[]): Record<string, string> =>
  Object.fromEntries(counts.map((c) => [`${c.group.id} (${c.group.crsFile})`, c.enabled.join(' / ')]));

describe('groups', () => {
  it('maps the 12 groups to their CRS files', () => {
    expect(RULE_GROUPS.map((g) => `${g.id}:${g.crsFile}`)).toEqual([
      '001:944',
      '002:930',
      '003:934',
      '004:933',
      '005:932',
      '006:931',
      '007:943',
      '008:942',
      '009:941',
      '010:921',
      '011:920',
      '012:913',
    ]);
    expect(groupOf('/usr/share/modsecurity-crs/rules/REQUEST-942-APPLICATION-ATTACK-SQLI.conf')?.id).toBe('008');
    expect(groupOf('rules/REQUEST-934-APPLICATION-ATTACK-GENERIC.conf')?.id).toBe('003');
    expect(groupOf('rules/REQUEST-949-BLOCKING-EVALUATION.conf')).toBeUndefined();
  });

  it('are one table: the groups shown and the group indexes the engine runs with come from it', () => {
    expect(RULE_GROUPS).toBe(ENGINE_RULE_GROUPS);
    expect(GROUPS).toEqual(RULE_GROUPS.map((g) => String(g.crsFile)));
    RULE_GROUPS.forEach((g, i) => {
      expect(groupOfFile(`rules/REQUEST-${g.crsFile}-ANY.conf`)).toBe(i);
    });
  });

  it('takes the level from the paranoia-level tag, else from the @lt guard above the rule', () => {
    const file = '/x/REQUEST-944-APPLICATION-ATTACK-JAVA.conf';
    const { directives, problems } = parseSecLang(
      [
        'SecRule TX:EXECUTING_PARANOIA_LEVEL "@lt 1" "id:944011,phase:1,pass,nolog,skipAfter:END-REQUEST-944"',
        `SecRule ARGS "@rx a" "id:944100,phase:2,block,msg:'A',tag:'paranoia-level/1',setvar:'tx.anomaly_score_pl1=+%{tx.critical_anomaly_score}'"`,
        'SecRule TX:DETECTION_PARANOIA_LEVEL "@lt 2" "id:944013,phase:1,pass,nolog,skipAfter:END-REQUEST-944"',
        `SecRule ARGS "@rx b" "id:944200,phase:2,block,msg:'B',chain"`,
        `  SecRule ARGS "@rx c" "setvar:'tx.inbound_anomaly_score_pl2=+%{tx.critical_anomaly_score}'"`,
        `SecRule ARGS "@rx d" "id:944210,phase:2,pass,tag:'paranoia-level/3',setvar:tx.helper=1"`,
        'SecMarker END-REQUEST-944',
      ].join('\n'),
      file,
    );
    expect(problems).toEqual([]);
    expect(ruleLevels(directives).map((r) => [r.id, r.level, r.levelFrom, r.scoring, r.guard, r.msg])).toEqual([
      ['944011', 1, 'guard', false, true, ''],
      ['944100', 1, 'tag', true, false, 'A'],
      ['944013', 2, 'guard', false, true, ''],
      ['944200', 2, 'guard', true, false, 'B'],
      ['944210', 3, 'tag', false, false, ''],
    ]);
  });
});

describe("group and level counts of Debian's CRS 3.3.4", async () => {
  skipAllWithout(missing.crs3);
  const rs = HAS_CRS3 ? await loadRuleSet(CRS3.dir, { setupFile: CRS3.setup }) : null;
  const levels = rs ? ruleLevels(rs.directives) : [];
  const counts = countGroupLevels(levels);

  it('counts scoring rules enabled at PL1 / PL2 / PL3 / PL4 per group', () => {
    console.log(
      'CRS 3.3.4 scoring rules enabled per group at PL1 / PL2 / PL3 / PL4',
      table(counts),
      'total',
      totals(counts),
    );
    expect(table(counts)).toEqual({
      '001 (944)': '4 / 8 / 9 / 9',
      '002 (930)': '4 / 4 / 4 / 4',
      '003 (934)': '1 / 1 / 1 / 1',
      '004 (933)': '11 / 12 / 16 / 16',
      '005 (932)': '12 / 13 / 15 / 15',
      '006 (931)': '3 / 4 / 4 / 4',
      '007 (943)': '3 / 3 / 3 / 3',
      '008 (942)': '16 / 40 / 47 / 49',
      '009 (941)': '24 / 30 / 30 / 30',
      '010 (921)': '9 / 11 / 13 / 13',
      '011 (920)': '37 / 45 / 48 / 53',
      '012 (913)': '3 / 5 / 5 / 5',
    });
  });

  it('totals 127 / 176 / 195 / 202: the spec 123 / 171 / 189 / 196 of CRS 3.3.2 plus the six rules of 3.3.3', () => {
    // CRS 3.3.3 (CVE-2022-39955..39958 fixes) added, within the 12 groups: 920530, 920600, 920620 and
    // 921421 at PL1, 921422 at PL2 and 921230 at PL3; none at PL4. 3.3.2's counts plus those give
    // exactly Debian's 3.3.4 numbers, whose PL4 total is the 202.
    expect(totals(counts)).toEqual([127, 176, 195, 202]);
    const added = new Map(
      levels
        .filter((r) => ['920530', '920600', '920620', '921421', '921422', '921230'].includes(r.id))
        .map((r) => [r.id, r.level]),
    );
    expect(Object.fromEntries(added)).toEqual({
      '920530': 1,
      '920600': 1,
      '920620': 1,
      '921421': 1,
      '921422': 2,
      '921230': 3,
    });
    const without = totals(counts).map((n, i) => n - [...added.values()].filter((l) => l <= i + 1).length);
    expect(without).toEqual([123, 171, 189, 196]);
  });

  it('group 001 (Java, 944) holds 9 scoring rules from PL3 on (all of them; 4 at PL1, 8 at PL2)', () => {
    const java = counts.find((c) => c.group.id === '001');
    expect(java?.enabled).toEqual([4, 8, 9, 9]);
    expect(levels.filter((r) => r.group.id === '001' && r.scoring).map((r) => r.id)).toEqual([
      '944100',
      '944110',
      '944120',
      '944130',
      '944200',
      '944210',
      '944240',
      '944250',
      '944300',
    ]);
  });

  it('has a msg and tags for every scoring rule, and levels from tags except two untagged PL1 rules', () => {
    const scoring = levels.filter((r) => r.scoring);
    expect(scoring.every((r) => r.msg !== '' && r.tags.includes('OWASP_CRS'))).toBe(true);
    expect(scoring.filter((r) => r.levelFrom === 'guard').map((r) => `${r.id}@${r.level}`)).toEqual([
      '920181@1',
      '921200@1',
    ]);
  });
});

describe('group and level counts of CRS v4', async () => {
  skipAllWithout(missing.crs4);
  const rs = CRS4 ? await loadRuleSet(CRS4.dir, { setupFile: CRS4.setup }) : null;
  const counts = countGroupLevels(rs ? ruleLevels(rs.directives) : []);

  it('finds scoring rules in every group at PL1 and never fewer at a higher level', () => {
    console.log(
      `CRS ${rs?.version} scoring rules enabled per group at PL1 / PL2 / PL3 / PL4`,
      table(counts),
      'total',
      totals(counts),
    );
    for (const c of counts) {
      expect(c.enabled[0]).toBeGreaterThan(0);
      expect([...c.enabled].sort((a, b) => a - b)).toEqual(c.enabled);
    }
    if (rs?.version === '4.25.0') expect(totals(counts)).toEqual([154, 238, 268, 277]);
  });
});
