/**
 * Upgrades (issue 19, item 5): a data folder written by the previous release (configuration schema
 * 9, made here by this test from a folder the current engine wrote) is migrated at start with a
 * copy of the folder taken first; a migration that fails, and a folder from a newer Rampart, leave
 * every file as it was.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_FILE_NAME, SCHEMA_VERSION } from '#engine/config-store';
import { DATA_FORMAT_FILE, UPGRADE_BACKUPS_DIR, type DataFormat } from '#engine/backup';
import { isRampartError } from '#engine/shared';
import { startTestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

const PASSWORD = 'Rampart#2026x';
const folders: string[] = [];

afterEach(async () => {
  for (const dir of folders.splice(0)) await rm(dir, { recursive: true, force: true });
});

/**
 * A folder as the previous release left it: the current engine writes it (an administrator, a
 * site), then its configuration is turned back into schema 9, which had no console certificate,
 * no administration settings and no second factors, and no data-format file.
 */
async function previousReleaseFolder(edit: (doc: Record<string, unknown>) => void = () => undefined): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'rampart-upgrade-'));
  folders.push(dataDir);
  const engine = await startTestEngine({}, { dataDir });
  const admin = new ApiClient(engine.url);
  expect((await admin.setup('admin@example.com', PASSWORD)).status).toBe(201);
  expect(
    (await admin.request('POST', '/sites', { name: 'shop', domain: 'shop.example.com', accessMethod: 'plugin' }))
      .status,
  ).toBe(201);
  await engine.stop();
  const file = join(dataDir, CONFIG_FILE_NAME);
  const doc = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  delete doc.consoleTls;
  delete doc.admin;
  for (const account of doc.accounts as Record<string, unknown>[]) delete account.twoFactor;
  doc.schemaVersion = 9;
  edit(doc);
  await writeFile(file, JSON.stringify(doc, null, 2));
  await rm(`${file}.bak`, { force: true });
  await rm(join(dataDir, DATA_FORMAT_FILE), { force: true });
  return dataDir;
}

/** Every file of the folder (logs included) by its path, with its SHA-256 and size. */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (at: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) await walk(path);
      else
        out[relative(dir, path)] = createHash('sha256')
          .update(await readFile(path))
          .digest('hex');
    }
  };
  await walk(dir);
  return out;
}

async function startFails(dataDir: string): Promise<unknown> {
  try {
    const engine = await startTestEngine({}, { dataDir });
    await engine.stop();
  } catch (error) {
    return error;
  }
  throw new Error('the engine started');
}

describe('an upgrade of the data folder', () => {
  it('migrates a folder of the previous release at start, after copying it', async () => {
    const dataDir = await previousReleaseFolder();
    const before = await readFile(join(dataDir, CONFIG_FILE_NAME));
    const key = await readFile(join(dataDir, 'secret.key'));

    const engine = await startTestEngine({}, { dataDir });
    try {
      const admin = new ApiClient(engine.url);
      expect((await admin.signIn('admin@example.com', PASSWORD)).status).toBe(200);
      const sites = await admin.request<{ items: { name: string }[] }>('GET', '/sites');
      expect(sites.body.items.map((s) => s.name)).toEqual(['shop']);
      expect((await admin.request<{ source: string }>('GET', '/system/console-certificate')).body.source).toBe(
        'generated',
      );
    } finally {
      await engine.stop();
    }

    const migrated = JSON.parse(await readFile(join(dataDir, CONFIG_FILE_NAME), 'utf8')) as { schemaVersion: number };
    expect(migrated.schemaVersion).toBe(SCHEMA_VERSION);
    const format = JSON.parse(await readFile(join(dataDir, DATA_FORMAT_FILE), 'utf8')) as DataFormat;
    expect(format.schemaVersion).toBe(SCHEMA_VERSION);
    expect(format.upgrades).toHaveLength(1);
    expect(format.upgrades[0]).toMatchObject({ from: 9, to: SCHEMA_VERSION });
    const copy = join(dataDir, format.upgrades[0]!.backup);
    expect(format.upgrades[0]!.backup).toMatch(
      new RegExp(`^${UPGRADE_BACKUPS_DIR}/\\d{8}T\\d{6}Z-schema-9-to-${SCHEMA_VERSION}$`),
    );
    expect(await readFile(join(copy, CONFIG_FILE_NAME))).toEqual(before);
    expect(await readFile(join(copy, 'secret.key'))).toEqual(key);
    expect((await stat(copy)).mode & 0o777).toBe(0o700);
    expect((await stat(join(copy, CONFIG_FILE_NAME))).mode & 0o777).toBe(0o600);
    await expect(stat(join(copy, 'logs'))).rejects.toThrow();

    // A second start is no upgrade: no new copy.
    const again = await startTestEngine({}, { dataDir });
    await again.stop();
    expect(await readdir(join(dataDir, UPGRADE_BACKUPS_DIR))).toHaveLength(1);
  }, 90_000);

  it('changes nothing when a migration fails', async () => {
    const dataDir = await previousReleaseFolder((doc) => {
      doc.accounts = { damaged: true };
    });
    const before = await fingerprint(dataDir);
    const error = await startFails(dataDir);
    expect(isRampartError(error) && error.code).toBe('CONFIG_CORRUPT');
    expect(isRampartError(error) && error.params.reason).toBe('upgrade_failed');
    expect((error as Error).message).toMatch(
      /schema 9 to \d+ failed: .*accounts.*Nothing in the data folder was changed/,
    );
    expect(await fingerprint(dataDir)).toEqual(before);
  }, 60_000);

  it('refuses a folder written by a newer Rampart and changes nothing', async () => {
    const dataDir = await previousReleaseFolder((doc) => {
      doc.schemaVersion = SCHEMA_VERSION + 1;
    });
    const before = await fingerprint(dataDir);
    const error = await startFails(dataDir);
    expect((error as Error).message).toMatch(/newer Rampart/);
    expect(await fingerprint(dataDir)).toEqual(before);
  }, 60_000);
});
