/**
 * What the engine works out once per level profile (paranoia guards, the TX snapshot of phase 1's
 * TX-only rules, outcomes of rules that read a few TX entries) must give, transaction after
 * transaction on one rule set, what evaluating every rule gives.
 */
import { describe, expect, it } from 'vitest';
import { compile, inspect } from './run.ts';

const SQLI = '/crs/rules/REQUEST-942-APPLICATION-ATTACK-SQLI.conf';
const levelsWith = (sqli: number): number[] => {
  const levels = Array<number>(12).fill(1);
  levels[7] = sqli; // 942 is GROUPS[7]
  return levels;
};

describe('paranoia guards resolved per level profile', () => {
  const rules = [
    `SecRule ARGS:off "@rx 1" "id:1,phase:1,pass,nolog,ctl:ruleRemoveTargetById=942013;TX:EXECUTING_PARANOIA_LEVEL"`,
    `SecRule ARGS:gone "@rx 1" "id:2,phase:1,pass,nolog,ctl:ruleRemoveById=942013"`,
    `SecRule TX:EXECUTING_PARANOIA_LEVEL "@lt 2" "id:942013,phase:2,pass,nolog,skipAfter:END-942"`,
    `SecAction "id:942200,phase:2,pass,log"`,
    `SecMarker END-942`,
  ].join('\n');
  const { ruleSet } = compile(rules, SQLI);

  it('follow the level of each transaction on the same rule set', () => {
    expect(inspect(ruleSet, {}, { groupLevels: levelsWith(2) }).ids).toEqual(['942200']);
    expect(inspect(ruleSet, {}, { groupLevels: levelsWith(1) }).ids).toEqual([]);
    expect(inspect(ruleSet, {}, { groupLevels: levelsWith(2) }).ids).toEqual(['942200']);
  });
  it('are evaluated again when a ctl removed their target', () => {
    expect(inspect(ruleSet, { uri: '/?off=1' }, { groupLevels: levelsWith(1) }).ids).toEqual(['942200']);
    expect(inspect(ruleSet, {}, { groupLevels: levelsWith(1) }).ids).toEqual([]);
  });
  it('do not jump when a ctl removed them', () => {
    expect(inspect(ruleSet, { uri: '/?gone=1' }, { groupLevels: levelsWith(1) }).ids).toEqual(['942200']);
  });
});

describe('TX snapshot of the leading TX-only rules', () => {
  const rules = [
    `SecAction "id:900000,phase:1,pass,nolog,setvar:tx.threshold=5"`,
    `SecRule &TX:threshold "@eq 0" "id:901100,phase:1,pass,nolog,setvar:tx.threshold=10"`,
    `SecRule &TX:executing_paranoia_level "@eq 0" "id:901125,phase:1,pass,nolog,setvar:tx.executing_paranoia_level=1"`,
    `SecRule ARGS:pl "@rx ^2$" "id:901500,phase:1,pass,nolog,setvar:tx.executing_paranoia_level=2"`,
    `SecRule ARGS:flag "@rx 1" "id:901600,phase:1,pass,nolog,setvar:tx.flag=1"`,
    `SecRule TX:flag "@eq 1" "id:4,phase:2,pass,log,setvar:tx.seen=1"`,
    `SecRule TX:EXECUTING_PARANOIA_LEVEL "@lt 2" "id:949013,phase:2,pass,nolog,skipAfter:END-PL2"`,
    `SecRule TX:threshold "@eq 5" "id:2,phase:2,pass,log,msg:'threshold %{tx.threshold}'"`,
    `SecMarker END-PL2`,
    `SecRule TX:threshold "@eq 5" "id:3,phase:2,pass,log,msg:'threshold %{tx.threshold}'"`,
  ].join('\n');
  const { ruleSet } = compile(rules);

  it('gives every transaction the state the rules set', () => {
    for (let i = 0; i < 3; i++) {
      const r = inspect(ruleSet);
      expect(r.ids).toEqual(['3']);
      expect(r.matched[0]?.message).toBe('threshold 5');
    }
  });
  it('leaves rules that read TX a request changed to be evaluated', () => {
    expect(inspect(ruleSet, { uri: '/?pl=2' }).ids).toEqual(['2', '3']);
    expect(inspect(ruleSet).ids).toEqual(['3']);
  });
  it('leaves a rule with effects that TX set by the request lets match to be evaluated', () => {
    expect(inspect(ruleSet, { uri: '/?flag=1' }).ids).toEqual(['4', '3']);
    expect(inspect(ruleSet).ids).toEqual(['3']);
  });
  it('reuses the outcome of a chain of TX-only links until a request changes one of them', () => {
    const chained = compile(
      [
        `SecAction "id:900000,phase:1,pass,nolog,setvar:tx.a=1"`,
        `SecRule ARGS:b "@rx 1" "id:901600,phase:1,pass,nolog,setvar:tx.b=1"`,
        `SecRule TX:a "@eq 1" "id:912100,phase:2,pass,nolog,chain,skipAfter:END"`,
        `  SecRule &TX:b "@eq 0"`,
        `SecAction "id:5,phase:2,pass,log"`,
        `SecMarker END`,
      ].join('\n'),
    ).ruleSet;
    expect(inspect(chained).ids).toEqual([]);
    expect(inspect(chained, { uri: '/?b=1' }).ids).toEqual(['5']);
    expect(inspect(chained).ids).toEqual([]);
  });
  it('is not used when a leading rule logs: it matches in every transaction', () => {
    const logged = compile(
      `SecAction "id:1,phase:1,pass,log,setvar:tx.a=1"\nSecRule TX:a "@eq 1" "id:2,phase:2,pass,log"`,
    ).ruleSet;
    expect(inspect(logged).ids).toEqual(['1', '2']);
    expect(inspect(logged).ids).toEqual(['1', '2']);
  });
  it('is not used when a leading rule disrupts', () => {
    const denied = compile(`SecRule &TX:a "@eq 0" "id:1,phase:1,deny,status:500,nolog"`).ruleSet;
    expect(inspect(denied).status).toBe(500);
    expect(inspect(denied).status).toBe(500);
  });
});
