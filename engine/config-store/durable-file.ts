import { open, readFile, rename, unlink, link, mkdir } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { RampartError } from '#engine/shared';

/**
 * A lowdb adapter whose writes survive a crash at any instant: the new generation is written to a
 * temporary file and fsynced, the current generation is kept as `<name>.bak` (a hard link, no
 * copy), the temporary file is renamed over the main file and the directory is fsynced. rename(2)
 * is atomic, so the main file is always a whole generation, old or new.
 *
 * Reading falls back to the previous generation only when the main file is missing (a crash in
 * the instant between the two renames cannot cause that, but an operator deleting it can).
 */
export class DurableJsonFile<T> implements Adapter<T> {
  readonly #path: string;
  readonly #backup: string;
  #queue: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
    this.#backup = `${path}.bak`;
  }

  get path(): string {
    return this.#path;
  }

  async read(): Promise<T | null> {
    const main = await readJson<T>(this.#path);
    if (main !== undefined) return main;
    const backup = await readJson<T>(this.#backup);
    return backup ?? null;
  }

  /** Writes are serialised: each one starts after the previous has reached the disk. */
  write(data: T): Promise<void> {
    return this.writeText([JSON.stringify(data, null, 2)]);
  }

  /**
   * Writes JSON text given in pieces (made as they are written: a large document need not be one
   * string, nor be made in one turn of the event loop), in the same way and queue as `write`.
   */
  writeText(pieces: Iterable<string> | AsyncIterable<string>): Promise<void> {
    const next = this.#queue.then(() => this.#writeNow(pieces));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #writeNow(pieces: Iterable<string> | AsyncIterable<string>): Promise<void> {
    const dir = dirname(this.#path);
    await mkdir(dir, { recursive: true });
    const tmp = join(dir, `.${basename(this.#path)}.${process.pid}.tmp`);
    const handle = await open(tmp, 'w', 0o600);
    try {
      for await (const piece of pieces) if (piece.length > 0) await handle.write(piece, null, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await this.#keepPreviousGeneration(dir);
    await rename(tmp, this.#path);
    await fsyncDir(dir);
  }

  async #keepPreviousGeneration(dir: string): Promise<void> {
    const staging = join(dir, `.${basename(this.#backup)}.${process.pid}.tmp`);
    await unlink(staging).catch(() => undefined);
    try {
      await link(this.#path, staging);
    } catch (error) {
      if (isNotFound(error)) return; // first write: nothing to keep
      throw error;
    }
    await rename(staging, this.#backup);
  }
}

async function readJson<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new RampartError(
      'CONFIG_CORRUPT',
      `The configuration file ${path} is not valid JSON. Restore it from ${path}.bak or remove it to start empty.`,
      { cause, params: { path } },
    );
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}
