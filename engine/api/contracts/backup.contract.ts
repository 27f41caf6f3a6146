import { z } from 'zod';
import { defineContract } from './contract.ts';

/** Backups hold every secret of the appliance: administrators only. */
const ADMINS = ['administrator'] as const;

/** The largest archive the console uploads for a restore (a configuration's is far smaller; logs go by the command line). */
export const MAX_RESTORE_ARCHIVE_BYTES = 64 * 1024 * 1024;
const MAX_RESTORE_BASE64 = Math.ceil(MAX_RESTORE_ARCHIVE_BYTES / 3) * 4;

const passphrase = z
  .string()
  .min(10, 'must be at least 10 characters')
  .max(1024, 'must be at most 1024 characters')
  .describe('encrypts the archive (scrypt, AES-256-GCM); without it the archive cannot be restored');

export const downloadBackup = defineContract({
  method: 'POST',
  path: '/system/backup',
  operationId: 'downloadBackup',
  summary:
    'A versioned archive of the configuration (accounts, sites, rules, certificates, keys, licence), the bans and, on request, the logs, encrypted with the passphrase',
  tag: 'system',
  access: ADMINS,
  body: z.object({ passphrase, logs: z.boolean().default(false).describe('include the logs') }).strict(),
  produces: 'download',
  downloadType: 'application/octet-stream',
});

export const restoreSummary = z.object({
  engineVersion: z.string().describe('the Rampart that wrote the archive'),
  schemaVersion: z.number().int(),
  createdAt: z.number(),
  logs: z.boolean(),
  files: z.number().int(),
  logEntries: z.number().int(),
  pending: z.literal(true).describe('the restore takes effect when the engine next starts'),
});
export type RestoreSummaryView = z.infer<typeof restoreSummary>;

export const stageRestore = defineContract({
  method: 'POST',
  path: '/system/restore',
  operationId: 'stageRestore',
  summary:
    'Check an archive (passphrase, version: a newer one is refused) and unpack it beside the data directory; it replaces the configuration at the next start (the current data is kept beside it)',
  tag: 'system',
  access: ADMINS,
  body: z
    .object({
      fileName: z.string().min(1, 'is required').max(255),
      contentBase64: z
        .string()
        .min(1, 'is required')
        .max(MAX_RESTORE_BASE64, `must be at most ${MAX_RESTORE_ARCHIVE_BYTES / 1024 / 1024} MB`)
        .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64'),
      passphrase,
    })
    .strict(),
  bodyLimit: MAX_RESTORE_BASE64 + 4096,
  status: 202,
  response: restoreSummary,
});
