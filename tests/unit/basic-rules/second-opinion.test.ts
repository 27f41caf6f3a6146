import { describe, expect, it } from 'vitest';
import {
  BlockHistory,
  opinionText,
  RequestRate,
  weigh,
  type OpinionInput,
} from '../../../engine/basic-rules/second-opinion.ts';
import type { LearnedFit } from '../../../engine/basic-rules/learned-normal.ts';
import type { ProbeSignal } from '#engine/verdict';
import type { MatchedRule } from '#engine/waf';
import { matchedRule } from '../../support/matched-rule.ts';

const match = matchedRule;

const sqlPl2 = (value: string, id = '942260'): MatchedRule =>
  match(id, 'ARGS:q', value, ['attack-sqli', 'paranoia-level/2']);
const xssPl2 = (value: string): MatchedRule => match('941320', 'ARGS:body', value, ['attack-xss', 'paranoia-level/2']);
const sqlPl1 = (value: string): MatchedRule => match('942100', 'ARGS:q', value, ['attack-sqli']);
const rcePl2 = (value: string): MatchedRule => match('932200', 'ARGS:cmd', value, ['attack-rce', 'paranoia-level/2']);

const NONE: ProbeSignal = { result: 'none', tokenAgeMs: null };
const BROWSER: ProbeSignal = { result: 'browser', tokenAgeMs: 20_000 };
const BOT: ProbeSignal = { result: 'bot', tokenAgeMs: 20_000 };

const input = (matched: MatchedRule[], extra: Partial<OpinionInput> = {}): OpinionInput => ({
  matched,
  score: matched.length * 5,
  threshold: 5,
  probe: NONE,
  earlierBlocks: 0,
  recentRequests: 1,
  ...extra,
});

