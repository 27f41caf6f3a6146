import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Clock } from '#engine/shared';
import { createBackup, stageRestore } from './backup.ts';

export interface ConsoleBackupDeps {
  dataDir: string;
  /** The running log store's snapshot of entries, for a backup with the logs. */
  logEntries(): AsyncIterable<[Buffer, string]>;
  engineVersion: string;
  clock: Clock;
}

/** What the console's backup and restore operations need, on a running engine. */
export interface ConsoleBackup {
  create(passphrase: string, logs: boolean): Promise<{ fileName: string; content: Readable }>;
  stage(
    archive: Buffer,
    passphrase: string,
  ): Promise<{
    engineVersion: string;
    schemaVersion: number;
    createdAt: number;
    logs: boolean;
    files: number;
    logEntries: number;
  }>;
}

/** A private temporary directory (0700) removed once `use` is done with it, or once its stream closes. */
async function scratch(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'rampart-backup-'));
}

export function consoleBackup(deps: ConsoleBackupDeps): ConsoleBackup {
  return {
    async create(passphrase, logs) {
      const dir = await scratch();
      const stamp = new Date(deps.clock.now()).toISOString().replace(/[:.]/g, '-');
      const fileName = `rampart-backup-${stamp}.rbk`;
      const file = join(dir, fileName);
      try {
        await createBackup({
          dataDir: deps.dataDir,
          file,
          passphrase,
          ...(logs ? { logs: deps.logEntries() } : {}),
          engineVersion: deps.engineVersion,
          clock: deps.clock,
        });
      } catch (error) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
      const content = createReadStream(file);
      content.once('close', () => void rm(dir, { recursive: true, force: true }));
      return { fileName, content };
    },
    async stage(archive, passphrase) {
      const dir = await scratch();
      try {
        const file = join(dir, 'upload.rbk');
        await writeFile(file, archive, { mode: 0o600 });
        const staged = await stageRestore({ file, passphrase, dataDir: deps.dataDir, clock: deps.clock });
        const { engineVersion, schemaVersion, createdAt, logs } = staged.header;
        return { engineVersion, schemaVersion, createdAt, logs, files: staged.files, logEntries: staged.logEntries };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
