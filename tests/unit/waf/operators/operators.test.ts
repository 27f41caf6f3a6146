import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OPERATORS } from '#engine/waf/operators';
import type { CompileEnv, MatchState, OperatorFn } from '../../../../engine/waf/types.ts';

const DATA: Record<string, string[]> = {
  'words.data': ['# comment', '', '   ', 'union select', 'Passwd', '  # indented comment', 'boot.ini\r'],
  'ips.data': ['# office', '10.0.0.0/8', '', '2001:db8::/32'],
};
const env: CompileEnv = {
  readDataFile(name) {
    const lines = DATA[name];
    if (!lines) throw new Error(`no data file ${name}`);
    return lines;
  },
};

function op(name: string, argument = ''): OperatorFn {
  const def = OPERATORS.get(name.toLowerCase());
  if (!def) throw new Error(`no operator ${name}`);
  return def.compile(argument, env);
}

function state(capture = false): MatchState {
  return { capture, captures: [] };
}

function run(name: string, argument: string, input: string): boolean {
  return op(name, argument)(input, state());
}

describe('operator table', () => {
  it('holds every operator CRS 3.3.4 and v4 use, keyed by lower-case name', () => {
    for (const name of [
      'rx',
      'pm',
      'pmfromfile',
      'pmf',
      'detectsqli',
      'detectxss',
      'eq',
      'ge',
      'gt',
      'lt',
      'le',
      'within',
      'contains',
      'containsword',
      'beginswith',
      'endswith',
      'streq',
      'strmatch',
      'ipmatch',
      'ipmatchfromfile',
      'ipmatchf',
      'validatebyterange',
      'validateurlencoding',
      'validateutf8encoding',
      'unconditionalmatch',
      'nomatch',
      'geolookup',
      'rbl',
    ]) {
      expect(OPERATORS.has(name), name).toBe(true);
    }
  });
});

describe('@rx', () => {
  it('matches with ModSecurity flags: dot matches newline, $ only at the very end', () => {
    expect(run('rx', 'a.b', 'a\nb')).toBe(true);
    expect(run('rx', 'b$', 'ab\n')).toBe(false);
  });

  it('fills captures 0 to 9 when the rule captures, undefined for groups that did not take part', () => {
    const s = state(true);
    expect(op('rx', '(?i)(union)\\s+(all\\s+)?(select)')('x UNION  SELECT y', s)).toBe(true);
    expect(s.captures.slice(0, 5)).toEqual(['UNION  SELECT', 'UNION', undefined, 'SELECT', undefined]);
    expect(s.captures).toHaveLength(10);
  });

  it('keeps PCRE group numbers when atomic groups add helper groups', () => {
    const s = state(true);
    expect(op('rx', '(?>a+)(b)')('aab', s)).toBe(true);
    expect(s.captures[1]).toBe('b');
  });

  it('leaves captures alone when the rule does not capture', () => {
    const s = state(false);
    op('rx', '(a)')('a', s);
    expect(s.captures).toEqual([]);
  });

  it('treats an empty pattern as matching everything', () => {
    expect(run('rx', '', '')).toBe(true);
  });

  it('reports an untranslatable pattern at compile time', () => {
    expect(() => op('rx', '(?R)')).toThrow(/Cannot translate/);
  });
});