describe('the second opinion', () => {
  it('clears a level-2 SQL rule that fired on prose with an apostrophe', () => {
    const opinion = weigh(input([sqlPl2("it's the owner's choice, isn't it")]))!;
    expect(opinion).toMatchObject({ blocked: false, score: 0 });
    expect(opinion.signals).toEqual([{ kind: 'tokenizer', points: -5, detail: '942260 ARGS:q: no SQL' }]);
  });

  it('keeps a level-2 SQL rule when the tokenizer finds SQL in the value', () => {
    const opinion = weigh(input([sqlPl2("1' or '1'='1")]))!;
    expect(opinion.blocked).toBe(true);
    expect(opinion.signals[0]).toMatchObject({ kind: 'tokenizer', points: 0, detail: '942260 ARGS:q: SQL confirmed' });
  });

  it('keeps template and call syntax that a level-2 SQL rule caught in passing', () => {
    for (const value of [
      '{{7*7}}{{config.items()}}',
      "{{''.__class__.__mro__[1]}}",
      "require('child_process').exec('id')",
    ]) {
      const opinion = weigh(input([sqlPl2(value)]))!;
      expect(opinion.blocked, value).toBe(true);
      expect(opinion.signals[0]?.detail).toBe('942260 ARGS:q: template or call syntax confirmed');
    }
    expect(weigh(input([sqlPl2('f(x) = x^2 + 1 (see above).')]))!.blocked).toBe(false);
  });

  it('clears rich-text markup but keeps an event handler', () => {
    expect(weigh(input([xssPl2('<p>Hello <b>there</b></p>')]))!.blocked).toBe(false);
    expect(weigh(input([xssPl2('<img src=x onerror=alert(1)>')]))!.blocked).toBe(true);
  });

  it('never discounts a level-1 rule, and has no opinion on a block of level-1 rules only', () => {
    expect(weigh(input([sqlPl1("it's fine")]))).toBeNull();
    const mixed = weigh(input([sqlPl1("it's fine"), sqlPl2("it's fine")]))!;
    expect(mixed).toMatchObject({ blocked: true, score: 5 });
  });

  it('lets a probed browser take up to 3 points off rules it has no tokenizer for', () => {
    const rce = rcePl2('ping pong table');
    expect(weigh(input([rce], { probe: BROWSER, score: 5 }))).toMatchObject({ blocked: false, score: 2 });
    // Two such rules (10 points): the credit is 3, so it stays blocked.
    expect(weigh(input([rce, { ...rce, id: '932210' }], { probe: BROWSER }))).toMatchObject({
      blocked: true,
      score: 7,
    });
    expect(weigh(input([rce]))).toMatchObject({ blocked: true, score: 5 });
  });

  it('counts the client against it: recent blocks and automation add points', () => {
    const prose = sqlPl2("it's fine");
    const history = weigh(input([prose], { earlierBlocks: 2 }))!;
    expect(history).toMatchObject({ blocked: false, score: 4 });
    expect(weigh(input([prose], { earlierBlocks: 3 }))).toMatchObject({ blocked: true, score: 6 });
    expect(weigh(input([prose], { earlierBlocks: 10 }))).toMatchObject({ score: 6 });
    expect(weigh(input([prose], { probe: BOT }))).toMatchObject({ blocked: false, score: 3 });
    expect(weigh(input([prose], { probe: BOT, earlierBlocks: 1 }))).toMatchObject({ blocked: true, score: 5 });
  });

  it('gives a browser that has held its token for minutes, with no recent block, one point more', () => {
    const rce = rcePl2('ping pong table');
    const settled: ProbeSignal = { result: 'browser', tokenAgeMs: 12 * 60_000 };
    const two = [rce, { ...rce, id: '932210' }];
    const opinion = weigh(input(two, { probe: settled }))!;
    expect(opinion).toMatchObject({ blocked: true, score: 6 });
    expect(opinion.signals).toEqual([{ kind: 'probe', points: -4, detail: 'probed browser, token 12 min old' }]);
    expect(weigh(input([rce], { probe: settled, score: 5 }))).toMatchObject({ blocked: false, score: 1 });
    // A block in the last hour: the session is not settled, and the block counts.
    expect(weigh(input(two, { probe: settled, earlierBlocks: 1 }))).toMatchObject({ score: 9 });
    // A token just issued: the probe's usual credit.
    expect(weigh(input(two, { probe: { result: 'browser', tokenAgeMs: 4 * 60_000 } }))).toMatchObject({ score: 7 });
  });

  it('adds points for a client that sends hundreds of requests a minute', () => {
    const rce = rcePl2('ping pong table');
    expect(weigh(input([rce], { probe: BROWSER, recentRequests: 299 }))).toMatchObject({ blocked: false, score: 2 });
    const fast = weigh(input([rce], { probe: BROWSER, recentRequests: 300 }))!;
    expect(fast).toMatchObject({ blocked: false, score: 4 });
    expect(fast.signals.at(-1)).toEqual({ kind: 'rate', points: 2, detail: '300 requests in the last minute' });
    expect(weigh(input([rce], { probe: BROWSER, recentRequests: 300, earlierBlocks: 1 }))!.blocked).toBe(true);
  });

  it('weighs a matched parameter against the site’s learned normal', () => {
    const rce = rcePl2('ping pong table');
    const usual: LearnedFit = { fit: 'usual', detail: 'ARGS:cmd on /tools: letters, spaces, up to 31 characters' };
    const unusual: LearnedFit = { fit: 'unusual', detail: 'ARGS:cmd on /tools: quotes not usual there' };
    let asked = 0;
    const learned = (fit: LearnedFit | null) => (m: MatchedRule) => {
      asked++;
      return m.variable === 'ARGS:cmd' ? fit : null;
    };
    // Two rules on the same parameter: judged once; usual takes 2 off, beside the probe's 3.
    const two = [rce, { ...rce, id: '932210' }];
    const opinion = weigh(input(two, { probe: BROWSER, learned: learned(usual) }))!;
    expect(asked).toBe(1);
    expect(opinion).toMatchObject({ blocked: true, score: 5, threshold: 5 });
    expect(opinion.signals).toEqual([
      { kind: 'probe', points: -3, detail: 'probed browser' },
      { kind: 'learned', points: -2, detail: usual.detail },
    ]);
    // Credits never take off more than the rules' own points.
    expect(weigh(input([rce], { probe: BROWSER, score: 5, learned: learned(usual) }))).toMatchObject({ score: 0 });
    expect(weigh(input([rce], { score: 5, learned: learned(usual) }))).toMatchObject({ blocked: false, score: 3 });
    const odd = weigh(input([rce], { probe: BROWSER, score: 5, learned: learned(unusual) }))!;
    expect(odd).toMatchObject({ blocked: false, score: 4 });
    expect(odd.signals.at(-1)).toEqual({ kind: 'learned', points: 2, detail: unusual.detail });
    // No profile that speaks: nothing from the learned normal.
    expect(weigh(input([rce], { probe: BROWSER, score: 5, learned: learned(null) }))).toMatchObject({ score: 2 });
    // The SQL and XSS families are the tokenizers' to judge.
    expect(weigh(input([sqlPl2("1' or '1'='1")], { learned: learned(usual) }))!.signals).toHaveLength(1);
  });

  it('words what it weighed for the access record', () => {
    const opinion = weigh(input([sqlPl2("it's fine"), rcePl2('ping pong')], { probe: BROWSER, earlierBlocks: 1 }))!;
    expect(opinionText(10, opinion)).toBe(
      'cleared 10 -> 4 (threshold 5): 942260 ARGS:q: no SQL -5; probed browser -3; 1 block in the last hour +2',
    );
  });
});

describe('the block history', () => {
  it('counts a client’s blocks on a site within the last hour', () => {
    const history = new BlockHistory();
    history.record('s1', '10.0.0.1', 0);
    history.record('s1', '10.0.0.1', 1_800_000);
    history.record('s2', '10.0.0.1', 1_800_000);
    expect(history.count('s1', '10.0.0.1', 1_900_000)).toBe(2);
    expect(history.count('s1', '10.0.0.1', 3_700_000)).toBe(1);
    expect(history.count('s1', '10.0.0.2', 0)).toBe(0);
    history.forget('s1');
    expect(history.count('s1', '10.0.0.1', 1_900_000)).toBe(0);
    expect(history.count('s2', '10.0.0.1', 1_900_000)).toBe(1);
  });
});

describe('the request rate', () => {
  it('counts a client’s requests to a site over the last minute', () => {
    const rate = new RequestRate();
    for (let i = 0; i < 100; i++) rate.hit('s1', '10.0.0.1', 30_000 + i);
    expect(rate.hit('s1', '10.0.0.1', 59_999)).toBe(101);
    expect(rate.hit('s2', '10.0.0.1', 59_999)).toBe(1);
    // A quarter into the next minute, three quarters of the previous one still count.
    expect(rate.hit('s1', '10.0.0.1', 75_000)).toBe(1 + 75);
    // Two minutes later nothing of it is left.
    expect(rate.hit('s1', '10.0.0.1', 200_000)).toBe(1);
    rate.forget('s1');
    expect(rate.hit('s1', '10.0.0.1', 200_001)).toBe(1);
  });
});
