/**
 * The shortcuts of transaction.ts (rules run over their selectors' lists, target sets with
 * exclusions copied from those lists, TX regex keys read from the snapshot's keys and the added
 * ones, TX-conditional outcomes tested against written-key bits) must give what resolving and
 * evaluating everything gives: same targets, same order, same counts.
 */
import { describe, expect, it } from 'vitest';
import { compile, inspect } from './run.ts';

describe('rules over their selectors', () => {
  const rules = [
    `SecRule ARGS|REQUEST_HEADERS:X-Test|ARGS_NAMES "@rx evil" "id:1,phase:2,pass,log,msg:'%{MATCHED_VAR_NAME}'"`,
    `SecRule REQUEST_COOKIES|!REQUEST_COOKIES:/__utm/|ARGS "@rx evil" "id:2,phase:2,pass,log,msg:'%{MATCHED_VAR_NAME}'"`,
    `SecRule &ARGS|!ARGS:skip "@eq 2" "id:3,phase:2,pass,log"`,
  ].join('\n');
  const { ruleSet } = compile(rules);

  it("match in the order of the rule's variables, the last match naming MATCHED_VAR", () => {
    const r = inspect(ruleSet, { uri: '/?evil=evil', headers: [['X-Test', 'evil']] });
    expect(r.ids).toContain('1');
    expect(r.matched.find((m) => m.id === '1')?.message).toBe('ARGS_NAMES:evil');
  });
  it('leave out the keys an exclusion names, in lists shared with rules that have none', () => {
    const cookies: [string, string][] = [['Cookie', '__utma=evil; session=ok']];
    expect(inspect(ruleSet, { headers: cookies }).ids).not.toContain('2');
    const r = inspect(ruleSet, { headers: [['Cookie', '__utma=evil; s=evil']] });
    expect(r.matched.find((m) => m.id === '2')?.message).toBe('REQUEST_COOKIES:s');
  });
  it('count without the excluded keys', () => {
    expect(inspect(ruleSet, { uri: '/?a=1&b=2&skip=3' }).ids).toContain('3');
    expect(inspect(ruleSet, { uri: '/?a=1&b=2&c=3' }).ids).not.toContain('3');
  });
});

describe('TX regex keys after the snapshot', () => {
  const rules = [
    `SecAction "id:900000,phase:1,pass,nolog,setvar:tx.name_a=1,setvar:tx.other=1,setvar:tx.name_b=2"`,
    `SecRule ARGS:add "@rx ." "id:10,phase:1,pass,nolog,setvar:tx.name_c=3,setvar:tx.name_a=4"`,
    `SecRule ARGS:del "@rx ." "id:11,phase:1,pass,nolog,setvar:!tx.name_a,setvar:tx.name_a=5"`,
    `SecRule TX:/^name_/ "@rx ." "id:20,phase:2,pass,log,msg:'%{MATCHED_VARS_NAMES}'"`,
    `SecRule &TX:/^name_/ "@eq 3" "id:21,phase:2,pass,log"`,
  ].join('\n');
  const { ruleSet } = compile(rules);
  const lastName = (uri: string): string =>
    /against variable `([^']*)'/.exec(inspect(ruleSet, { uri }).log.find((l) => l.includes('[id "20"]')) ?? '')?.[1] ??
    '';

  it("come in the map's order: the snapshot's keys, then the added ones", () => {
    expect(inspect(ruleSet).ids).toEqual(['20']);
    expect(lastName('/')).toBe('TX:name_b');
    expect(inspect(ruleSet, { uri: '/?add=1' }).ids).toEqual(['20', '21']);
    expect(lastName('/?add=1')).toBe('TX:name_c');
  });
  it('follow a key deleted and set again to the end of the map', () => {
    expect(inspect(ruleSet, { uri: '/?del=1' }).ids).toEqual(['20']);
    expect(lastName('/?del=1')).toBe('TX:name_a');
  });
});

describe('TX-conditional outcomes', () => {
  const rules = [
    `SecAction "id:900000,phase:1,pass,nolog,setvar:tx.mode=off"`,
    `SecRule ARGS:on "@rx 1" "id:10,phase:1,pass,nolog,setvar:tx.mode=on"`,
    `SecRule ARGS:same "@rx 1" "id:11,phase:1,pass,nolog,setvar:tx.mode=off"`,
    `SecRule TX:mode "@streq on" "id:20,phase:2,pass,log"`,
  ].join('\n');
  const { ruleSet } = compile(rules);

  it('are worked out again once the transaction writes a key they read', () => {
    expect(inspect(ruleSet).ids).toEqual([]);
    expect(inspect(ruleSet, { uri: '/?on=1' }).ids).toEqual(['20']);
    expect(inspect(ruleSet, { uri: '/?same=1' }).ids).toEqual([]);
    expect(inspect(ruleSet).ids).toEqual([]);
  });
});
