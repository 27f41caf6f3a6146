import { RampartError } from '#engine/shared';
import { bindRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import { downloadBackup, stageRestore } from '../schemas.ts';

/** Backup and restore (engine/backup): administrators download an archive, or stage one for the next start. */
export function backupRoutes(deps: ApiDeps): AnyRoute[] {
  const port = (): NonNullable<ApiDeps['backup']> => {
    if (!deps.backup) throw new RampartError('NOT_FOUND', 'Backups are not available in this engine');
    return deps.backup;
  };
  return [
    bindRoute(downloadBackup, async ({ body }) => {
      const archive = await port().create(body.passphrase, body.logs);
      return { fileName: archive.fileName, contentType: 'application/octet-stream', content: archive.content };
    }),
    bindRoute(stageRestore, async ({ body }) => ({
      ...(await port().stage(Buffer.from(body.contentBase64, 'base64'), body.passphrase)),
      pending: true as const,
    })),
  ];
}
