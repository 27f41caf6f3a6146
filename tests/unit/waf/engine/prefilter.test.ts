/**
 * The engine's use of OperatorDef.required (the prefilter) and of what it keeps across
 * transactions: the stand-in @pm names only its first phrase as required, so a match on a
 * later phrase alone shows the operator was skipped.
 */
import { describe, expect, it } from 'vitest';
import { parseSecLang } from '#engine/waf/seclang';
import { compileRuleSet, Transaction } from '#engine/waf/engine';
import { OPS, TRANSFORMS } from './stand-ins.ts';
import { request, run, type RequestSpec } from './run.ts';

/** One compiled rule set, several transactions (as createWaf uses it). */
function engine(rules: string): (spec: RequestSpec) => string[] {
  const parsed = parseSecLang(rules, '/rules/test.conf');
  const { ruleSet } = compileRuleSet({
    directives: parsed.directives,
    operators: OPS,
    transformations: TRANSFORMS,
    dataFiles: new Map(),
  });
  return (spec) => {
    const t = new Transaction(ruleSet, request(spec), {
      groupLevels: Array<number>(12).fill(1),
      paranoiaLevel: 1,
      jsonXmlByContentType: true,
      logSink: undefined,
      uniqueId: 'test',
      now: new Date(0),
    });
    t.processRequest();
    return t.processLogging().matched.map((m) => m.id);
  };
}

describe('prefilter', () => {
  it('runs an operator when one of its required strings occurs, in any case', () => {
    expect(run('SecRule ARGS "@pm union select" "id:1,phase:2,log,pass"', { uri: '/?q=UNION' }).ids).toEqual(['1']);
  });

  it('skips an operator when none of its required strings occurs', () => {
    expect(run('SecRule ARGS "@pm union select" "id:1,phase:2,log,pass"', { uri: '/?q=select' }).ids).toEqual([]);
  });

  it('asks after the transformations: a string that only appears once decoded counts', () => {
    const rule = 'SecRule ARGS "@pm union" "id:1,phase:2,t:none,t:urlDecode,log,pass"';
    expect(run(rule, { uri: '/?q=%2575nion' }).ids).toEqual(['1']);
  });

  it('a negated operator that is skipped matches', () => {
    expect(run('SecRule ARGS "!@pm union" "id:1,phase:2,log,pass"', { uri: '/?q=hello' }).ids).toEqual(['1']);
  });

  it('multiMatch asks for each distinct transformed value', () => {
    const rule = 'SecRule ARGS "@pm union" "id:1,phase:2,t:none,t:urlDecode,multiMatch,log,pass"';
    expect(run(rule, { uri: '/?q=%2575nion' }).ids).toEqual(['1']);
  });

  it('a skipped rule in a shared target set does not hide the next rule on the same targets', () => {
    const rules = [
      'SecRule ARGS|REQUEST_HEADERS "@pm union" "id:1,phase:2,log,pass"',
      'SecRule ARGS|REQUEST_HEADERS "@pm select" "id:2,phase:2,log,pass"',
    ].join('\n');
    expect(run(rules, { uri: '/?q=select' }).ids).toEqual(['2']);
  });

  it('exclusions still apply to the targets of a rule that runs', () => {
    const rule = 'SecRule ARGS|!ARGS:q "@pm union" "id:1,phase:2,log,pass"';
    expect(run(rule, { uri: '/?q=union' }).ids).toEqual([]);
    expect(run(rule, { uri: '/?p=union' }).ids).toEqual(['1']);
  });
});

describe('state kept across transactions', () => {
  it('each transaction sees its own values, whatever an earlier one cached', () => {
    const inspect = engine('SecRule ARGS "@pm union" "id:1,phase:2,log,pass"');
    expect(inspect({ uri: '/?q=union' })).toEqual(['1']);
    expect(inspect({ uri: '/?q=hello' })).toEqual([]);
    expect(inspect({ uri: '/?q=union' })).toEqual(['1']);
  });

  it('an operator that did not match a value before is not trusted for a different value', () => {
    const inspect = engine('SecRule REQUEST_HEADERS:User-Agent "@streq bad" "id:1,phase:1,log,pass"');
    const ua = (v: string): RequestSpec => ({
      headers: [
        ['Host', 'h'],
        ['User-Agent', v],
      ],
    });
    expect(inspect(ua('good'))).toEqual([]);
    expect(inspect(ua('good'))).toEqual([]);
    expect(inspect(ua('bad'))).toEqual(['1']);
  });

  it('the same value matches again in a later transaction', () => {
    const inspect = engine('SecRule REQUEST_HEADERS:User-Agent "@streq bad" "id:1,phase:1,log,pass"');
    const bad: RequestSpec = {
      headers: [
        ['Host', 'h'],
        ['User-Agent', 'bad'],
      ],
    };
    expect(inspect(bad)).toEqual(['1']);
    expect(inspect(bad)).toEqual(['1']);
  });
});
