import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountService, type Mailer, type OutgoingMail } from '#engine/accounts';
import { ConfigStore } from '#engine/config-store';
import { ManualClock, cryptoRandom, silentLogger, MINUTE, HOUR } from '#engine/shared';

export const STRONG = 'Kettle#Blue7';

/** Records mail instead of sending it; `fail` makes the next sends throw. */
export class RecordingMailer implements Mailer {
  readonly sent: OutgoingMail[] = [];
  fail = false;
  constructor(readonly configured = true) {}
  send(mail: OutgoingMail): Promise<void> {
    if (this.fail) return Promise.reject(new Error('connection refused'));
    this.sent.push(mail);
    return Promise.resolve();
  }
  linkTo(to: string): string {
    const mail = this.sent.filter((m) => m.to === to).at(-1);
    const match = mail && /https?:\/\/\S+/.exec(mail.text);
    if (!match) throw new Error(`no link sent to ${to}`);
    return match[0];
  }
}

export const tokenOf = (link: string): string => new URL(link).searchParams.get('token') ?? '';

export interface Fixture {
  clock: ManualClock;
  mailer: RecordingMailer;
  store: ConfigStore;
  accounts: AccountService;
  dir: string;
  admin: { accountId: string; sessionId: string };
  dispose(): Promise<void>;
}

/** An account service over a real config store in a temp directory, with a set-up tenant admin. */
export async function fixture(options: { mailConfigured?: boolean } = {}): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), 'rampart-accounts-'));
  const clock = new ManualClock();
  const store = await ConfigStore.open(dir, clock);
  const mailer = new RecordingMailer(options.mailConfigured ?? true);
  const accounts = new AccountService({
    store,
    clock,
    random: cryptoRandom,
    mailer,
    logger: silentLogger,
    publicUrl: 'http://127.0.0.1:9080',
    session: { idleMs: 30 * MINUTE, absoluteMs: 12 * HOUR },
  });
  const { session, account } = await accounts.setup({ email: 'root@example.com', password: STRONG });
  return {
    clock,
    mailer,
    store,
    accounts,
    dir,
    admin: { accountId: account.id, sessionId: session.id },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
