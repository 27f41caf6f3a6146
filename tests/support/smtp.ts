import { SMTPServer } from 'smtp-server';
import { freePort } from './engine.ts';

export interface ReceivedMail {
  to: string[];
  raw: string;
}

/**
 * A real SMTP server on loopback (smtp-server) that keeps what it receives, for tests of e-mail
 * delivery. `waitFor` resolves with the first message to an address.
 */
export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  port = 0;
  readonly #server: SMTPServer;
  readonly #waiters: { to: string; resolve: (m: ReceivedMail) => void }[] = [];

  constructor() {
    this.#server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const mail = {
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            raw: Buffer.concat(chunks).toString('utf8'),
          };
          this.received.push(mail);
          for (const w of [...this.#waiters]) {
            if (mail.to.includes(w.to)) {
              this.#waiters.splice(this.#waiters.indexOf(w), 1);
              w.resolve(mail);
            }
          }
          callback();
        });
      },
    });
  }

  async start(): Promise<this> {
    this.port = await freePort();
    await new Promise<void>((resolve) => this.#server.listen(this.port, '127.0.0.1', resolve));
    return this;
  }

  /** Resolves with the next (or an already received) message to `address`. */
  waitFor(address: string, timeoutMs = 10_000): Promise<ReceivedMail> {
    const to = address.toLowerCase();
    const already = this.received.find((m) => m.to.includes(to));
    if (already) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)), timeoutMs);
      this.#waiters.push({ to, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  /** The first http(s) link in a message (quoted-printable soft breaks undone). */
  static linkIn(mail: ReceivedMail): string {
    const text = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const match = /https?:\/\/[^\s"<>]+/.exec(text);
    if (!match) throw new Error('no link in the message');
    return match[0];
  }

  env(): Record<string, string> {
    return { RAMPART_SMTP_HOST: '127.0.0.1', RAMPART_SMTP_PORT: String(this.port), RAMPART_SMTP_SECURE: 'false' };
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