describe('@pm and @pmFromFile', () => {
  it('finds any phrase, case-insensitively, anywhere in the input', () => {
    const pm = op('pm', 'document.cookie <!-- ?>');
    expect(pm('x=DOCUMENT.Cookie', state())).toBe(true);
    expect(pm('a ?> b', state())).toBe(true);
    expect(pm('document.cook', state())).toBe(false);
  });

  it('finds phrases that overlap or hide inside others (fail links)', () => {
    const pm = op('pm', 'abcd bc cde');
    expect(pm('xxabce', state())).toBe(true);
    expect(op('pm', 'abcd cdx')('abcdx', state())).toBe(true);
    expect(op('pm', 'she he hers')('ahe', state())).toBe(true);
  });

  it('captures the phrase found', () => {
    const s = state(true);
    expect(op('pm', 'AppleWebKit Android')('Mozilla android', s)).toBe(true);
    expect(s.captures[0]).toBe('Android');
  });

  it('decodes |hex| bytes and escapes in the argument', () => {
    expect(run('pm', 'a|00|b', 'xa\0by')).toBe(true);
    expect(run('pm', '"quoted\\:x"', 'QUOTED:X')).toBe(true);
  });

  it('reads data files one phrase per line, skipping blanks and comments', () => {
    const pmf = op('pmFromFile', 'words.data');
    expect(pmf('1 UNION SELECT 2', state())).toBe(true);
    expect(pmf('/etc/passwd', state())).toBe(true);
    expect(pmf('c:\\boot.ini', state())).toBe(true);
    expect(pmf('# comment', state())).toBe(false);
    expect(pmf('union', state())).toBe(false);
    expect(op('pmf', 'words.data')('passwd', state())).toBe(true);
  });
});

const detectPresent = existsSync(fileURLToPath(new URL('../../../../engine/waf/detect/index.ts', import.meta.url)));

describe('@detectSQLi and @detectXSS', () => {
  it.skipIf(!detectPresent)('detectSQLi flags a classic injection and captures a fingerprint', () => {
    const s = state(true);
    expect(op('detectSQLi')("1' OR '1'='1", s)).toBe(true);
    expect(typeof s.captures[0]).toBe('string');
    expect(op('detectSQLi')('hello world', state())).toBe(false);
  });

  it.skipIf(!detectPresent)('detectXSS flags a script tag', () => {
    expect(op('detectXSS')('<script>alert(1)</script>', state())).toBe(true);
    expect(op('detectXSS')('hello world', state())).toBe(false);
  });
});

describe('numeric comparisons', () => {
  it('read the leading integer of both sides; non-numbers are 0', () => {
    expect(run('eq', '0', '')).toBe(true);
    expect(run('eq', '0', 'abc')).toBe(true);
    expect(run('eq', '12', ' 12abc')).toBe(true);
    expect(run('gt', '5', '6')).toBe(true);
    expect(run('gt', '5', '5')).toBe(false);
    expect(run('ge', '5', '5')).toBe(true);
    expect(run('lt', '2', '1')).toBe(true);
    expect(run('lt', '2', '-3')).toBe(true);
    expect(run('le', '2', '2')).toBe(true);
    expect(run('le', '2', '+3')).toBe(false);
  });
});

describe('string operators', () => {
  it('@within finds the input inside the argument', () => {
    const w = op('within', 'GET HEAD POST OPTIONS');
    expect(w('POST', state())).toBe(true);
    expect(w('DELETE', state())).toBe(false);
    expect(w('', state())).toBe(true);
    expect(run('within', '|application/json| |text/xml|', '|text/xml|')).toBe(true);
  });

  it('@contains, @beginsWith, @endsWith, @streq, @strmatch are case-sensitive', () => {
    expect(run('contains', 'passwd', '/etc/passwd')).toBe(true);
    expect(run('contains', 'passwd', '/etc/PASSWD')).toBe(false);
    expect(run('beginsWith', 'GET', 'GET /')).toBe(true);
    expect(run('endsWith', '.php', '/x.php')).toBe(true);
    expect(run('endsWith', '.php', '/x.php5')).toBe(false);
    expect(run('streq', 'POST', 'POST')).toBe(true);
    expect(run('streq', 'POST', 'post')).toBe(false);
    expect(run('strmatch', 'WebZIP', 'Mozilla WebZIP/3')).toBe(true);
  });

  it('@contains captures the argument', () => {
    const s = state(true);
    op('contains', 'abc')('xabcx', s);
    expect(s.captures[0]).toBe('abc');
  });

  it('@containsWord needs word boundaries', () => {
    expect(run('containsWord', 'select', '1 select 2')).toBe(true);
    expect(run('containsWord', 'select', 'selected')).toBe(false);
    expect(run('containsWord', 'select', 'preselect select')).toBe(true);
  });

  it('@unconditionalMatch always, @noMatch, @geoLookup and @rbl never match', () => {
    expect(run('unconditionalMatch', '', 'x')).toBe(true);
    expect(run('noMatch', '', 'x')).toBe(false);
    expect(run('geoLookup', '', '1.2.3.4')).toBe(false);
    expect(run('rbl', 'sbl.spamhaus.org', '1.2.3.4')).toBe(false);
  });
});

