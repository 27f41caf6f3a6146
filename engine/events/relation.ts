import { EVENT_LIMITS } from '#engine/shared';
import type { EventProblem } from './types.ts';

/**
 * A condition relation (spec 2.4): labels a to z, `!` (tightest), `&`, then `|`, parentheses and
 * whitespace. `and` / `or` nodes are flattened (`a & b & c` is one node with three operands).
 */
export type RelationNode =
  | { kind: 'label'; label: string; position: number }
  | { kind: 'not'; operand: RelationNode }
  | { kind: 'and'; operands: RelationNode[] }
  | { kind: 'or'; operands: RelationNode[] };

export type RelationResult = { ok: true; value: RelationNode } | { ok: false; problem: EventProblem };

class RelationError extends Error {
  constructor(readonly problem: EventProblem) {
    super(problem.message);
  }
}

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isLabel = (c: string): boolean => c >= 'a' && c <= 'z' && c.length === 1;

/** Recursive descent over the text; positions are 0-based character offsets. */
class Parser {
  private at = 0;
  /** Positions of the parentheses open around the current point, for relation_unbalanced. */
  private readonly open: number[] = [];

  constructor(
    private readonly text: string,
    private readonly path: string,
  ) {}

  parse(): RelationNode {
    const node = this.or();
    this.skip();
    if (this.at < this.text.length) {
      if (this.text[this.at] === ')') throw this.unbalanced(this.at, 'closes a parenthesis that was never opened');
      throw this.unexpected();
    }
    return node;
  }

  private or(): RelationNode {
    const first = this.and();
    const operands = [first];
    while (this.peek() === '|') {
      this.at++;
      operands.push(this.and());
    }
    return operands.length === 1
      ? first
      : { kind: 'or', operands: operands.flatMap((o) => (o.kind === 'or' ? o.operands : [o])) };
  }

  private and(): RelationNode {
    const first = this.not();
    const operands = [first];
    while (this.peek() === '&') {
      this.at++;
      operands.push(this.not());
    }
    return operands.length === 1
      ? first
      : { kind: 'and', operands: operands.flatMap((o) => (o.kind === 'and' ? o.operands : [o])) };
  }

  private not(): RelationNode {
    const c = this.peek();
    if (c === '!') {
      this.at++;
      return { kind: 'not', operand: this.not() };
    }
    if (c === '(') {
      this.open.push(this.at);
      this.at++;
      const inner = this.or();
      if (this.peek() !== ')') {
        if (this.at >= this.text.length) throw this.unbalanced(this.open[this.open.length - 1] ?? 0, 'is never closed');
        throw this.unexpected();
      }
      this.open.pop();
      this.at++;
      return inner;
    }
    if (c !== undefined && isLabel(c)) {
      const node: RelationNode = { kind: 'label', label: c, position: this.at };
      this.at++;
      return node;
    }
    throw this.unexpected();
  }

  /** The next character that is not whitespace (the cursor stops on it); undefined at the end. */
  private peek(): string | undefined {
    this.skip();
    return this.text[this.at];
  }

  private skip(): void {
    while (this.at < this.text.length && isSpace(this.text[this.at] ?? '')) this.at++;
  }

  private unexpected(): RelationError {
    const token = this.text[this.at] ?? '';
    const message =
      token === ''
        ? `The relation ends too early at position ${this.at}: a label, "!" or "(" is expected.`
        : `The relation has an unexpected "${token}" at position ${this.at}.`;
    return new RelationError({
      path: this.path,
      code: 'relation_syntax',
      message,
      params: { position: this.at, token },
    });
  }

  private unbalanced(position: number, what: string): RelationError {
    return new RelationError({
      path: this.path,
      code: 'relation_unbalanced',
      message: `The parenthesis at position ${position} ${what}.`,
      params: { position },
    });
  }
}

/**
 * Parses a relation into a tree without checking which labels exist. Refuses an empty text, a text
 * longer than EVENT_LIMITS.relation (the parser recurses once per nesting level) and bad syntax.
 */
