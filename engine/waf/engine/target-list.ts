/**
 * The targets of a rule as the transaction resolves them: collection name, key (undefined: none)
 * and value record of each, plus what the prefilter said about them.
 */
import type { ValueRecord } from './value-cache.ts';
import type { Bits } from './bits.ts';

export class TargetList {
  count = 0;
  readonly collections: string[] = [];
  readonly keys: (string | undefined)[] = [];
  readonly values: ValueRecord[] = [];
  /** For shared lists, per trie node: the union of the targets' prefilter bits (see anyBits). */
  anyBits: (Bits | null | undefined)[] = [];

  push(name: string, key: string | undefined, value: ValueRecord): void {
    const at = this.count++;
    this.collections[at] = name;
    this.keys[at] = key;
    this.values[at] = value;
  }

  sameValues(other: TargetList): boolean {
    if (other.count !== this.count) return false;
    for (let t = 0; t < this.count; t++) if (other.values[t] !== this.values[t]) return false;
    return true;
  }

  name(t: number): string {
    const name = this.collections[t] as string;
    const key = this.keys[t];
    return key === undefined ? name : `${name}:${key}`;
  }
}
