/**
 * A case-insensitive (ASCII, like ModSecurity's acmp) Aho-Corasick automaton over bytes, built
 * once per @pm / @pmFromFile argument. States keep sparse children in flat typed arrays plus a
 * full transition table at the root, so a search allocates nothing and is linear in the input.
 */
export class PhraseMatcher {
  private readonly rootNext = new Int32Array(256).fill(0);
  private readonly childStart: Int32Array;
  private readonly childCount: Int32Array;
  private readonly childKey: Uint8Array;
  private readonly childTarget: Int32Array;
  private readonly fail: Int32Array;
  /** Index of a phrase ending at this state or at one of its fail ancestors, else -1. */
  private readonly output: Int32Array;
  /** Index of the phrase ending exactly at this state, else -1. */
  private readonly own: Int32Array;
  /** The nearest fail ancestor with a phrase of its own, else -1: all phrases found at a state. */
  private readonly dict: Int32Array;

  constructor(readonly phrases: readonly string[]) {
    const children: Map<number, number>[] = [new Map<number, number>()];
    const terminal: number[] = [-1];
    phrases.forEach((phrase, index) => {
      if (phrase.length === 0) return;
      let s = 0;
      for (let k = 0; k < phrase.length; k++) {
        const c = lower(phrase.charCodeAt(k) & 0xff);
        const map = children[s] as Map<number, number>;
        let next = map.get(c);
        if (next === undefined) {
          next = children.length;
          children.push(new Map<number, number>());
          terminal.push(-1);
          map.set(c, next);
        }
        s = next;
      }
      if (terminal[s] === -1) terminal[s] = index;
    });
    const n = children.length;
    this.childStart = new Int32Array(n);
    this.childCount = new Int32Array(n);
    let total = 0;
    for (const m of children) total += m.size;
    this.childKey = new Uint8Array(total);
    this.childTarget = new Int32Array(total);
    let at = 0;
    for (let s = 0; s < n; s++) {
      const entries = [...(children[s] as Map<number, number>)].sort((a, b) => a[0] - b[0]);
      this.childStart[s] = at;
      this.childCount[s] = entries.length;
      for (const [k, t] of entries) {
        this.childKey[at] = k;
        this.childTarget[at++] = t;
      }
    }
    for (const [k, t] of children[0] as Map<number, number>) this.rootNext[k] = t;
    this.fail = new Int32Array(n);
    this.output = new Int32Array(n).fill(-1);
    this.own = Int32Array.from(terminal);
    this.dict = new Int32Array(n).fill(-1);
    // Breadth-first: fail links and inherited outputs.
    const queue: number[] = [];
    for (const t of (children[0] as Map<number, number>).values()) {
      this.fail[t] = 0;
      queue.push(t);
    }
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q] as number;
      const own = terminal[s] as number;
      this.output[s] = own >= 0 ? own : (this.output[this.fail[s] as number] as number);
      const f = this.fail[s] as number;
      this.dict[s] = (terminal[f] as number) >= 0 ? f : (this.dict[f] as number);
      for (const [c, t] of children[s] as Map<number, number>) {
        let f = this.fail[s] as number;
        let g = this.step(f, c);
        while (g < 0) {
          f = this.fail[f] as number;
          g = this.step(f, c);
        }
        this.fail[t] = g === t ? 0 : g;
        queue.push(t);
      }
    }
  }

  /** Transition without fail links: -1 when absent (never at the root). */
  private step(s: number, c: number): number {
    if (s === 0) return this.rootNext[c] as number;
    const start = this.childStart[s] as number;
    const end = start + (this.childCount[s] as number);
    for (let k = start; k < end; k++) {
      const key = this.childKey[k] as number;
      if (key === c) return this.childTarget[k] as number;
      if (key > c) break;
    }
    return -1;
  }

  /** The state after reading one character (a character above 0xff matches nothing: back to the root). */
  private advance(s: number, code: number): number {
    if (code > 0xff) return 0;
    const c = lower(code);
    let next = this.step(s, c);
    while (next < 0) {
      s = this.fail[s] as number;
      next = this.step(s, c);
    }
    return next;
  }

  /**
   * Calls `found` with the index of every phrase occurring in `input`, once per occurrence (of
   * identical phrases, the first index).
   */
  forEach(input: string, found: (index: number) => void): void {
    let s = 0;
    for (let k = 0; k < input.length; k++) {
      s = this.advance(s, input.charCodeAt(k));
      if ((this.output[s] as number) < 0) continue;
      for (let t = (this.own[s] as number) >= 0 ? s : (this.dict[s] as number); t >= 0; t = this.dict[t] as number) {
        found(this.own[t] as number);
      }
    }
  }

  /** Index of the first phrase found in `input` (by end position), or -1. */
  search(input: string): number {
    let s = 0;
    for (let k = 0; k < input.length; k++) {
      s = this.advance(s, input.charCodeAt(k));
      const out = this.output[s] as number;
      if (out >= 0) return out;
    }
    return -1;
  }
}

function lower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
}
