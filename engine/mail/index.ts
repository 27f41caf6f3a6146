/**
 * Outgoing mail over SMTP (nodemailer). Without SMTP settings the mailer reports itself as not
 * configured and refuses to send, so callers can show links to the administrator instead.
 * `SwitchableMailer` is the engine's one mailer: SMTP settings saved on the System page replace its
 * transport while it runs, so every holder of it sends through the new server without a restart.
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

/** A mailer whose SMTP server can be changed while the engine runs; a mail under way finishes on the old one. */
export class SwitchableMailer implements Mailer {
  #current: Mailer;
  readonly #make: (smtp: SmtpSettings | undefined) => Mailer;

  constructor(smtp: SmtpSettings | undefined, make: (smtp: SmtpSettings | undefined) => Mailer = createMailer) {
    this.#make = make;
    this.#current = make(smtp);
  }

  get configured(): boolean {
    return this.#current.configured;
  }

  send(mail: OutgoingMail): Promise<void> {
    return this.#current.send(mail);
  }

  /** Sends through `smtp` from now on (undefined: no server, mail is refused). */
  use(smtp: SmtpSettings | undefined): void {
    this.#current = this.#make(smtp);
  }
}
