import { describe, expect, it } from 'vitest';
import { checkAtNormal, levelCheckText } from '../../../engine/basic-rules/confirmation.ts';
import { weigh } from '../../../engine/basic-rules/second-opinion.ts';
import { matchedRule } from '../../support/matched-rule.ts';

const match = matchedRule;

const NORMAL_SQL = new Set(['942']);
const prose = match('942260', 'ARGS:q', "let's select the best option from the list", [
  'attack-sqli',
  'paranoia-level/2',
]);

describe('the tokenizer check of level normal', () => {
  it('takes the points of a level-2 SQL match off when the value holds no SQL', () => {
    const check = checkAtNormal([prose], 5, 5, NORMAL_SQL);
    expect(check).toMatchObject({ score: 0, blocked: false });
    expect(levelCheckText(5, check!, 5)).toBe('cleared 5 -> 0 (threshold 5): 942260 ARGS:q: no SQL -5');
  });

  it('keeps SQL, script and template syntax the tokenizers or the syntax check find', () => {
    const sql = match('942200', 'ARGS:id', "1' or '1'='1", ['attack-sqli', 'paranoia-level/2']);
    const script = match('941320', 'ARGS:bio', '<img src=x onerror=alert(1)>', ['attack-xss', 'paranoia-level/2']);
    const template = match('942370', 'ARGS:q', "{{7*7}} 'x'", ['attack-sqli', 'paranoia-level/2']);
    const check = checkAtNormal([sql, script, template], 15, 5, new Set(['942', '941']));
    expect(check).toMatchObject({ score: 15, blocked: true });
    expect(check!.signals.map((s) => s.detail)).toEqual([
      '942200 ARGS:id: SQL confirmed',
      '941320 ARGS:bio: script confirmed',
      '942370 ARGS:q: template or call syntax confirmed',
    ]);
  });

  it('keeps SQL the tokenizer cannot read whole: fragments with SQL punctuation next to their keywords', () => {
    const sql = (value: string) => match('942210', 'ARGS:pay', value, ['attack-sqli', 'paranoia-level/2']);
    for (const value of [
      '1 GROUP BY CONCAT(0x716a787671,(SELECT MID((IFNULL(CAST(a AS CHAR),0x20)),1,54) FROM users',
      "EmptyValue into outfile '\\\\host\\share'; --",
      'from `db_miwf`.`sys_refindex` limit',
      "x);declare @q varchar(99);set @q='a'",
      "encode(lo_get(16400),'base64')::int",
      'name=(select * from',
      'DROP sampletable;--',
    ]) {
      const check = checkAtNormal([sql(value)], 5, 5, NORMAL_SQL)!;
      expect(check.signals[0]?.detail, value).toBe('942210 ARGS:pay: SQL syntax confirmed');
    }
  });

  it('clears prose that only looks like those fragments', () => {
    for (const value of [
      'Colour (select one)',
      'Done; update me later',
      'std::vector<int> v;',
      'Apartment 4 #12',
      'he said "no" -- and left',
      'colour 0x1F',
      'Please select your size; then insert it into the slot',
      "Union select committee: 'members' meet at 5",
    ]) {
      const prose = match('942260', 'ARGS:q', value, ['attack-sqli', 'paranoia-level/2']);
      expect(checkAtNormal([prose], 5, 5, NORMAL_SQL)?.blocked, value).toBe(false);
    }
  });

  it('looks only at level-2 SQL and XSS matches of the groups at normal', () => {
    const levelOne = match('942100', 'ARGS:q', 'select the best', ['attack-sqli']);
    const rce = match('932200', 'ARGS:q', 'ping pong table', ['attack-rce', 'paranoia-level/2']);
    expect(checkAtNormal([levelOne, rce], 10, 5, new Set(['942', '932']))).toBeNull();
    // A match on a capture (CRS 4's chained 942130 reports TX:1, the `1` of `1=1`) is not checked.
    const capture = match('942130', 'TX:1', '1', ['attack-sqli', 'paranoia-level/2']);
    expect(checkAtNormal([capture], 5, 5, NORMAL_SQL)).toBeNull();
    // 942 at strict (not named): CRS's rule counts as written.
    expect(checkAtNormal([prose], 5, 5, new Set(['941']))).toBeNull();
  });

  it('leaves a request blocked when other matches still reach the threshold', () => {
    const levelOne = match('942100', 'ARGS:id', "1' or 1=1", ['attack-sqli']);
    const check = checkAtNormal([levelOne, prose], 10, 5, NORMAL_SQL);
    expect(check).toMatchObject({ score: 5, blocked: true });
    expect(levelCheckText(10, check!, 5)).toBe('kept 10 -> 5 (threshold 5): 942260 ARGS:q: no SQL -5');
  });

  it('is not repeated by the second opinion', () => {
    const check = checkAtNormal([prose], 10, 5, NORMAL_SQL)!;
    const opinion = weigh({
      matched: [prose],
      score: check.score,
      threshold: 5,
      probe: { result: 'none', tokenAgeMs: null },
      earlierBlocks: 0,
      recentRequests: 1,
      checked: check.checked,
    });
    expect(opinion).toEqual({ blocked: true, score: 5, threshold: 5, signals: [] });
  });
});
