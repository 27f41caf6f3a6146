/**
 * Analysis of the AST that decides how it is emitted: the bytes a node can start with (so a
 * possessive repeat that cannot give anything back needs no helper group), and whether
 * JavaScript's `i` flag can stand for the caseless scopes (needed only for caseless backreferences).
 */
import { type ByteSet, addAll, disjoint, emptySet, isJsCaseClosed } from './byte-set.ts';
import type { AltNode, Node, QuantNode } from './pcre-ast.ts';

/** The bytes a node can start with, and whether it can match without consuming a byte. */
function firstSet(node: Node): { set: ByteSet; nullable: boolean; endOnly: boolean } | undefined {
  switch (node.t) {
    case 'set':
      return { set: node.set, nullable: false, endOnly: false };
    case 'assert':
      return node.endOnly ? { set: emptySet(), nullable: false, endOnly: true } : undefined;
    case 'quant': {
      if (node.min === 0) return undefined;
      const f = firstSet(node.body);
      return f;
    }
    case 'group':
      if (node.kind !== 'group' && node.kind !== 'capture' && node.kind !== 'atomic') return undefined;
      return firstSet(node.body);
    case 'alt': {
      const set = emptySet();
      let endOnly = true;
      for (const seq of node.alts) {
        const head = seq[0];
        if (head === undefined) return undefined;
        const f = firstSet(head);
        if (!f || f.nullable) return undefined;
        addAll(set, f.set);
        endOnly = endOnly && f.endOnly;
      }
      return { set, nullable: false, endOnly };
    }
    case 'backref':
      return undefined;
  }
}

/**
 * A possessive repeat of one byte class behaves exactly like the greedy one when whatever follows
 * cannot start with a byte of that class (`\s*+;`, `\?+$`): giving a byte back could never let the
 * rest match. Then no helper group is needed.
 */
export function possessiveMatters(node: QuantNode, seq: Node[], k: number): boolean {
  if (node.body.t !== 'set') return true;
  const next = seq[k + 1];
  if (next === undefined) return true;
  const f = firstSet(next);
  if (!f || f.nullable) return true;
  return !disjoint(node.body.set, f.set);
}

/** Walks the AST and reports whether JavaScript's `i` flag can stand for all caseless scopes. */
export function canUseIFlag(root: AltNode): { possible: boolean; anyCaseless: boolean } {
  let possible = true;
  let anyCaseless = false;
  const visit = (node: Node): void => {
    switch (node.t) {
      case 'set':
        if (node.caseless) anyCaseless = true;
        if (!isJsCaseClosed(node.set)) possible = false;
        return;
      case 'backref':
        if (node.caseless) anyCaseless = true;
        else possible = false;
        return;
      case 'assert':
        return;
      case 'alt':
        for (const seq of node.alts) for (const n of seq) visit(n);
        return;
      case 'group':
        visit(node.body);
        return;
      case 'quant':
        visit(node.body);
        return;
    }
  };
  visit(root);
  return { possible, anyCaseless };
}

export function hasCaselessBackref(root: AltNode): boolean {
  let found = false;
  const visit = (node: Node): void => {
    if (node.t === 'backref' && node.caseless) found = true;
    else if (node.t === 'alt') for (const seq of node.alts) for (const n of seq) visit(n);
    else if (node.t === 'group' || node.t === 'quant') visit(node.body);
  };
  visit(root);
  return found;
}
