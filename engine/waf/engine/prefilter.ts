/**
 * The rule set's prefilter: every operator that can name the strings its matches must contain
 * (OperatorDef.required: the literals of a regex, the phrases of @pm) gets an index, and one
 * Aho-Corasick automaton over all those strings tells, in a single pass over an operator input,
 * which of these operators could match it at all. The transaction caches the answer per distinct
 * input, so a value seen by fifty rules after the same transformations is scanned once, and most
 * regexes never run on benign values.
 */
import { PhraseMatcher } from '#engine/waf/operators';

export class Prefilter {
  private readonly matcher: PhraseMatcher;
  /** Per needle: the operators that require it. */
  private readonly users: number[][];
  private readonly words: number;
  /** Per needle: the scan that last saw it (to OR each mask once per scan). */
  private readonly seen: Int32Array;
  private scanCount = 0;

  /** `lists[i]`: the strings of operator i (see OperatorDef.required). */
  constructor(lists: readonly (readonly string[])[]) {
    this.words = Math.max(1, Math.ceil(lists.length / 32));
    const index = new Map<string, number>();
    const needles: string[] = [];
    this.users = [];
    lists.forEach((list, op) => {
      for (const raw of list) {
        const needle = normalise(raw);
        if (needle === '') continue;
        let n = index.get(needle);
        if (n === undefined) {
          n = needles.length;
          index.set(needle, n);
          needles.push(needle);
          this.users.push([]);
        }
        const users = this.users[n] as number[];
        if (users[users.length - 1] !== op) users.push(op);
      }
    });
    this.matcher = new PhraseMatcher(needles);
    this.seen = new Int32Array(needles.length);
  }

  /** The bits of the operators that could match `input` (bit i of word i >>> 5), or null for none. */
  scan(input: string): Uint32Array | null {
    let bits: Uint32Array | null = null;
    const scan = ++this.scanCount;
    this.matcher.forEach(input, (n) => {
      if (this.seen[n] === scan) return;
      this.seen[n] = scan;
      bits ??= new Uint32Array(this.words);
      const users = this.users[n] as number[];
      for (let u = 0; u < users.length; u++) {
        const op = users[u] as number;
        bits[op >>> 5] = (bits[op >>> 5] as number) | (1 << (op & 31));
      }
    });
    return bits;
  }

  static has(bits: Uint32Array | null, op: number): boolean {
    return bits !== null && ((bits[op >>> 5] as number) & (1 << (op & 31))) !== 0;
  }
}

/** As the matcher reads phrases: one byte per char, ASCII letters folded. */
function normalise(s: string): string {
  let out = '';
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k) & 0xff;
    out += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
  }
  return out;
}
