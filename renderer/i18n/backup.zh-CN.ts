import type { backupEn } from './backup.en.ts';

/** Chinese texts of Enterprise Management > Backup; the same keys as backup.en.ts. */
export const backupZhCN: Record<keyof typeof backupEn, string> = {
  'menu.enterprise.backup': '备份',
  'field.passphrase': '口令',
  'field.archive': '备份文件',

  'backup.title': '备份与恢复',
  'backup.intro':
    '备份包含全部配置：账号、站点、规则、事件、日志配置、证书、密钥和许可证，按需也可包含日志。备份用您的口令加密；没有口令，任何人（包括您自己）都无法恢复。',
  'backup.create.title': '创建备份',
  'backup.create.description': '请将备份文件与口令分开妥善保存。',
  'backup.passphrase': '口令（至少 10 个字符）',
  'backup.confirm': '再次输入口令',
  'backup.passphraseShort': '请至少输入 10 个字符。',
  'backup.mismatch': '两次输入的口令不一致。',
  'backup.logs': '包含日志（备份文件可能大很多）',
  'backup.download': '下载备份',
  'backup.downloaded': '备份 {file} 已下载。',
  'backup.restore.title': '恢复备份',
  'backup.restore.description':
    '备份文件会立即校验，并在 Rampart 下次启动时替换当前配置；当前数据会保留在旁边。较新版本 Rampart 生成的备份会被拒绝。超过 64 MB 的备份（含大量日志）请用命令行恢复：npm run backup -- restore。',
  'backup.restore.choose': '选择备份文件',
  'backup.restore.chosen': '备份文件：{file}',
  'backup.restore.submit': '校验并恢复',
  'backup.restore.tooLarge': '{file} 大小为 {size} MB；控制台只能恢复 64 MB 以内的备份。',
  'backup.restore.staged': '{date} 的备份（Rampart {version}）已校验就绪：重启 Rampart 即可完成恢复。',
  'backup.refused.backup_passphrase': '口令错误，或备份文件已损坏。',
  'backup.refused.backup_newer': '该备份由较新版本的 Rampart 生成。请先升级 Rampart 再恢复。',
  'backup.refused.backup_damaged': '备份文件已损坏或不完整。',
  'backup.refused.backup_not_archive': '该文件不是 Rampart 备份。',
};
