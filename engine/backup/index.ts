/**
 * Backup and restore (issue 19, item 3): one versioned archive of the data directory (the
 * configuration with its accounts, sites, rules, certificates, keys and licence; the bans; uploaded
 * rule sets) and optionally the logs, encrypted with a passphrase (scrypt, AES-256-GCM, the header
 * authenticated). Restore checks the archive's format and configuration schema and refuses a newer
 * one, stages the content, keeps it only once the archive checks out, and swaps it into a data
 * directory no engine is running on. `npm run backup` is the command line.
 */
export { createBackup, restoreBackup, stageRestore, applyPendingRestore, pendingRestoreDir } from './backup.ts';
export type { BackupOptions, BackupSummary, RestoreOptions, RestoreSummary } from './backup.ts';
export { readHeader, writeArchive, readArchive, ARCHIVE_FORMAT, MIN_PASSPHRASE } from './archive.ts';
export type { ArchiveHeader, Frame } from './archive.ts';
export { consoleBackup } from './console-port.ts';
export {
  prepareUpgrade,
  recordDataFormat,
  UPGRADE_BACKUPS_DIR,
  UPGRADE_BACKUPS_KEPT,
  DATA_FORMAT_FILE,
} from './upgrade.ts';
export type { DataFormat, UpgradePlan } from './upgrade.ts';
export type { ConsoleBackup, ConsoleBackupDeps } from './console-port.ts';
