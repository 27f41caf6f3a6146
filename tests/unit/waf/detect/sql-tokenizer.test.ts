import { describe, expect, it } from 'vitest';
import { sqlFingerprint } from '../../../../engine/waf/detect/sqli.ts';
import { tokenizeSql, type QuoteContext } from '../../../../engine/waf/detect/sql-tokenizer.ts';

const kinds = (input: string, context: QuoteContext = 'none'): string =>
  tokenizeSql(input, context)
    .map((t) => t.kind)
    .join('');

describe('SQL tokenizer', () => {
  describe('quote contexts', () => {
    it('starts inside an open single-quoted string in the single context', () => {
      expect(tokenizeSql("abc' or 'x", 'single')).toEqual([
        { kind: 's', text: "abc'" },
        { kind: '&', text: 'or' },
        { kind: 's', text: "'x" },
      ]);
    });
    it('starts inside an open double-quoted string in the double context', () => {
      expect(kinds('a" or "b"="b', 'double')).toBe('s&s=s');
    });
    it('takes a quote of the other kind as part of the open string', () => {
      expect(kinds(`it"s' and`, 'single')).toBe('s&');
    });
    it('reads a doubled quote and a backslash-escaped quote as part of the string', () => {
      expect(tokenizeSql("'it''s' 'a\\'b'", 'none').map((t) => t.text)).toEqual(["'it''s'", "'a\\'b'"]);
    });
    it('reads an unterminated string to the end of the input', () => {
      expect(tokenizeSql("x 'open", 'none')).toEqual([
        { kind: 'n', text: 'x' },
        { kind: 's', text: "'open" },
      ]);
    });
    it("reads prefixed literals N'..' and X'..' as strings", () => {
      expect(kinds("N'abc' X'4142'")).toBe('ss');
    });
  });

  describe('comments', () => {
    it('reads -- and # to the end of the line as a comment', () => {
      expect(kinds('1 -- rest')).toBe('1c');
      expect(kinds('1 # rest')).toBe('1c');
      expect(kinds('1 -- a\n2')).toBe('1c1');
    });
    it('does not take #1, #anchor or #ff0000 for comments', () => {
      expect(kinds('#1')).toBe('?1');
      expect(kinds('#ff0000')).toBe('?n');
    });
    it('skips a closed block comment like whitespace', () => {
      expect(kinds('union/**/select')).toBe('UE');
    });
    it('reads an unterminated block comment as a comment to the end', () => {
      expect(kinds('1 /* rest')).toBe('1c');
    });
    it('reads the body of a MySQL executable comment as SQL', () => {
      expect(kinds('/*!50000union*/ /*!select*/')).toBe('UE');
    });
    it('flags a comment opener inside a comment as evasion', () => {
      expect(kinds('/*/*/2')).toBe('X1');
      expect(kinds('/* a /* b */')).toBe('X');
    });
  });

  describe('numbers', () => {
    it('reads integers, decimals, exponents, hex and binary literals', () => {
      expect(tokenizeSql('1 2.5 .5 1e10 1.5E-3 0x1F 0b101', 'none').map((t) => t.text)).toEqual([
        '1',
        '2.5',
        '.5',
        '1e10',
        '1.5E-3',
        '0x1F',
        '0b101',
      ]);
    });
    it('ends a number where a word starts', () => {
      expect(tokenizeSql('20.to_i', 'none')).toEqual([
        { kind: '1', text: '20.' },
        { kind: 'n', text: 'to_i' },
      ]);
    });
  });

  describe('operators', () => {
    it('reads comparisons and assignment as =', () => {
      expect(kinds('a = b <> c != d <= e >= f <=> g := h < i > j')).toBe('n=n=n=n=n=n=n=n=n=n');
    });
    it('reads && and || as connectives, single & and | as operators', () => {
      expect(kinds('a && b || c & d | e')).toBe('n&n&nonon');
    });
    it('reads arithmetic, shifts and the backslash as operators', () => {
      expect(kinds('a + b - c * d / e % f ^ g << h >> i \\ j')).toBe('nononononononononon');
    });
    it('reads punctuation as itself', () => {
      expect(kinds('f(a, b);')).toBe('n(n,n);');
    });
  });

  describe('keywords', () => {
    it('classifies words case-insensitively', () => {
      expect(kinds('SeLeCt x FrOm t WhErE a AnD b Or c')).toBe('Enknkn&n&n');
    });
    it('folds UNION ALL and UNION DISTINCT into one token', () => {
      expect(tokenizeSql('union  all select', 'none').map((t) => t.text)).toEqual(['union  all', 'select']);
      expect(kinds('union distinct select')).toBe('UE');
    });
    it('reads ORDER BY and GROUP BY as one token, and order alone as a word', () => {
      expect(kinds('order by 1')).toBe('B1');
      expect(kinds('group  by x')).toBe('Bn');
      expect(kinds('order now')).toBe('nn');
    });
    it('reads a function name as a function only when a parenthesis follows', () => {
      expect(kinds('sleep (5)')).toBe('F(1)');
      expect(kinds('sleep mode')).toBe('nn');
      expect(kinds('concat(a)')).toBe('f(n)');
    });
    it('reads NULL, TRUE and FALSE as literals', () => {
      expect(kinds('null true false')).toBe('111');
    });
    it('reads variables, backtick identifiers and qualified names', () => {
      expect(kinds('@a @@version `weird name` information_schema.tables')).toBe('vvnn');
    });
  });

  describe('fingerprint folding', () => {
    it('drops unary operators', () => {
      expect(sqlFingerprint('-1 or -1 = -1', 'none')).toBe('1&1=1');
      expect(sqlFingerprint('1 or not 1', 'none')).toBe('1&1');
    });
    it('folds runs of operators and of strings', () => {
      expect(sqlFingerprint("'a' 'b' + + 1", 'none')).toBe('so1');
    });
    it('stops at a fixed length', () => {
      expect(sqlFingerprint('1,'.repeat(1000), 'none').length).toBeLessThanOrEqual(12);
    });
  });
});
