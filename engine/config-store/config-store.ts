import { join } from 'node:path';
import { Low, type Adapter } from 'lowdb';
import { RampartError, newId, newSecret, type Clock } from '#engine/shared';
import { DurableJsonFile } from './durable-file.ts';
import { emptyDocument, type ConfigDocument } from './document.ts';
import { migrate } from './migrations.ts';
import {
  SECRET_KEY_FILE_NAME,
  SecretBox,
  hasPlainSecrets,
  hasSealedSecrets,
  loadSecretKey,
  openSecrets,
  sealSecrets,
} from './secret-box.ts';

export const CONFIG_FILE_NAME = 'config.json';

export interface ConfigStoreOptions {
  /** The secret key's file (default `<dataDir>/secret.key`): kept apart from the configuration if set. */
  secretKeyFile?: string | undefined;
}

/** Writes the document with its secrets sealed; the store keeps them plain in memory. */
class SealingFile implements Adapter<ConfigDocument> {
  constructor(
    readonly file: DurableJsonFile<ConfigDocument>,
    readonly box: SecretBox,
  ) {}
  read(): Promise<ConfigDocument | null> {
    return Promise.reject(new Error('the configuration is read once, at open'));
  }
  write(data: ConfigDocument): Promise<void> {
    return this.file.write(sealSecrets(data, this.box));
  }
}

/**
 * The stored document of `dataDir` with its secrets opened, read without migrating or writing (for
 * tools and tests that look at a data folder; the engine goes through `ConfigStore.open`).
 */
export async function readConfigDocument(dataDir: string, options: ConfigStoreOptions = {}): Promise<ConfigDocument> {
  const raw = await new DurableJsonFile<ConfigDocument>(join(dataDir, CONFIG_FILE_NAME)).read();
  if (raw === null) throw new RampartError('NOT_FOUND', `data: no configuration in ${dataDir}`, { field: 'data' });
  const keyFile = options.secretKeyFile ?? join(dataDir, SECRET_KEY_FILE_NAME);
  openSecrets(raw, new SecretBox(await loadSecretKey(keyFile, false)), keyFile);
  return raw;
}

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

  /**
   * Opens the configuration of `dataDir`. Its secrets are opened with the secret key, which is made
   * on first start (and for a data folder from before encryption); a missing or wrong key for a file
   * that holds sealed secrets stops here with CONFIG_CORRUPT, before anything is written.
   */
  static async open(dataDir: string, clock: Clock, options: ConfigStoreOptions = {}): Promise<ConfigStore> {
    const file = new DurableJsonFile<ConfigDocument>(join(dataDir, CONFIG_FILE_NAME));
    const raw = await file.read();
    const keyFile = options.secretKeyFile ?? join(dataDir, SECRET_KEY_FILE_NAME);
    const box = new SecretBox(await loadSecretKey(keyFile, !hasSealedSecrets(raw)));
    const inClear = hasPlainSecrets(raw);
    openSecrets(raw, box, keyFile);
    const fresh = emptyDocument(newId('ent'), clock.now(), () => newSecret());
    const db = new Low<ConfigDocument>(new SealingFile(file, box), fresh);
    db.data = raw ?? fresh;
    const { doc, migrated } = migrate(db.data);
    db.data = doc;
    const store = new ConfigStore(db);
    if (migrated || doc === fresh || inClear) await db.write();
    // The previous generation (`.bak`) of a file that had secrets in clear has them too: a second
    // write makes it the sealed one.
    if (inClear) await db.write();
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
