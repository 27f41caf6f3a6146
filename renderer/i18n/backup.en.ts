/** English texts of Enterprise Management > Backup (engine/backup); spread into en.ts. */
export const backupEn = {
  'menu.enterprise.backup': 'Backup',
  'field.passphrase': 'Passphrase',
  'field.archive': 'Archive',

  'backup.title': 'Backup and restore',
  'backup.intro':
    'A backup holds the whole configuration: accounts, sites, rules, events, log configurations, certificates, keys and the licence, and the logs if you ask. It is encrypted with your passphrase; without the passphrase nobody can restore it, you included.',
  'backup.create.title': 'Create a backup',
  'backup.create.description': 'Keep the archive and its passphrase in separate safe places.',
  'backup.passphrase': 'Passphrase (at least 10 characters)',
  'backup.confirm': 'Repeat the passphrase',
  'backup.passphraseShort': 'Enter at least 10 characters.',
  'backup.mismatch': 'The two passphrases differ.',
  'backup.logs': 'Include the logs (the archive can be much larger)',
  'backup.download': 'Download backup',
  'backup.downloaded': 'Backup {file} downloaded.',
  'backup.restore.title': 'Restore a backup',
  'backup.restore.description':
    'The archive is checked now and replaces the configuration when Rampart next starts; the current data is kept beside it. An archive made by a newer Rampart is refused. Archives over 64 MB (with large logs) are restored from the command line: npm run backup -- restore.',
  'backup.restore.choose': 'Choose archive',
  'backup.restore.chosen': 'Archive: {file}',
  'backup.restore.submit': 'Check and restore',
  'backup.restore.tooLarge': '{file} is {size} MB; the console restores archives of up to 64 MB.',
  'backup.restore.staged':
    'The backup of {date} (Rampart {version}) is checked and ready: restart Rampart to finish the restore.',
  'backup.refused.backup_passphrase': 'Wrong passphrase, or the archive is damaged.',
  'backup.refused.backup_newer': 'This archive was made by a newer Rampart. Upgrade Rampart first, then restore it.',
  'backup.refused.backup_damaged': 'The archive is damaged or incomplete.',
  'backup.refused.backup_not_archive': 'This file is not a Rampart backup.',
} as const;
