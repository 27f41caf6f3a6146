/** How account mail leaves the appliance; the SMTP implementation lives in `mail/`. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** False when no SMTP server is configured: links are then shown to the administrator instead. */
  readonly configured: boolean;
  send(mail: OutgoingMail): Promise<void>;
}
