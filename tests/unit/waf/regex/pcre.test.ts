import { describe, expect, it } from 'vitest';
import { translatePcre, type PcreOptions } from '#engine/waf/regex';

const RX: PcreOptions = { dotall: true, dollarEndOnly: true };

function re(pattern: string, options: PcreOptions = RX): RegExp {
  const t = translatePcre(pattern, options);
  expect(t.flags).not.toContain('u');
  return new RegExp(t.source, t.flags);
}

function matches(pattern: string, input: string, options: PcreOptions = RX): boolean {
  return re(pattern, options).test(input);
}

describe('inline flags', () => {
  it('a leading (?i) makes the whole pattern caseless', () => {
    expect(matches('(?i)select', 'SeLeCt')).toBe(true);
  });

  it('(?i) after ^ still covers the rest of the pattern', () => {
    expect(matches('^(?i)multipart/form-data', 'MULTIPART/FORM-DATA')).toBe(true);
  });

  it('a scoped (?i:...) group is caseless only inside', () => {
    expect(matches('a(?i:b)c', 'aBc')).toBe(true);
    expect(matches('a(?i:b)c', 'ABc')).toBe(false);
    expect(matches('a(?i:b)c', 'aBC')).toBe(false);
  });

  it('(?i) mid-group lasts to the end of that group, including later alternatives', () => {
    expect(matches('^(a(?i)b|c)$', 'aB')).toBe(true);
    expect(matches('^(a(?i)b|c)$', 'C')).toBe(true);
    expect(matches('^(a(?i)b|c)$', 'AB')).toBe(false);
    expect(matches('^(?:x(?i)y)z$', 'xYz')).toBe(true);
    expect(matches('^(?:x(?i)y)z$', 'xYZ')).toBe(false);
  });

  it('(?-i) turns caselessness off again', () => {
    expect(matches('^(?i)ab(?-i)c$', 'ABc')).toBe(true);
    expect(matches('^(?i)ab(?-i)c$', 'ABC')).toBe(false);
  });

  it('caseless classes fold ASCII letters only, like PCRE in the C locale', () => {
    expect(matches('(?i)^[a-c]+$', 'AbC')).toBe(true);
    expect(matches('(?i)^[^a]$', 'A')).toBe(false);
    expect(matches('(?i)\\xe9', '\xc9')).toBe(false);
    expect(matches('(?i)\\xe9', '\xe9')).toBe(true);
  });

  it('caseless backreferences compare caselessly', () => {
    expect(matches('(?i)^(ab)\\1$', 'abAB')).toBe(true);
  });

  it('(?s) and (?m) scope dot and anchors', () => {
    expect(matches('^a.b$', 'a\nb', {})).toBe(false);
    expect(matches('^(?s)a.b$', 'a\nb', {})).toBe(true);
    expect(matches('(?m)^b$', 'a\nb\nc', {})).toBe(true);
    expect(matches('^b$', 'a\nb\nc', {})).toBe(false);
  });

  it('a dot without DOTALL excludes only LF (JavaScript would also exclude CR)', () => {
    expect(matches('^a.b$', 'a\rb', {})).toBe(true);
  });
});

describe('possessive quantifiers and atomic groups', () => {
  it('a possessive repeat never gives back', () => {
    expect(matches('^a++a', 'aaaa')).toBe(false);
    expect(matches('^a+a', 'aaaa')).toBe(true);
    expect(matches('^(?:ab)*+ab', 'ababab')).toBe(false);
    expect(matches('^x?+x', 'x')).toBe(false);
    expect(matches('^a{1,3}+a', 'aaa')).toBe(false);
    expect(matches('^a{1,3}+a', 'aaaa')).toBe(true);
  });

  it('a possessive repeat followed by a disjoint byte is written as a plain greedy one', () => {
    const t = translatePcre('\\s*+;', RX);
    expect(t.source).toBe('[\\x09-\\x0d ]*;');
    expect(t.groups).toEqual([0]);
  });

  it('an atomic group commits to its first alternative', () => {
    expect(matches('^(?>ab|a)b', 'abb')).toBe(true);
    expect(matches('^(?>ab|a)b', 'ab')).toBe(false);
    expect(matches('^(?:ab|a)b', 'ab')).toBe(true);
  });

  it('helper groups do not shift the PCRE group numbers', () => {
    const t = translatePcre('(a)(?>b)(c)\\2', RX);
    const m = new RegExp(t.source, t.flags).exec('abcc') as RegExpExecArray;
    expect(m[t.groups[1] as number]).toBe('a');
    expect(m[t.groups[2] as number]).toBe('c');
  });

  it('refuses an atomic group inside a lookbehind', () => {
    expect(() => translatePcre('(?<=(?>a))b', RX)).toThrow(/lookbehind/);
  });
});

