import { join } from 'node:path';
import { Low } from 'lowdb';
import { newId, newSecret, type Clock } from '#engine/shared';
import { DurableJsonFile } from './durable-file.ts';
import { emptyDocument, type ConfigDocument } from './document.ts';
import { migrate } from './migrations.ts';

export const CONFIG_FILE_NAME = 'config.json';

/**
 * The configuration store. Readers get the current document; writers go through `update`, which
 * applies the change to a copy, writes it durably and only then makes it current, one update at a
 * time. So what the engine serves is always what is on disk.
 */
export class ConfigStore {
  readonly #db: Low<ConfigDocument>;
  #chain: Promise<unknown> = Promise.resolve();

  private constructor(db: Low<ConfigDocument>) {
    this.#db = db;
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
      return result;
    };
    const next = this.#chain.then(run, run);
    this.#chain = next.catch(() => undefined);
    return next;
  }
}
