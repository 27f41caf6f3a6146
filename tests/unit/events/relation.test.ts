import { describe, expect, it } from 'vitest';
import { parseRelation, type RelationNode } from '#engine/events';

const LABELS = ['a', 'b', 'c', 'd'];

/** A tree as compact text: labels, !x, (x & y), (x | y). */
function show(node: RelationNode): string {
  switch (node.kind) {
    case 'label':
      return node.label;
    case 'not':
      return `!${show(node.operand)}`;
    case 'and':
      return `(${node.operands.map(show).join(' & ')})`;
    case 'or':
      return `(${node.operands.map(show).join(' | ')})`;
  }
}

function parsed(text: string): string {
  const result = parseRelation(text, LABELS);
  if (!result.ok) throw new Error(`${text}: ${result.problem.code}`);
  return show(result.value);
}

describe('parseRelation', () => {
  it.each([
    ['a', 'a'],
    ['  a  ', 'a'],
    ['a & b', '(a & b)'],
    ['a|b', '(a | b)'],
    ['a | b & c', '(a | (b & c))'],
    ['a & b | c & d', '((a & b) | (c & d))'],
    ['!a & b', '(!a & b)'],
    ['!(a & b)', '!(a & b)'],
    ['!!a', '!!a'],
    ['(a | b) & !c', '((a | b) & !c)'],
    ['a & b & c', '(a & b & c)'],
    ['a & (b & c)', '(a & b & c)'],
    ['((a))', 'a'],
    ['a\t&\nb', '(a & b)'],
  ])('reads %j as %s (! binds tightest, then &, then |)', (text, tree) => {
    expect(parsed(text)).toBe(tree);
  });

  it.each([
    ['', 'relation_empty', {}],
    ['   ', 'relation_empty', {}],
    ['a &', 'relation_syntax', { position: 3, token: '' }],
    ['a & ', 'relation_syntax', { position: 4, token: '' }],
    ['a b', 'relation_syntax', { position: 2, token: 'b' }],
    ['ab', 'relation_syntax', { position: 1, token: 'b' }],
    ['a && b', 'relation_syntax', { position: 3, token: '&' }],
    ['A', 'relation_syntax', { position: 0, token: 'A' }],
    ['a & 1', 'relation_syntax', { position: 4, token: '1' }],
    ['()', 'relation_syntax', { position: 1, token: ')' }],
    ['!', 'relation_syntax', { position: 1, token: '' }],
    ['(a', 'relation_unbalanced', { position: 0 }],
    ['((a) & b', 'relation_unbalanced', { position: 0 }],
    ['a & (b | (c)', 'relation_unbalanced', { position: 4 }],
    ['a)', 'relation_unbalanced', { position: 1 }],
    ['(a)) & b', 'relation_unbalanced', { position: 3 }],
    ['a & e', 'relation_unknown_label', { label: 'e', position: 4 }],
  ])('refuses %j with %s at the right place', (text, code, params) => {
    const result = parseRelation(text, LABELS);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problem.code).toBe(code);
    expect(result.problem.path).toBe('relation');
    expect(result.problem.params ?? {}).toEqual(params);
    expect(result.problem.message.length).toBeGreaterThan(0);
  });

  it('refuses a relation longer than the limit instead of recursing through it', () => {
    const result = parseRelation(`${'!'.repeat(100_000)}a`, LABELS);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem.code).toBe('relation_too_long');
  });

  it('parses the deepest nesting the limit allows', () => {
    const text = `${'('.repeat(255)}a${')'.repeat(255)}`;
    expect(parsed(text)).toBe('a');
  });
});