export function parseRelationSyntax(text: string, path = 'relation'): RelationResult {
  if (typeof text !== 'string' || text.trim() === '')
    return {
      ok: false,
      problem: { path, code: 'relation_empty', message: 'The relation is empty: write at least one label.' },
    };
  if (text.length > EVENT_LIMITS.relation)
    return {
      ok: false,
      problem: {
        path,
        code: 'relation_too_long',
        message: `The relation is longer than ${EVENT_LIMITS.relation} characters.`,
        params: { max: EVENT_LIMITS.relation },
      },
    };
  try {
    return { ok: true, value: new Parser(text, path).parse() };
  } catch (error) {
    if (error instanceof RelationError) return { ok: false, problem: error.problem };
    throw error;
  }
}

/** Every label node of a tree, in text order. */
export function relationLabels(node: RelationNode): { label: string; position: number }[] {
  const out: { label: string; position: number }[] = [];
  const walk = (n: RelationNode): void => {
    if (n.kind === 'label') out.push({ label: n.label, position: n.position });
    else if (n.kind === 'not') walk(n.operand);
    else n.operands.forEach(walk);
  };
  walk(node);
  return out.sort((a, b) => a.position - b.position);
}

export function unknownLabelProblem(label: string, position: number, path = 'relation'): EventProblem {
  return {
    path,
    code: 'relation_unknown_label',
    message: `The relation uses the label "${label}" (position ${position}), which has no condition.`,
    params: { label, position },
  };
}

/** Parses a condition relation ("a", "(a & b) | !c") over the given labels. */
export function parseRelation(text: string, labels: readonly string[]): RelationResult {
  const parsed = parseRelationSyntax(text);
  if (!parsed.ok) return parsed;
  const known = new Set(labels);
  const unknown = relationLabels(parsed.value).find((l) => !known.has(l.label));
  return unknown ? { ok: false, problem: unknownLabelProblem(unknown.label, unknown.position) } : parsed;
}

/** A compiled relation: reads its leaves from `ctx`. */
export type RelationFn<C> = (ctx: C) => boolean;

/**
 * Compiles a tree to a closure tree. `leaf` gives each label's test and `cost` its rough price: the
 * operands of `&` and `|` run cheapest first, which changes no result (leaves have no side effects)
 * but lets a cheap false (or true) skip an expensive regex.
 */
export function compileRelation<C>(
  node: RelationNode,
  leaf: (label: string) => RelationFn<C>,
  cost: (label: string) => number = () => 1,
): RelationFn<C> {
  return compile(node, leaf, cost).fn;
}

function compile<C>(
  node: RelationNode,
  leaf: (label: string) => RelationFn<C>,
  cost: (label: string) => number,
): { fn: RelationFn<C>; cost: number } {
  if (node.kind === 'label') return { fn: leaf(node.label), cost: cost(node.label) };
  if (node.kind === 'not') {
    const inner = compile(node.operand, leaf, cost);
    const f = inner.fn;
    return { fn: (c) => !f(c), cost: inner.cost };
  }
  const parts = node.operands.map((o) => compile(o, leaf, cost)).sort((a, b) => a.cost - b.cost);
  const total = parts.reduce((sum, p) => sum + p.cost, 0);
  const fns = parts.map((p) => p.fn);
  const [f0, f1, f2] = fns;
  if (node.kind === 'and') {
    if (fns.length === 2 && f0 && f1) return { fn: (c) => f0(c) && f1(c), cost: total };
    if (fns.length === 3 && f0 && f1 && f2) return { fn: (c) => f0(c) && f1(c) && f2(c), cost: total };
    return {
      fn: (c) => {
        for (const f of fns) if (!f(c)) return false;
        return true;
      },
      cost: total,
    };
  }
  if (fns.length === 2 && f0 && f1) return { fn: (c) => f0(c) || f1(c), cost: total };
  if (fns.length === 3 && f0 && f1 && f2) return { fn: (c) => f0(c) || f1(c) || f2(c), cost: total };
  return {
    fn: (c) => {
      for (const f of fns) if (f(c)) return true;
      return false;
    },
    cost: total,
  };
}
