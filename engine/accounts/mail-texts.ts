/** Account e-mails, in English and Simplified Chinese, since the recipient's language is unknown. */
function when(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

export function activationMail(link: string, expiresAt: number): { subject: string; text: string } {
  return {
    subject: 'Activate your Rampart account / 激活您的 Rampart 账号',
    text: [
      'An administrator created a Rampart console account for this address.',
      'Open the link below to set your password and activate the account.',
      `The link works once and expires at ${when(expiresAt)}.`,
      '',
      link,
      '',
      '管理员为此邮箱创建了 Rampart 控制台账号。请打开上面的链接设置密码并激活账号。',
      `该链接只能使用一次，过期时间：${when(expiresAt)}。`,
      '',
      'If you did not expect this e-mail, ignore it. / 如非本人操作，请忽略此邮件。',
    ].join('\n'),
  };
}

export function resetMail(link: string, expiresAt: number): { subject: string; text: string } {
  return {
    subject: 'Reset your Rampart password / 重置您的 Rampart 密码',
    text: [
      'An administrator asked for your Rampart console password to be reset.',
      `Open the link below to choose a new password. It works once and expires at ${when(expiresAt)}.`,
      '',
      link,
      '',
      '管理员为您发起了 Rampart 控制台密码重置。请打开上面的链接设置新密码。',
      `该链接只能使用一次，过期时间：${when(expiresAt)}。`,
    ].join('\n'),
  };
}
