/**
 * Outgoing mail over SMTP (nodemailer). Without SMTP settings the mailer reports itself as not
 * configured and refuses to send, so callers can show links to the administrator instead.
 */
import nodemailer from 'nodemailer';
import type { SmtpSettings } from '#engine/settings';
import type { Mailer, OutgoingMail } from '#engine/accounts';

export function createMailer(smtp: SmtpSettings | undefined): Mailer {
  if (!smtp) {
    return {
      configured: false,
      send: () => Promise.reject(new Error('SMTP is not configured: set RAMPART_SMTP_HOST')),
    };
  }
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    configured: true,
    async send(mail: OutgoingMail): Promise<void> {
      await transport.sendMail({ from: smtp.from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}