describe('anchors', () => {
  it('$ with DOLLAR_ENDONLY matches only at the very end', () => {
    expect(matches('abc$', 'abc\n')).toBe(false);
    expect(matches('abc$', 'abc')).toBe(true);
  });

  it('$ without DOLLAR_ENDONLY also matches before a final newline', () => {
    expect(matches('abc$', 'abc\n', {})).toBe(true);
    expect(matches('abc$', 'abc\n\n', {})).toBe(false);
  });

  it('\\z is the very end, \\Z also before a final newline, \\A the start', () => {
    expect(matches('c\\z', 'abc\n')).toBe(false);
    expect(matches('c\\Z', 'abc\n')).toBe(true);
    expect(matches('\\Aa', 'ba')).toBe(false);
    expect(matches('\\Ab', 'ba')).toBe(true);
  });
});

describe('escapes and classes', () => {
  it('POSIX classes inside brackets, including negated ones', () => {
    expect(matches('^[[:alpha:]]+$', 'abcXYZ')).toBe(true);
    expect(matches('^[[:digit:][:space:]]+$', '1 2\t3')).toBe(true);
    expect(matches('^[[:^digit:]]$', '5')).toBe(false);
    expect(matches('^[[:punct:]]$', '!')).toBe(true);
    expect(matches('^[[:xdigit:]]+$', 'deadBEEF09')).toBe(true);
  });

  it('a [ that does not open a POSIX class is literal', () => {
    expect(matches('^[a[=<>]+$', 'a[=<>')).toBe(true);
  });

  it('\\s is the C-locale set and excludes NBSP; \\v and \\h are PCRE classes', () => {
    expect(matches('\\s', '\xa0')).toBe(false);
    expect(matches('\\s', '\x0b')).toBe(true);
    expect(matches('\\v', '\x85')).toBe(true);
    expect(matches('\\v', '\n')).toBe(true);
    expect(matches('\\h', '\xa0')).toBe(true);
    expect(matches('[\\S]', ' ')).toBe(false);
    expect(matches('^[a\\S]$', 'x')).toBe(true);
  });

  it('\\R matches CRLF as one unit and each vertical space', () => {
    expect(matches('^a\\Rb$', 'a\r\nb')).toBe(true);
    expect(matches('^a\\R\\nb$', 'a\r\nb')).toBe(false);
    expect(matches('^a\\Rb$', 'a\x85b')).toBe(true);
  });

  it('\\x{hh}, \\xhh, octal, \\e and \\cX denote bytes', () => {
    expect(matches('^\\x{41}\\x42\\103\\0\\e\\cA$', 'ABC\x00\x1b\x01')).toBe(true);
    expect(matches('^\\xff$', '\xff')).toBe(true);
    expect(() => translatePcre('\\x{100}', RX)).toThrow(/too large/);
  });

  it('\\Q...\\E quotes metacharacters, and a quantifier binds to its last byte', () => {
    expect(matches('^\\Qa.b\\E$', 'a.b')).toBe(true);
    expect(matches('^\\Qa.b\\E$', 'axb')).toBe(false);
    expect(matches('^\\Qab\\E+$', 'abbb')).toBe(true);
  });

  it('a { that is not a quantifier is literal', () => {
    expect(matches('^a{,3}$', 'a{,3}')).toBe(true);
    expect(matches('^x{$', 'x{')).toBe(true);
    expect(matches('^a{2}$', 'aa')).toBe(true);
  });

  it('named groups and their references', () => {
    expect(matches('^(?P<q>["\'])x(?P=q)$', '"x"')).toBe(true);
    expect(matches('^(?<q>a)\\k<q>$', 'aa')).toBe(true);
    expect(matches("^(?'q'a)\\g{1}$", 'aa')).toBe(true);
  });

  it('comments and extended mode', () => {
    expect(matches('a(?#note)b', 'ab')).toBe(true);
    expect(matches('(?x) a b # c\n c', 'abc')).toBe(true);
  });

  it('a branch reset group without captures is a plain group', () => {
    expect(matches('^(?|a|b)$', 'b')).toBe(true);
    expect(() => translatePcre('(?|(a)|(b))', RX)).toThrow(/branch reset/);
  });

  it('matches bytes of binary strings without the u flag', () => {
    expect(matches('^\\xc3\\xa9$', '\xc3\xa9')).toBe(true);
    expect(matches('^.$', '\xff')).toBe(true);
  });

  it('names the unsupported construct in its error', () => {
    expect(() => translatePcre('(?R)', RX)).toThrow(/Cannot translate PCRE pattern .*offset 0/);
    expect(() => translatePcre('a\\K', RX)).toThrow(/\\K/);
    expect(() => translatePcre('(?(1)a|b)', RX)).toThrow(/conditionals/);
    expect(() => translatePcre('(a', RX)).toThrow(/missing closing parenthesis/);
    expect(() => translatePcre('\\2(a)', RX)).toThrow(/non-existent group 2/);
  });
});