describe('@ipMatch', () => {
  it('matches IPv4 and IPv6 addresses and networks', () => {
    const m = op('ipMatch', '127.0.0.1,::1, 192.168.0.0/16,2001:db8::/32');
    expect(m('127.0.0.1', state())).toBe(true);
    expect(m('127.0.0.2', state())).toBe(false);
    expect(m('192.168.44.5', state())).toBe(true);
    expect(m('::1', state())).toBe(true);
    expect(m('0:0:0:0:0:0:0:1', state())).toBe(true);
    expect(m('2001:db8:1::7', state())).toBe(true);
    expect(m('2001:db9::7', state())).toBe(false);
    expect(m('not an ip', state())).toBe(false);
  });

  it('handles odd prefix lengths and embedded IPv4', () => {
    expect(run('ipMatch', '10.1.2.128/25', '10.1.2.200')).toBe(true);
    expect(run('ipMatch', '10.1.2.128/25', '10.1.2.100')).toBe(false);
    expect(run('ipMatch', '::ffff:10.0.0.0/104', '::ffff:10.9.8.7')).toBe(true);
  });

  it('rejects a bad address at compile time', () => {
    expect(() => op('ipMatch', '300.1.1.1')).toThrow(/invalid IP/);
  });

  it('@ipMatchFromFile reads one network per line', () => {
    const m = op('ipMatchFromFile', 'ips.data');
    expect(m('10.20.30.40', state())).toBe(true);
    expect(m('2001:db8::1', state())).toBe(true);
    expect(m('11.0.0.1', state())).toBe(false);
  });
});

describe('validation operators', () => {
  it('@validateByteRange matches a byte outside the ranges', () => {
    const v = op('validateByteRange', '9,10,13,32-126');
    expect(v('hello world\r\n', state())).toBe(false);
    expect(v('nul\0', state())).toBe(true);
    expect(v('\x7f', state())).toBe(true);
    expect(v('', state())).toBe(false);
    expect(run('validateByteRange', '1-255', 'a\0')).toBe(true);
    expect(() => op('validateByteRange', '10-5')).toThrow(/invalid range/);
  });

  it('@validateUrlEncoding matches bad or truncated escapes', () => {
    const v = op('validateUrlEncoding');
    expect(v('/a%20b%2F', state())).toBe(false);
    expect(v('/a%zz', state())).toBe(true);
    expect(v('/a%4', state())).toBe(true);
    expect(v('%', state())).toBe(true);
    expect(v('', state())).toBe(false);
  });

  it('@validateUtf8Encoding matches malformed UTF-8', () => {
    const v = op('validateUtf8Encoding');
    expect(v('plain', state())).toBe(false);
    expect(v('caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80', state())).toBe(false);
    expect(v('\xc0\xaf', state())).toBe(true); // overlong '/'
    expect(v('\xc3', state())).toBe(true); // truncated
    expect(v('\xc3A', state())).toBe(true); // bad continuation
    expect(v('\xed\xa0\x80', state())).toBe(true); // surrogate
    expect(v('\xf4\x90\x80\x80', state())).toBe(true); // above U+10FFFF
    expect(v('\xff', state())).toBe(true);
  });
});
