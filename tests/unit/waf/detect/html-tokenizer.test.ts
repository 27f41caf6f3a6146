import { describe, expect, it } from 'vitest';
import { tokenizeHtml } from '../../../../engine/waf/detect/html-tokenizer.ts';

describe('HTML tokenizer', () => {
  describe('data state', () => {
    it('reports start and end tags with their names as written', () => {
      expect(tokenizeHtml('a <B>x</B>', 'data')).toEqual([
        { kind: 'tag', name: 'B', isEnd: false },
        { kind: 'tag', name: 'B', isEnd: true },
      ]);
    });
    it('leaves a < that does not open markup as text', () => {
      expect(tokenizeHtml('a < b, 1<2, <-', 'data')).toEqual([]);
    });
    it('ends a tag name at a slash, as browsers do (<svg/onload=...>)', () => {
      expect(tokenizeHtml('<svg/onload=x>', 'data')).toEqual([
        { kind: 'tag', name: 'svg', isEnd: false },
        { kind: 'attribute', name: 'onload', value: 'x' },
      ]);
    });
    it('reports a tag cut off by the end of the input', () => {
      expect(tokenizeHtml('abc<script', 'data')).toEqual([{ kind: 'tag', name: 'script', isEnd: false }]);
    });
    it('reports comments and bogus comments with their bodies', () => {
      expect(tokenizeHtml('<!-- hi --><?xml v?><!DOCTYPE html>', 'data')).toEqual([
        { kind: 'comment', text: ' hi ' },
        { kind: 'comment', text: 'xml v?' },
        { kind: 'comment', text: 'DOCTYPE html' },
      ]);
    });
  });

  describe('attributes', () => {
    it('reads double-quoted, single-quoted, unquoted and valueless attributes', () => {
      expect(tokenizeHtml(`<a b="1 2" c='3' d=4 e>`, 'data').slice(1)).toEqual([
        { kind: 'attribute', name: 'b', value: '1 2' },
        { kind: 'attribute', name: 'c', value: '3' },
        { kind: 'attribute', name: 'd', value: '4' },
        { kind: 'attribute', name: 'e', value: null },
      ]);
    });
    it('allows spaces around = and attributes glued after a quoted value', () => {
      expect(tokenizeHtml(`<a b = "1"c=2>`, 'data').slice(1)).toEqual([
        { kind: 'attribute', name: 'b', value: '1' },
        { kind: 'attribute', name: 'c', value: '2' },
      ]);
    });
    it('returns to text after > and finds the next tag', () => {
      expect(tokenizeHtml('<a href=x>t</a><b>', 'data').map((t) => t.kind)).toEqual(['tag', 'attribute', 'tag', 'tag']);
    });
  });

  describe('attribute-value entry contexts', () => {
    it('in a double-quoted value, reads what follows the closing quote as attributes', () => {
      expect(tokenizeHtml(`x" onmouseover="alert(1)`, 'double')).toEqual([
        { kind: 'attribute', name: '', value: 'x' },
        { kind: 'attribute', name: 'onmouseover', value: 'alert(1)' },
      ]);
    });
    it('in a single-quoted value, ignores double quotes until the single quote', () => {
      expect(tokenizeHtml(`a"b' c=d`, 'single')).toEqual([
        { kind: 'attribute', name: '', value: 'a"b' },
        { kind: 'attribute', name: 'c', value: 'd' },
      ]);
    });
    it('in an unquoted value, ends the value at whitespace', () => {
      expect(tokenizeHtml('x onclick=y', 'unquoted')).toEqual([
        { kind: 'attribute', name: '', value: 'x' },
        { kind: 'attribute', name: 'onclick', value: 'y' },
      ]);
    });
    it('leaves the tag at > and reads new markup', () => {
      expect(tokenizeHtml(`x"><script>`, 'double').map((t) => t.kind)).toEqual(['attribute', 'tag']);
    });
  });
});
