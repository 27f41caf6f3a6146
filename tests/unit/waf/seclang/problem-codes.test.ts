/**
 * Every rule-set problem names a code and its parameters beside the English message, so the console
 * can say it in its own language: representative broken rule files, parsed, loaded and compiled.
 */
import { describe, expect, it } from 'vitest';
import { parseSecLang } from '#engine/waf/seclang';
import { compileRuleSet } from '#engine/waf/engine';
import { PARSE_PROBLEM_CODES } from '../../../../engine/waf/problems.ts';
import { OPS, TRANSFORMS } from '../engine/stand-ins.ts';

const FILE = '/rules/REQUEST-901-INITIALIZATION.conf';

/** The problems of one rule file as [line, code, params]. */
function parsed(text: string): [number, string, Readonly<Record<string, string | number>>][] {
  return parseSecLang(text, FILE).problems.map((p) => [p.line, p.code, p.params]);
}

function compiled(text: string): [number, string, Readonly<Record<string, string | number>>][] {
  const { directives, problems } = parseSecLang(text, FILE);
  expect(problems).toEqual([]);
  const result = compileRuleSet({ directives, operators: OPS, transformations: TRANSFORMS, dataFiles: new Map() });
  return result.problems.map((p) => [p.line, p.code, p.params]);
}

describe('rule-set problems as codes with parameters', () => {
  it('names an unknown operator, variable and action, and the directive they are in', () => {
    expect(
      parsed(
        [
          'SecRule ARGS "@foo bar" "id:1,phase:2,deny"',
          'SecRule NOPE "@rx a" "id:2,phase:2,deny"',
          'SecRule ARGS "@rx a" "id:3,phase:2,explode"',
          'SecRuleUpdateActionById 4 "explode"',
        ].join('\n'),
      ),
    ).toEqual([
      [1, 'unknown_operator', { in: 'SecRule', operator: 'foo' }],
      [2, 'unknown_variable', { in: 'SecRule', variable: 'NOPE' }],
      [3, 'unknown_action', { in: 'SecRule', action: 'explode' }],
      [4, 'unknown_action', { in: 'SecRuleUpdateActionById', action: 'explode' }],
    ]);
  });

  it('names quoting mistakes with their column, and unknown directives', () => {
    expect(parsed('SecRule ARGS "@rx a\nSecRuleEngin On\nSecRule ARGS "@rx a"x "id:5"')).toEqual([
      [1, 'unterminated_quote', { in: 'SecRule', quote: 'double', column: 14 }],
      [2, 'unknown_directive', { directive: 'SecRuleEngin' }],
      [3, 'text_after_quote', { in: 'SecRule', column: 21, text: 'x "id:5"' }],
    ]);
  });

  it('names argument-count and chain problems with the rule and the counts', () => {
    expect(
      parsed(
        [
          'SecRule ARGS "@rx a" "id:6,phase:2,deny,chain"',
          'SecMarker',
          'SecAction "phase:1,pass"',
          'SecRule ARGS "@rx a" "id:7,phase:2" extra',
          'SecRuleRemoveById 10-x',
          'SecDefaultAction "log,pass"',
          'SecRule ARGS "@rx" "id:8"',
          'SecRule ARGS|',
        ].join('\n'),
      ),
    ).toEqual([
      [1, 'chain_not_followed', { rule: '6', ruleLine: 1, next: 'SecMarker', nextLine: 2 }],
      [2, 'marker_arguments', { count: 0 }],
      [3, 'missing_id', { directive: 'SecAction' }],
      [4, 'rule_extra_arguments', { count: 4, extra: 'extra' }],
      [5, 'bad_id_range', { directive: 'SecRuleRemoveById', value: '10-x' }],
      [6, 'default_action_phase', {}],
      [7, 'operator_argument_missing', { in: 'SecRule', operator: 'rx' }],
      [8, 'rule_missing_operator', { variables: 'ARGS|' }],
    ]);
  });

  it('names what the compiler leaves out', () => {
    expect(
      compiled(
        [
          'SecRule ARGS "@rx a" "id:9,phase:2,t:nope,deny"',
          'SecRule ARGS "@rx a" "id:10,phase:9,deny"',
          'SecRule ARGS "@rx a" "id:11,phase:2,deny,ctl:nope=1"',
          'SecRule ARGS "@rx a" "id:11,phase:2,deny"',
        ].join('\n'),
      ),
    ).toEqual([
      [1, 'unknown_transformation', { transformation: 'nope' }],
      [2, 'bad_phase', { value: '9' }],
      [3, 'unsupported_ctl', { ctl: 'nope' }],
    ]);
  });

  it('keeps the English message for logs', () => {
    const [problem] = parseSecLang('SecRule ARGS "@foo bar" "id:1"', FILE).problems;
    expect(problem).toMatchObject({ message: 'SecRule: unknown operator @foo', code: 'unknown_operator' });
  });

  it('has each code once', () => {
    expect(new Set(PARSE_PROBLEM_CODES).size).toBe(PARSE_PROBLEM_CODES.length);
  });
});
