import { copyFile, mkdir, readdir, readFile, rm, writeFile, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CONFIG_FILE_NAME, DurableJsonFile, SCHEMA_VERSION, migrate } from '#engine/config-store';
import { RampartError, isRampartError, type Clock } from '#engine/shared';
import { filesUnder } from './backup.ts';

/** Copies of the data folder taken before an upgrade, one folder each, newest kept. */
export const UPGRADE_BACKUPS_DIR = 'upgrade-backups';
export const UPGRADE_BACKUPS_KEPT = 5;
/** What the data folder holds, by format version, and the upgrades it went through. */
export const DATA_FORMAT_FILE = 'data-format.json';

export interface DataFormat {
  /** This file's own format. */
  format: 1;
  /** The configuration document's schema (engine/config-store). */
  schemaVersion: number;
  /** The Rampart that last started on the folder. */
  engineVersion: string;
  updatedAt: number;
  upgrades: { from: number; to: number; engineVersion: string; at: number; backup: string }[];
}

export interface UpgradePlan {
  /** The schema the folder holds; null for a new folder. */
  from: number | null;
  to: number;
  /** The folder (below the data folder) the copy taken before migrating went to, when there was one. */
  backup: string | null;
}

/**
 * Runs before the configuration store opens the data folder. When the folder was written by an
 * older Rampart, the migrations are first tried on a copy in memory: one that fails stops the
 * start with CONFIG_CORRUPT (`params.reason = upgrade_failed`) and nothing in the folder is changed.
 * Otherwise every file but the logs is copied to `upgrade-backups/<time>-schema-<from>-to-<to>/`
 * (mode 0700, synced) before the configuration store migrates the document in place.
 *
 * The log store needs no copy: its format upgrades rewrite only what is derived from the records
 * (roll-ups), never the records, and start again from the beginning after a crash.
 */
export async function prepareUpgrade(dataDir: string, clock: Clock): Promise<UpgradePlan> {
  const raw = await new DurableJsonFile<Record<string, unknown>>(join(dataDir, CONFIG_FILE_NAME)).read();
  if (raw === null) return { from: null, to: SCHEMA_VERSION, backup: null };
  const from = raw.schemaVersion;
  // A missing, malformed or newer version is the configuration store's to refuse, with its message.
  if (typeof from !== 'number' || !Number.isInteger(from) || from >= SCHEMA_VERSION) {
    return { from: typeof from === 'number' ? from : null, to: SCHEMA_VERSION, backup: null };
  }
  try {
    migrate(structuredClone(raw));
  } catch (error) {
    const reason = isRampartError(error) || error instanceof Error ? error.message : String(error);
    throw new RampartError(
      'CONFIG_CORRUPT',
      `Upgrading the configuration from schema ${from} to ${SCHEMA_VERSION} failed: ${reason} Nothing in the data folder was changed; start the Rampart that wrote it, or restore a backup.`,
      { cause: error, params: { reason: 'upgrade_failed', from, to: SCHEMA_VERSION } },
    );
  }
  const stamp = new Date(clock.now())
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const name = `${stamp}-schema-${from}-to-${SCHEMA_VERSION}`;
  const target = join(dataDir, UPGRADE_BACKUPS_DIR, name);
  await copyDataFolder(dataDir, target);
  await pruneUpgradeBackups(join(dataDir, UPGRADE_BACKUPS_DIR));
  return { from, to: SCHEMA_VERSION, backup: `${UPGRADE_BACKUPS_DIR}/${name}` };
}

/** Records what the folder holds now, and the upgrade just made; called once the engine has started. */
export async function recordDataFormat(
  dataDir: string,
  plan: UpgradePlan,
  engineVersion: string,
  clock: Clock,
): Promise<DataFormat> {
  const file = new DurableJsonFile<DataFormat>(join(dataDir, DATA_FORMAT_FILE));
  const previous = await file.read().catch(() => null);
  const upgrades = Array.isArray(previous?.upgrades) ? previous.upgrades : [];
  const now = clock.now();
  if (plan.from !== null && plan.from < plan.to) {
    upgrades.push({ from: plan.from, to: plan.to, engineVersion, at: now, backup: plan.backup ?? '' });
  }
  const format: DataFormat = { format: 1, schemaVersion: plan.to, engineVersion, updatedAt: now, upgrades };
  await file.write(format);
  return format;
}

async function copyDataFolder(dataDir: string, target: string): Promise<void> {
  await mkdir(target, { recursive: true, mode: 0o700 });
  // filesUnder leaves out the logs and the earlier upgrade copies.
  for await (const rel of filesUnder(dataDir)) {
    const to = join(target, rel);
    await mkdir(dirname(to), { recursive: true, mode: 0o700 });
    await copyFile(join(dataDir, rel), to);
    const handle = await open(to, 'r+');
    try {
      await handle.chmod(0o600);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
  // The configuration's previous generation too: it is what an operator goes back to by hand.
  const bak = join(dataDir, `${CONFIG_FILE_NAME}.bak`);
  const text = await readFile(bak).catch(() => undefined);
  if (text !== undefined) await writeFile(join(target, `${CONFIG_FILE_NAME}.bak`), text, { mode: 0o600 });
}

async function pruneUpgradeBackups(dir: string): Promise<void> {
  const names = (await readdir(dir)).sort();
  for (const old of names.slice(0, Math.max(0, names.length - UPGRADE_BACKUPS_KEPT))) {
    await rm(join(dir, old), { recursive: true, force: true });
  }
}
