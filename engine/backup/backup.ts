import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { CONFIG_FILE_NAME, SCHEMA_VERSION } from '#engine/config-store';
import { LogStore } from '#engine/log-store';
import { RampartError, type Clock } from '#engine/shared';
import { readArchive, readHeader, writeArchive, type ArchiveHeader, type Frame } from './archive.ts';

/**
 * What a backup leaves out of the data directory: the log store (its entries go in only on
 * request, read from a snapshot), the copies taken before upgrades, the configuration's previous
 * generation, the event engine's window state (rebuilt from the logs), and unfinished writes.
 */
const SKIPPED = (path: string): boolean => {
  const top = path.split('/')[0] ?? '';
  const name = basename(path);
  return (
    top === 'logs' ||
    top === 'upgrade-backups' ||
    name.endsWith('.bak') ||
    name.endsWith('.tmp') ||
    name.startsWith('.') ||
    name === 'events-state.json' ||
    name === 'LOCK'
  );
};

export async function* filesUnder(root: string, dir = root): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(root, path).split(sep).join('/');
    if (SKIPPED(rel)) continue;
    if (entry.isDirectory()) yield* filesUnder(root, path);
    else if (entry.isFile()) yield rel;
  }
}

export interface BackupOptions {
  dataDir: string;
  /** The archive to write (must not exist). */
  file: string;
  passphrase: string;
  /** The log store's entries, when the logs go in (a running engine's store, or one opened for it). */
  logs?: AsyncIterable<[Buffer, string]>;
  engineVersion: string;
  clock: Clock;
}

export interface BackupSummary {
  file: string;
  files: number;
  logEntries: number;
  bytes: number;
  header: Omit<ArchiveHeader, 'kdf' | 'iv'>;
}

/**
 * Writes a versioned, passphrase-encrypted archive of the data directory: the configuration
 * (accounts, sites, rules, events, log configurations with their certificates and keys, the
 * licence, the signing secrets), the bans, uploaded rule sets and whatever else the engine keeps
 * there, and optionally the logs. Written to a temporary name and renamed, so a failed backup
 * leaves no archive that looks whole.
 */
export async function createBackup(options: BackupOptions): Promise<BackupSummary> {
  const { dataDir } = options;
  const configText = await readFile(join(dataDir, CONFIG_FILE_NAME), 'utf8').catch((cause: unknown) => {
    throw new RampartError('NOT_FOUND', `data: no configuration in ${dataDir} to back up`, {
      field: 'data',
      cause,
    });
  });
  const schemaVersion = (JSON.parse(configText) as { schemaVersion?: unknown }).schemaVersion;
  const header = {
    engineVersion: options.engineVersion,
    schemaVersion: typeof schemaVersion === 'number' ? schemaVersion : SCHEMA_VERSION,
    createdAt: options.clock.now(),
    logs: options.logs !== undefined,
  };
  let files = 0;
  let logEntries = 0;
  async function* frames(): AsyncGenerator<Frame> {
    for await (const path of filesUnder(dataDir)) {
      files++;
      yield { kind: 'file', path, data: await readFile(join(dataDir, ...path.split('/'))) };
    }
    if (options.logs) {
      for await (const [key, value] of options.logs) {
        logEntries++;
        yield { kind: 'entry', key, value };
      }
    }
  }
  const partial = `${options.file}.partial`;
  await rm(partial, { force: true });
  try {
    await writeArchive(partial, options.passphrase, header, frames());
    await rename(partial, options.file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return {
    file: options.file,
    files,
    logEntries,
    bytes: (await stat(options.file)).size,
    header: { format: 1, ...header, cipher: 'aes-256-gcm' },
  };
}

export interface RestoreOptions {
  file: string;
  passphrase: string;
  /** The data directory to restore into: absent or empty, unless `replace`. */
  dataDir: string;
  /** Restore over an existing data directory, which is kept beside it as `<dir>.before-restore-<time>`. */
  replace?: boolean;
  clock: Clock;
}

export interface RestoreSummary {
  files: number;
  logEntries: number;
  header: ArchiveHeader;
  /** Where the data directory that was replaced now is. */
  previous: string | null;
}

async function isEmptyDir(dir: string): Promise<boolean | null> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw error;
  }
}

/** A path from the archive, inside `root`; refuses `..`, absolute and empty paths. */
function inside(root: string, path: string): string {
  const target = resolve(root, ...path.split('/'));
  if (path === '' || path.startsWith('/') || !target.startsWith(root + sep)) {
    throw new RampartError('VALIDATION_FAILED', `archive: holds a path outside the data directory (${path})`, {
      field: 'archive',
      params: { reason: 'backup_damaged' },
    });
  }
  return target;
}

