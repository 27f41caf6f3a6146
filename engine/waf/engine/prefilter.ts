/**
 * The rule set's prefilter: every operator that can name the strings its matches must contain
 * (OperatorDef.required: the literals of a regex, the phrases of @pm) gets an index, and one
 * automaton over all those strings tells, in a single pass over an operator input, which of these
 * operators could match it at all. The transaction caches the answer per distinct input, so a
 * value seen by fifty rules after the same transformations is scanned once, and most regexes
 * never run on benign values.
 *
 * The automaton is an Aho-Corasick DFA over byte classes (bytes that occur in no needle share one
 * class) with a dense transition table. Needles are cut to their first PREFIX bytes: an input
 * holding a needle holds its prefix, so the answer stays sound, and the table stays small.
 */

import { type Bits, emptyBits, hasBit, setBit, wordsFor } from './bits.ts';

const PREFIX = 8;

export class Prefilter {
  private readonly words: number;
  /** Byte (ASCII letters folded) -> class; class 0 is every byte no needle uses. */
  private readonly classOf = new Uint8Array(256);
  private readonly classes: number;
  /**
   * next[state * classes + class]; 16-bit entries while the states fit (CRS 3.3.4: about 10,000
   * states, 1.7 MB instead of 3.4 MB), so a scan of a new value touches half the cache lines.
   */
  private readonly next: Uint16Array | Int32Array;
  /** Per state: the needle ending exactly there, or -1. */
  private readonly own: Int32Array;
  /** Per state: the nearest proper suffix state with a needle of its own, or -1. */
  private readonly dict: Int32Array;
  /** Per needle: the operators that require it. */
  private readonly users: number[][] = [];
  /** Per needle: the scan that last saw it (each needle's operators are marked once per scan). */
  private readonly seen: Int32Array;
  private scanCount = 0;

  /** `lists[i]`: the strings of operator i (see OperatorDef.required). */
  constructor(lists: readonly (readonly string[])[]) {
    this.words = wordsFor(lists.length);
    const index = new Map<string, number>();
    lists.forEach((list, op) => {
      for (const raw of list) {
        const needle = normalise(raw);
        if (needle === '') continue;
        let n = index.get(needle);
        if (n === undefined) {
          n = this.users.length;
          index.set(needle, n);
          this.users.push([]);
        }
        const users = this.users[n] as number[];
        if (users[users.length - 1] !== op) users.push(op);
      }
    });
    const needles = [...index.keys()];
    this.seen = new Int32Array(needles.length);

    let classes = 1;
    for (const needle of needles) {
      for (let k = 0; k < needle.length; k++) {
        const c = needle.charCodeAt(k);
        if (this.classOf[c] === 0) this.classOf[c] = classes++;
      }
    }
    for (let c = 0x41; c <= 0x5a; c++) this.classOf[c] = this.classOf[c | 0x20] as number;
    this.classes = classes;

    // The trie, then fail links breadth-first, filling in the missing transitions as we go.
    const children: Map<number, number>[] = [new Map<number, number>()];
    const own: number[] = [-1];
    needles.forEach((needle, n) => {
      let s = 0;
      for (let k = 0; k < needle.length; k++) {
        const cls = this.classOf[needle.charCodeAt(k)] as number;
        let t = (children[s] as Map<number, number>).get(cls);
        if (t === undefined) {
          t = children.length;
          children.push(new Map<number, number>());
          own.push(-1);
          (children[s] as Map<number, number>).set(cls, t);
        }
        s = t;
      }
      own[s] = n;
    });
    const states = children.length;
    this.next = states <= 0x10000 ? new Uint16Array(states * classes) : new Int32Array(states * classes);
    this.own = Int32Array.from(own);
    this.dict = new Int32Array(states).fill(-1);
    const fail = new Int32Array(states);
    const queue: number[] = [];
    for (const [cls, t] of children[0] as Map<number, number>) {
      this.next[cls] = t;
      queue.push(t);
    }
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q] as number;
      const f = fail[s] as number;
      this.dict[s] = (own[f] as number) >= 0 ? f : (this.dict[f] as number);
      const row = s * classes;
      const failRow = f * classes;
      for (let cls = 0; cls < classes; cls++) {
        const t = (children[s] as Map<number, number>).get(cls);
        if (t === undefined) {
          this.next[row + cls] = this.next[failRow + cls] as number;
        } else {
          this.next[row + cls] = t;
          fail[t] = this.next[failRow + cls] as number;
          queue.push(t);
        }
      }
    }
  }

  /** The bits of the operators that could match `input`, or null for none. */
  scan(input: string): Bits | null {
    let bits: Bits | null = null;
    const scan = ++this.scanCount;
    const next = this.next;
    const classOf = this.classOf;
    const classes = this.classes;
    const own = this.own;
    const dict = this.dict;
    let s = 0;
    for (let k = 0; k < input.length; k++) {
      const code = input.charCodeAt(k);
      if (code > 0xff) {
        s = 0;
        continue;
      }
      s = next[s * classes + (classOf[code] as number)] as number;
      for (let t = (own[s] as number) >= 0 ? s : (dict[s] as number); t >= 0; t = dict[t] as number) {
        const n = own[t] as number;
        if (this.seen[n] === scan) continue;
        this.seen[n] = scan;
        bits ??= emptyBits(this.words);
        const users = this.users[n] as number[];
        for (let u = 0; u < users.length; u++) {
          const op = users[u] as number;
          setBit(bits, op);
        }
      }
    }
    return bits;
  }

  static has(bits: Bits | null | undefined, op: number): boolean {
    return hasBit(bits, op);
  }
}

/** One byte per char (as the phrase matcher reads phrases), ASCII letters folded, cut to PREFIX. */
function normalise(s: string): string {
  let out = '';
  for (let k = 0; k < s.length && k < PREFIX; k++) {
    const c = s.charCodeAt(k) & 0xff;
    out += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
  }
  return out;
}
