import { join } from 'node:path';
import { Low } from 'lowdb';
import { newId, newSecret, type Clock } from '#engine/shared';
import { DurableJsonFile } from './durable-file.ts';
import { emptyDocument, type ConfigDocument } from './document.ts';
import { migrate } from './migrations.ts';

export const CONFIG_FILE_NAME = 'config.json';

/**
 * The part of the configuration one service works on: it reads and updates only its keys, and its
 * `generation` changes exactly when one of them does (a sign-in writing `accounts` leaves the
 * generation of `sites` alone, so the compiled sites stay). The whole store is a slice of every key.
 */
export interface ConfigSlice<K extends keyof ConfigDocument> {
  readonly data: Readonly<Pick<ConfigDocument, K>>;
  readonly generation: number;
  update<T>(change: (draft: Pick<ConfigDocument, K>) => T): Promise<T>;
}

type SliceKey = keyof ConfigDocument;

/**
 * The configuration store. Readers get the current document; writers go through `update`, which
 * applies the change to a copy, writes it durably and only then makes it current, one update at a
 * time. So what the engine serves is always what is on disk.
 */
export class ConfigStore implements ConfigSlice<SliceKey> {
  readonly #db: Low<ConfigDocument>;
  #chain: Promise<unknown> = Promise.resolve();
  /** A counter that grows with every change; each key remembers the value of its last change. */
  #generation = 0;
  readonly #changedAt = new Map<SliceKey, number>();
  /** Each key's JSON as last written, to tell which keys an update changed. */
  readonly #written = new Map<SliceKey, string>();

  private constructor(db: Low<ConfigDocument>) {
    this.#db = db;
    for (const key of Object.keys(db.data) as SliceKey[]) this.#written.set(key, JSON.stringify(db.data[key]));
  }

  static async open(dataDir: string, clock: Clock): Promise<ConfigStore> {
    const adapter = new DurableJsonFile<ConfigDocument>(join(dataDir, CONFIG_FILE_NAME));
    const fresh = emptyDocument(newId('ent'), clock.now(), () => newSecret());
    const db = new Low<ConfigDocument>(adapter, fresh);
    await db.read();
    const { doc, migrated } = migrate(db.data);
    db.data = doc;
    const store = new ConfigStore(db);
    if (migrated || doc === fresh) await db.write();
    return store;
  }

  get data(): Readonly<ConfigDocument> {
    return this.#db.data;
  }

  /** Grows with every change of the document. */
  get generation(): number {
    return this.#generation;
  }

  /** Grows whenever one of `keys` changes, and only then. */
  generationOf(keys: readonly SliceKey[]): number {
    let latest = 0;
    for (const key of keys) latest = Math.max(latest, this.#changedAt.get(key) ?? 0);
    return latest;
  }

  /** The slice of `keys`, for a service that needs only them. */
  slice<K extends SliceKey>(keys: readonly K[]): ConfigSlice<K> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the slice reads the store's current state.
    const store = this;
    // Read on the verdict path: worked out again only after the store changed.
    let seen = -1;
    let latest = 0;
    return {
      get data() {
        return store.data;
      },
      get generation() {
        if (seen !== store.#generation) {
          seen = store.#generation;
          latest = store.generationOf(keys);
        }
        return latest;
      },
      update: (change) => store.update(change),
    };
  }

  /** Runs `change` on a draft of the document, persists it, then publishes it. */
  update<T>(change: (draft: ConfigDocument) => T): Promise<T> {
    const run = async (): Promise<T> => {
      const draft = structuredClone(this.#db.data);
      const result = change(draft);
      const previous = this.#db.data;
      this.#db.data = draft;
      try {
        await this.#db.write();
      } catch (error) {
        this.#db.data = previous;
        throw error;
      }
      this.#noteChanges(draft);
      return result;
    };
    const next = this.#chain.then(run, run);
    this.#chain = next.catch(() => undefined);
    return next;
  }

  /** Moves the generation of every key whose content the last update changed (writes are rare). */
  #noteChanges(doc: ConfigDocument): void {
    this.#generation++;
    for (const key of Object.keys(doc) as SliceKey[]) {
      const json = JSON.stringify(doc[key]);
      if (this.#written.get(key) === json) continue;
      this.#written.set(key, json);
      this.#changedAt.set(key, this.#generation);
    }
  }
}