/**
 * Restores an archive into a data directory for an engine that is not running there. Checks the
 * version first (an archive from a newer Rampart, by archive format or configuration schema, is
 * refused; an older configuration is migrated when the engine opens it), stages everything in a
 * directory beside the target, keeps it only once the archive's tag has checked out, and then
 * swaps it in; on any failure the target is untouched.
 */
export async function restoreBackup(options: RestoreOptions): Promise<RestoreSummary> {
  const dataDir = resolve(options.dataDir);
  const { header } = await readHeader(options.file);
  if (typeof header.schemaVersion !== 'number' || header.schemaVersion > SCHEMA_VERSION) {
    throw new RampartError(
      'VALIDATION_FAILED',
      `archive: its configuration has schema ${String(header.schemaVersion)}, written by Rampart ${header.engineVersion}; this Rampart reads up to schema ${SCHEMA_VERSION}. Upgrade Rampart first.`,
      {
        field: 'archive',
        params: { reason: 'backup_newer', schemaVersion: header.schemaVersion, max: SCHEMA_VERSION },
      },
    );
  }
  const empty = await isEmptyDir(dataDir);
  if (empty === false && !options.replace) {
    throw new RampartError(
      'VALIDATION_FAILED',
      `data: ${dataDir} is not empty; restore into a fresh data directory, or pass --replace to keep the current one beside it`,
      { field: 'data', params: { reason: 'backup_target_not_empty' } },
    );
  }
  const stamp = new Date(options.clock.now()).toISOString().replace(/[:.]/g, '-');
  const staging = join(dirname(dataDir), `.${basename(dataDir)}.restoring-${stamp}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true, mode: 0o700 });
  let files = 0;
  let logEntries = 0;
  let complete = false;
  try {
    const frames = readArchive(options.file, options.passphrase);
    let next = await frames.next();
    while (!next.done && next.value.kind === 'file') {
      const target = inside(staging, next.value.path);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await writeFile(target, next.value.data, { mode: 0o600 });
      files++;
      next = await frames.next();
    }
    if (!next.done && next.value.kind === 'entry') {
      const first = next.value;
      async function* rest(): AsyncGenerator<[Buffer, string]> {
        yield [first.key, first.value];
        for (;;) {
          const more = await frames.next();
          if (more.done) return;
          if (more.value.kind === 'end') {
            complete = true;
            return;
          }
          if (more.value.kind !== 'entry') break;
          yield [more.value.key, more.value.value];
        }
        throw new RampartError('VALIDATION_FAILED', 'archive: damaged content', {
          field: 'archive',
          params: { reason: 'backup_damaged' },
        });
      }
      logEntries = await LogStore.writeEntries(staging, rest());
    } else if (!next.done && next.value.kind === 'end') complete = true;
    if (!complete) {
      throw new RampartError('VALIDATION_FAILED', 'archive: it ends too early (damaged or cut short)', {
        field: 'archive',
        params: { reason: 'backup_damaged' },
      });
    }
    let previous: string | null = null;
    if (empty === false) {
      previous = `${dataDir}.before-restore-${stamp}`;
      await rename(dataDir, previous);
    } else if (empty === true) await rm(dataDir, { recursive: true });
    await rename(staging, dataDir);
    return { files, logEntries, header, previous };
  } finally {
    if (!complete || (await isEmptyDir(staging)) !== null) await rm(staging, { recursive: true, force: true });
  }
}

/** Where a restore made by a running engine waits for the next start: beside the data directory. */
export function pendingRestoreDir(dataDir: string): string {
  const dir = resolve(dataDir);
  return join(dirname(dir), `.${basename(dir)}.restore-pending`);
}

/**
 * Restores an archive for a running engine: checked and unpacked whole beside its data directory
 * (replacing an earlier pending one), and swapped in by `applyPendingRestore` at the next start,
 * before anything opens the data directory.
 */
export async function stageRestore(options: Omit<RestoreOptions, 'replace'>): Promise<RestoreSummary> {
  const pending = pendingRestoreDir(options.dataDir);
  const staged = await restoreBackup({ ...options, dataDir: `${pending}.new` });
  await rm(pending, { recursive: true, force: true });
  await rename(`${pending}.new`, pending);
  return staged;
}

/**
 * At start-up, before the stores open: a restore staged by `stageRestore` becomes the data
 * directory, and the current one is kept beside it (`<dir>.before-restore-<time>`). Returns where
 * the previous directory went, or null when nothing was pending.
 */
export async function applyPendingRestore(dataDir: string, clock: Clock): Promise<string | null> {
  const pending = pendingRestoreDir(dataDir);
  if ((await isEmptyDir(pending)) === null) return null;
  const dir = resolve(dataDir);
  const previous = `${dir}.before-restore-${new Date(clock.now()).toISOString().replace(/[:.]/g, '-')}`;
  if ((await isEmptyDir(dir)) !== null) await rename(dir, previous);
  await rename(pending, dir);
  return previous;
}
