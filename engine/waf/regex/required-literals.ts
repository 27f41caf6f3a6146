/**
 * Required literals of a parsed pattern: a list of strings such that every match of the pattern
 * contains at least one of them. The engine scans each operator input once for all such strings of
 * all rules and skips a regex when none of its strings occurs, so soundness is the whole contract:
 * a list is only returned when it is implied by the pattern, never guessed.
 *
 * Strings are compared ASCII case-insensitively (A-Z folded to a-z here and in the scan), which
 * only ever weakens the requirement. Patterns that use JavaScript's `i` flag (Latin-1 folding)
 * are left out by the caller.
 *
 * Per node we know either its exact set of matches (small finite languages: `ab?c`, `[<>]`) or a
 * list of strings one of which each match contains; concatenations combine exact sets as cross
 * products while they stay small and otherwise keep the most selective list of any part.
 */
import type { AltNode, Node } from './pcre-ast.ts';

interface Info {
  /** Every string the node can match, folded and deduplicated; undefined when not small or finite. */
  exact: string[] | undefined;
  /** Strings one of which every match contains; undefined when none is known. */
  any: string[] | undefined;
}

/** Largest exact set kept per node. */
const MAX_EXACT = 64;
/** Longest exact string built by cross products; longer needles add no selectivity. */
const MAX_LENGTH = 16;
/** Largest byte class turned into one-character strings. */
const MAX_CLASS = 10;
/** Largest list of alternatives kept. */
const MAX_ANY = 4096;

const UNKNOWN: Info = { exact: undefined, any: undefined };
const EMPTY: Info = { exact: [''], any: undefined };

/** Strings of which every match of `root` contains one, or undefined. */
export function requiredLiterals(root: AltNode): string[] | undefined {
  const info = alt(root);
  const list = info.any ?? info.exact;
  if (list === undefined || list.includes('')) return undefined;
  return list;
}

function fold(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
}

function node(n: Node): Info {
  switch (n.t) {
    case 'set': {
      const chars = new Set<number>();
      for (let c = 0; c < 256; c++) {
        if (n.set[c] === 1) chars.add(fold(c));
        if (chars.size > MAX_CLASS) return UNKNOWN;
      }
      const exact = [...chars].map((c) => String.fromCharCode(c));
      return { exact, any: exact };
    }
    case 'assert':
      return EMPTY;
    case 'backref':
      return UNKNOWN;
    case 'group':
      // Lookarounds consume nothing: as far as the match is concerned they match the empty string.
      return n.kind === 'capture' || n.kind === 'group' || n.kind === 'atomic' ? alt(n.body) : EMPTY;
    case 'quant': {
      const body = node(n.body);
      if (n.min === 1 && n.max === 1) return body;
      if (n.min === 0) {
        if (n.max === 1 && body.exact !== undefined && body.exact.length < MAX_EXACT) {
          return { exact: dedupe(['', ...body.exact]), any: undefined };
        }
        return UNKNOWN;
      }
      return { exact: undefined, any: usable(body) };
    }
    case 'alt':
      return alt(n);
  }
}

/** The body's own requirement as a list, when it has one that excludes the empty string. */
function usable(info: Info): string[] | undefined {
  if (info.any !== undefined) return info.any;
  if (info.exact !== undefined && !info.exact.includes('')) return info.exact;
  return undefined;
}

function alt(n: AltNode): Info {
  const infos = n.alts.map(seq);
  let exact: string[] | undefined = [];
  for (const i of infos) {
    if (i.exact === undefined || exact === undefined) {
      exact = undefined;
      break;
    }
    exact.push(...i.exact);
  }
  if (exact !== undefined) {
    exact = dedupe(exact);
    if (exact.length <= MAX_EXACT) return { exact, any: exact.includes('') ? undefined : exact };
  }
  const any: string[] = [];
  for (const i of infos) {
    const u = usable(i);
    if (u === undefined) return UNKNOWN;
    any.push(...u);
    if (any.length > MAX_ANY) return UNKNOWN;
  }
  return { exact: undefined, any: dedupe(any) };
}

function seq(nodes: readonly Node[]): Info {
  let current: string[] = [''];
  let allExact = true;
  let best: string[] | undefined;
  const consider = (list: string[] | undefined): void => {
    if (list !== undefined && !list.includes('') && (best === undefined || better(list, best))) best = list;
  };
  for (const n of nodes) {
    const i = node(n);
    if (
      i.exact !== undefined &&
      current.length * i.exact.length <= MAX_EXACT &&
      longest(current) + longest(i.exact) <= MAX_LENGTH
    ) {
      current = product(current, i.exact);
      continue;
    }
    // Whatever was built so far is a substring of every match; so is every match of this node.
    allExact = false;
    consider(current);
    consider(usable(i));
    current = i.exact ?? [''];
  }
  if (allExact) return { exact: current, any: current.includes('') ? undefined : current };
  consider(current);
  return { exact: undefined, any: best };
}

/** Prefers lists whose shortest string is longer (up to 4), then shorter lists. */
function better(a: readonly string[], b: readonly string[]): boolean {
  const la = Math.min(4, shortest(a));
  const lb = Math.min(4, shortest(b));
  if (la !== lb) return la > lb;
  return a.length < b.length;
}

function shortest(list: readonly string[]): number {
  let n = Infinity;
  for (const s of list) n = Math.min(n, s.length);
  return n;
}

function longest(list: readonly string[]): number {
  let n = 0;
  for (const s of list) n = Math.max(n, s.length);
  return n;
}

function product(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (const x of a) for (const y of b) out.push(x + y);
  return dedupe(out);
}

function dedupe(list: readonly string[]): string[] {
  return [...new Set(list)];
}
