import type { CepKey } from './cep.ts';
import { KeyTable, type Keyed } from './key-table.ts';
import type { StatefulRuntime } from './runtime.ts';
import type { KeyTarget } from './types.ts';
import { windowKeyExpired, bucketOf, type WindowKey } from './window.ts';
import { cepKeyExpired } from './cep.ts';

export type KeyState = WindowKey | CepKey;

/** One trigger-object value's state for every event of a group: `states[rt.slot]`, null where an event has none. */
export class KeyEntry implements Keyed {
  seq = 0;
  constructor(readonly states: (KeyState | null)[]) {}
}

/**
 * The stateful events that group records by one trigger object (ip, device, ...) share one key
 * table: a record costs one lookup per trigger object, not one per event, and a key's entry holds
 * each event's state side by side. The table holds at most `capacity` keys (maxKeysPerEvent), so
 * no event holds more; evicting a key evicts it for every event of the group (counted per event).
 */
export class ObjectGroup {
  readonly table: KeyTable<KeyEntry>;

  constructor(
    readonly object: KeyTarget,
    capacity: number,
    public members: StatefulRuntime[],
  ) {
    this.table = new KeyTable<KeyEntry>(capacity, (entry) => this.evicted(entry));
  }

  /** The entry of `key`, made (empty) when there is none. */
  entry(key: string): KeyEntry {
    let entry = this.table.get(key);
    if (entry === undefined) {
      entry = new KeyEntry(new Array<KeyState | null>(this.members.length).fill(null));
      this.table.add(key, entry);
    }
    return entry;
  }

  private evicted(entry: KeyEntry): void {
    const states = entry.states;
    for (let i = 0; i < states.length; i++) {
      if (states[i] === null) continue;
      const rt = this.members[i]!;
      rt.keys--;
      rt.evictions++;
    }
  }

  /** Drops the states that hold nothing any more at `now`, and the keys left with none. */
  sweep(now: number): void {
    const buckets = this.members.map((rt) => (rt.kind === 'cep' ? 0 : bucketOf(now, rt.bucketMs)));
    for (const [key, entry] of this.table.map) {
      const states = entry.states;
      let left = 0;
      for (let i = 0; i < states.length; i++) {
        const state = states[i];
        if (state === null || state === undefined) continue;
        const rt = this.members[i]!;
        const expired =
          rt.kind === 'cep'
            ? cepKeyExpired(rt.shape, state as CepKey, now)
            : windowKeyExpired(rt.shape, state as WindowKey, buckets[i]!);
        if (expired) {
          states[i] = null;
          rt.keys--;
        } else left++;
      }
      if (left === 0) this.table.delete(key);
    }
  }
}
