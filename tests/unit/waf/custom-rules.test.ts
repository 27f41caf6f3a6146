import { describe, expect, it } from 'vitest';
import { compileCustomRules, patternProblem, type CustomRequest, type CustomRuleSpec } from '#engine/waf';

function request(over: Partial<CustomRequest> = {}): CustomRequest {
  return {
    url: '/shop/item?id=42&q=blue',
    params: [
      ['id', '42'],
      ['q', 'blue'],
    ],
    headers: [
      ['host', 'shop.example.com'],
      ['user-agent', 'Mozilla/5.0'],
      ['x-api-version', '2'],
    ],
    cookies: [['session', 'abc']],
    referer: 'https://shop.example.com/',
    userAgent: 'Mozilla/5.0',
    body: '',
    sourceIp: '198.51.100.7',
    ...over,
  };
}

const rule = (
  location: CustomRuleSpec['location'],
  conditions: CustomRuleSpec['conditions'],
  id = 'r1',
): CustomRuleSpec => ({
  id,
  location,
  conditions,
});

describe('custom rule patterns', () => {
  it('accepts ordinary regexes and refuses broken or non-linear ones with a reason', () => {
    expect(patternProblem('^/admin(/|$)')).toBeNull();
    expect(patternProblem('(a+)+$')).toBeNull();
    expect(patternProblem('')).toMatch(/empty/);
    expect(patternProblem('(unclosed')).toMatch(/not a valid regular expression/);
    expect(patternProblem('(a)\\1')).toMatch(/linear time/);
    expect(patternProblem('(?=a)b')).toMatch(/linear time/);
    expect(patternProblem('x'.repeat(2000))).toMatch(/at most/);
  });

  it('(a+)+$ against a 50 KB parameter finishes within 50 ms', () => {
    const matcher = compileCustomRules([
      rule('param_value', [{ location: 'param_value', name: '.*', pattern: '(a+)+$' }]),
    ]);
    const value = `${'a'.repeat(50 * 1024)}!`;
    const started = performance.now();
    const fired = matcher.match(request({ params: [['p', value]] }));
    const ms = performance.now() - started;
    expect(fired).toEqual([]);
    expect(ms).toBeLessThan(50);
  });
});

describe('custom rule matching', () => {
  it('matches single locations', () => {
    const cases: [CustomRuleSpec, Partial<CustomRequest>][] = [
      [rule('url', [{ location: 'url', name: '', pattern: '^/shop/' }]), {}],
      [rule('param_name', [{ location: 'param_name', name: '', pattern: '^q$' }]), {}],
      [rule('header_name', [{ location: 'header_name', name: '', pattern: '^x-api-' }]), {}],
      [rule('referer', [{ location: 'referer', name: '', pattern: 'example\\.com' }]), {}],
      [rule('user_agent', [{ location: 'user_agent', name: '', pattern: 'sqlmap' }]), { userAgent: 'sqlmap/1.7' }],
      [rule('cookie_name', [{ location: 'cookie_name', name: '', pattern: '^session$' }]), {}],
      [rule('body', [{ location: 'body', name: '', pattern: 'DROP TABLE' }]), { body: 'x=1; DROP TABLE users' }],
      [rule('source_ip', [{ location: 'source_ip', name: '', pattern: '^198\\.51\\.100\\.' }]), {}],
    ];
    for (const [spec, over] of cases)
      expect(compileCustomRules([spec]).match(request(over)), spec.location).toEqual(['r1']);
    expect(
      compileCustomRules([rule('url', [{ location: 'url', name: '', pattern: '^/admin' }])]).match(request()),
    ).toEqual([]);
  });

  it('pairs a name regex (whole name, .* = any) with a value regex', () => {
    const byName = compileCustomRules([
      rule('param_value', [{ location: 'param_value', name: 'id', pattern: '^\\d+$' }]),
    ]);
    expect(byName.match(request())).toEqual(['r1']);
    expect(byName.match(request({ params: [['userid', '42']] }))).toEqual([]);
    const anyName = compileCustomRules([
      rule('header_value', [{ location: 'header_value', name: '.*', pattern: '^2$' }]),
    ]);
    expect(anyName.match(request())).toEqual(['r1']);
    const cookie = compileCustomRules([
      rule('cookie_value', [{ location: 'cookie_value', name: 'session', pattern: 'zzz' }]),
    ]);
    expect(cookie.match(request())).toEqual([]);
  });

  it('"all" fires when every condition matches, "any" when one does', () => {
    const conditions = [
      { location: 'url' as const, name: '', pattern: '^/shop/' },
      { location: 'user_agent' as const, name: '', pattern: 'curl' },
    ];
    expect(compileCustomRules([rule('all', conditions)]).match(request())).toEqual([]);
    expect(compileCustomRules([rule('all', conditions)]).match(request({ userAgent: 'curl/8' }))).toEqual(['r1']);
    expect(compileCustomRules([rule('any', conditions)]).match(request())).toEqual(['r1']);
  });

  it('reports every rule that fires, in order', () => {
    const matcher = compileCustomRules([
      rule('url', [{ location: 'url', name: '', pattern: 'item' }], 'a'),
      rule('url', [{ location: 'url', name: '', pattern: 'nothing' }], 'b'),
      rule('param_name', [{ location: 'param_name', name: '', pattern: 'q' }], 'c'),
    ]);
    expect(matcher.match(request())).toEqual(['a', 'c']);
  });
});
