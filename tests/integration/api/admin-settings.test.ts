import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { AUDIT_LOG } from '#engine/audit';
import { ManualClock, MINUTE } from '#engine/shared';
import { freePort, startTestEngine, type TestEngine } from '../../support/engine.ts';
import { TestSmtpServer, type ReceivedMail } from '../../support/smtp.ts';
import { ApiClient } from '../../support/api-client.ts';

const ADMIN = 'admin@example.com';
const PASSWORD = 'Kettle#Blue7';
const SMTP_USER = 'rampart-mailer';
const SMTP_PASSWORD = 'Smtp#Sealed-9f2k';

/** An SMTP server that wants a user name and password (over plain TCP, as a LAN relay may), keeping what it receives. */
class AuthSmtpSink {
  readonly received: ReceivedMail[] = [];
  port = 0;
  readonly #server = new SMTPServer({
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth: (auth, _session, callback) => {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        this.received.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });

  async start(): Promise<this> {
    this.port = await freePort();
    await new Promise<void>((resolve) => this.#server.listen(this.port, '127.0.0.1', resolve));
    return this;
  }

  to(address: string): ReceivedMail[] {
    return this.received.filter((m) => m.to.includes(address));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

const clock = new ManualClock(Date.now());
let dataDir: string;
let engine: TestEngine;
let sink: AuthSmtpSink;
let admin: ApiClient;

async function signedInAdmin(): Promise<ApiClient> {
  const client = new ApiClient(engine.url);
  expect((await client.signIn(ADMIN, PASSWORD)).status).toBe(200);
  return client;
}

const smtpBody = (port: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  host: '127.0.0.1',
  port,
  secure: false,
  user: SMTP_USER,
  password: SMTP_PASSWORD,
  from: 'Rampart <rampart@example.com>',
  ...extra,
});

beforeAll(async () => {
  sink = await new AuthSmtpSink().start();
  dataDir = await mkdtemp(join(tmpdir(), 'rampart-admin-settings-'));
  // No RAMPART_SMTP_* and no session settings: SMTP is unconfigured and sessions take the defaults.
  engine = await startTestEngine({}, { clock, dataDir });
  admin = new ApiClient(engine.url);
  expect((await admin.setup(ADMIN, PASSWORD)).status).toBe(201);
});

afterAll(async () => {
  await engine?.stop();
  await sink?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('SMTP settings', () => {
  it('starts from the environment: none configured', async () => {
    const res = await admin.request('GET', '/system/smtp');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ source: 'default', server: null, environmentConfigured: false });
  });

  it('saves a server in the console and answers that a password is set, never the password', async () => {
    const res = await admin.request('PUT', '/system/smtp', smtpBody(sink.port));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      source: 'console',
      server: {
        host: '127.0.0.1',
        port: sink.port,
        secure: false,
        user: SMTP_USER,
        from: 'Rampart <rampart@example.com>',
        passwordSet: true,
      },
      environmentConfigured: false,
    });
    expect(res.text).not.toContain(SMTP_PASSWORD);
    expect((await admin.request('GET', '/system/smtp')).text).not.toContain(SMTP_PASSWORD);
  });

  it('sends a test mail through the saved server at once, authenticated with the saved password', async () => {
    const res = await admin.request('POST', '/system/smtp/test', { to: 'ops@example.com' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ sent: true, error: null });
    const [mail] = sink.to('ops@example.com');
    expect(mail?.raw).toContain('Rampart test mail');
    expect(mail?.raw).toContain('rampart@example.com');
  });

  it("sends the engine's own mail (an activation link) through the saved server without a restart", async () => {
    const res = await admin.request('POST', '/accounts', { email: 'reader@example.com', role: 'guest' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ delivery: { emailSent: true } });
    expect(sink.to('reader@example.com')).toHaveLength(1);
  });

  it('keeps the stored password when an update leaves it out', async () => {
    const { password: _left, ...withoutPassword } = smtpBody(sink.port, { from: 'Appliance <appliance@example.com>' });
    const res = await admin.request('PUT', '/system/smtp', withoutPassword);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ server: { passwordSet: true, from: 'Appliance <appliance@example.com>' } });
    const sent = await admin.request('POST', '/system/smtp/test', { to: 'kept@example.com' });
    expect(sent.body).toEqual({ sent: true, error: null });
  });

  it('keeps the password sealed in the configuration file and its backup, and masked in the audit trail', async () => {
    for (const file of ['config.json', 'config.json.bak']) {
      const text = await readFile(join(dataDir, file), 'utf8').catch(() => '');
      expect(text, file).not.toContain(SMTP_PASSWORD);
    }
    const config = JSON.parse(await readFile(join(dataDir, 'config.json'), 'utf8')) as {
      admin: { smtp: { password: string; user: string } };
    };
    expect(config.admin.smtp.user).toBe(SMTP_USER);
    expect(config.admin.smtp.password).not.toBe('');
    await engine.logStore.flush();
    const records = (await engine.logStore.read(AUDIT_LOG, { from: 0, to: Date.now() + 60_000 })) as unknown as {
      action: string;
      after?: unknown;
    }[];
    const saved = records.filter((r) => r.action === 'updateSmtpSettings');
    expect(saved.length).toBeGreaterThan(0);
    expect(JSON.stringify(records)).not.toContain(SMTP_PASSWORD);
    expect(JSON.stringify(saved.at(-1)?.after)).toContain('[masked]');
  });

  it("reports the SMTP server's refusal when a test mail cannot be sent", async () => {
    await admin.request('PUT', '/system/smtp', smtpBody(sink.port, { password: 'Not-the-password1' }));
    const refused = await admin.request<{ sent: boolean; error: string }>('POST', '/system/smtp/test', {
      to: 'ops@example.com',
    });
    expect(refused.status).toBe(200);
    expect(refused.body.sent).toBe(false);
    expect(refused.body.error).toMatch(/Invalid username or password/);

    const nothingThere = await freePort();
    await admin.request('PUT', '/system/smtp', smtpBody(nothingThere));
    const unreachable = await admin.request<{ sent: boolean; error: string }>('POST', '/system/smtp/test', {
      to: 'ops@example.com',
    });
    expect(unreachable.body.sent).toBe(false);
    expect(unreachable.body.error).toMatch(/ECONNREFUSED/);
  });

  it('requires a password with a user name when none is stored, naming the field', async () => {
    expect((await admin.request('DELETE', '/system/smtp')).status).toBe(200);
    const { password: _left, ...withoutPassword } = smtpBody(sink.port);
    const res = await admin.request('PUT', '/system/smtp', withoutPassword);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'VALIDATION_FAILED', field: 'password' } });
  });

  it('refuses a bad server, naming each bad field', async () => {
    const res = await admin.request('PUT', '/system/smtp', smtpBody(70_000, { host: '', from: 'nobody' }));
    expect(res.status).toBe(400);
    const problems = (res.body as { error: { problems: { field: string }[] } }).error.problems.map((p) => p.field);
    expect(problems.toSorted()).toEqual(['from', 'host', 'port']);
  });

  it('goes back to the environment settings: no server, and a test mail says so', async () => {
    const res = await admin.request('DELETE', '/system/smtp');
    expect(res.body).toEqual({ source: 'default', server: null, environmentConfigured: false });
    const sent = await admin.request<{ sent: boolean; error: string }>('POST', '/system/smtp/test', {
      to: 'ops@example.com',
    });
    expect(sent.body.sent).toBe(false);
    expect(sent.body.error).toMatch(/No SMTP server is configured/);
  });
});

describe('session lengths', () => {
  it('answers the defaults while nothing is saved', async () => {
    const res = await admin.request('GET', '/system/session');
    expect(res.body).toEqual({
      idleMinutes: 30,
      absoluteHours: 12,
      source: 'default',
      environment: { idleMinutes: 30, absoluteHours: 12 },
    });
  });

  it('refuses lengths out of range, naming the field', async () => {
    const res = await admin.request('PUT', '/system/session', { idleMinutes: 2, absoluteHours: 200 });
    expect(res.status).toBe(400);
    const fields = (res.body as { error: { problems: { field: string }[] } }).error.problems.map((p) => p.field);
    expect(fields.toSorted()).toEqual(['absoluteHours', 'idleMinutes']);
  });

  it('applies a shorter idle time to a session that is already open', async () => {
    const other = await signedInAdmin();
    expect((await other.request('GET', '/session')).status).toBe(200);
    const res = await admin.request('PUT', '/system/session', { idleMinutes: 5, absoluteHours: 12 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ idleMinutes: 5, absoluteHours: 12, source: 'console' });
    clock.advance(4 * MINUTE);
    expect((await admin.request('GET', '/session')).status).toBe(200);
    clock.advance(2 * MINUTE);
    // The other session has been idle 6 minutes (over the new 5), the admin's 2.
    expect((await other.request('GET', '/session')).status).toBe(401);
    expect((await admin.request('GET', '/session')).status).toBe(200);
  });

  it('goes back to the environment lengths', async () => {
    const res = await admin.request('DELETE', '/system/session');
    expect(res.body).toMatchObject({ idleMinutes: 30, absoluteHours: 12, source: 'default' });
    const other = await signedInAdmin();
    clock.advance(10 * MINUTE);
    expect((await other.request('GET', '/session')).status).toBe(200);
  });
});

describe('two-factor enforcement', () => {
  it('is off, and the caller has no second factor', async () => {
    const res = await admin.request('GET', '/system/two-factor');
    expect(res.body).toEqual({ requireTwoFactorForAdmins: false, callerHasTwoFactor: false });
  });

  it('is refused for an administrator without two-factor sign-in, saying why', async () => {
    const res = await admin.request('PUT', '/system/two-factor', { requireTwoFactorForAdmins: true });
    expect(res.status).toBe(400);
    const error = (res.body as { error: { code: string; field: string; params: unknown; message: string } }).error;
    expect(error).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'requireTwoFactorForAdmins',
      params: { reason: 'ownTwoFactorMissing' },
    });
    expect(error.message).toMatch(/two-factor sign-in for your own account first/);
    expect((await admin.request('GET', '/system/two-factor')).body).toMatchObject({ requireTwoFactorForAdmins: false });
  });
});

describe('administrators only', () => {
  it('refuses a guest every administration setting', async () => {
    const sink2 = await new TestSmtpServer().start();
    try {
      await admin.request('PUT', '/system/smtp', { ...smtpBody(sink2.port), user: '', password: undefined });
      const created = await admin.request('POST', '/accounts', { email: 'guest@example.com', role: 'guest' });
      expect(created.status, created.text).toBe(201);
      const token = new URL(TestSmtpServer.linkIn(await sink2.waitFor('guest@example.com'))).searchParams.get('token');
      const guest = new ApiClient(engine.url);
      expect((await guest.request('POST', '/links/complete', { token, password: PASSWORD })).status).toBe(204);
      expect((await guest.signIn('guest@example.com', PASSWORD)).status).toBe(200);
      for (const [method, path, body] of [
        ['GET', '/system/smtp', undefined],
        ['PUT', '/system/smtp', smtpBody(sink.port)],
        ['POST', '/system/smtp/test', { to: 'ops@example.com' }],
        ['GET', '/system/session', undefined],
        ['PUT', '/system/session', { idleMinutes: 5, absoluteHours: 1 }],
        ['GET', '/system/ports', undefined],
        ['PUT', '/system/ports', { console: null, gateway: null, intake: null }],
        ['PUT', '/system/two-factor', { requireTwoFactorForAdmins: false }],
      ] as const) {
        const res = await guest.request(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body).toMatchObject({ error: { code: 'FORBIDDEN_ROLE' } });
      }
    } finally {
      await admin.request('DELETE', '/system/smtp');
      await sink2.stop();
    }
  });
});

interface PortsAnswer {
  console: { inUse: number; saved: number | null; nextStart: number; source: string; restartRequired: boolean };
  gateway: { inUse: number; saved: number | null; nextStart: number; source: string; restartRequired: boolean };
  intake: { inUse: number; saved: number | null; nextStart: number; source: string; restartRequired: boolean };
  restartRequired: boolean;
  siteProxyPorts: number[];
}

describe('ports', () => {
  it('answers the ports in use, from the environment, with no restart needed', async () => {
    const res = await admin.request<PortsAnswer>('GET', '/system/ports');
    expect(res.status).toBe(200);
    expect(res.body.console).toMatchObject({
      inUse: Number(new URL(engine.url).port),
      saved: null,
      source: 'environment',
      restartRequired: false,
    });
    expect(res.body.restartRequired).toBe(false);
  });

  it('refuses ports that are out of range, the same as another, or a CNAME site port, naming the field', async () => {
    const range = await admin.request('PUT', '/system/ports', { console: 70_000, gateway: null, intake: null });
    expect(range.status).toBe(400);
    expect(range.body).toMatchObject({ error: { field: 'console' } });

    const twice = await freePort();
    const same = await admin.request('PUT', '/system/ports', { console: twice, gateway: twice, intake: null });
    expect(same.status).toBe(400);
    const fields = (same.body as { error: { problems: { field: string }[] } }).error.problems.map((p) => p.field);
    expect(fields.toSorted()).toEqual(['console', 'gateway']);

    const gatewayNow = Number(new URL(engine.gatewayUrl).port);
    const onGateway = await admin.request('PUT', '/system/ports', { console: null, gateway: null, intake: gatewayNow });
    expect(onGateway.status).toBe(400);
    expect(onGateway.body).toMatchObject({
      error: { field: 'intake', params: { reason: 'portTaken', by: 'gateway' } },
    });

    const sitePort = await freePort();
    const site = await admin.request('POST', '/sites', {
      name: 'Shop',
      domain: 'shop.example.com',
      accessMethod: 'cname',
      cname: { http: true, https: false, httpPort: sitePort, originAddress: '127.0.0.1:9' },
    });
    expect(site.status, site.text).toBe(201);
    expect((await admin.request<PortsAnswer>('GET', '/system/ports')).body.siteProxyPorts).toContain(sitePort);
    const onSite = await admin.request('PUT', '/system/ports', { console: sitePort, gateway: null, intake: null });
    expect(onSite.status).toBe(400);
    expect(onSite.body).toMatchObject({ error: { field: 'console', params: { reason: 'portTaken', by: 'site' } } });
  });

  it('saves ports for the next start, saying a restart is required, and the engine uses them when started again', async () => {
    const [consolePort, gatewayPort, intakePort] = [await freePort(), await freePort(), await freePort()];
    const saved = await admin.request<PortsAnswer>('PUT', '/system/ports', {
      console: consolePort,
      gateway: gatewayPort,
      intake: intakePort,
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.restartRequired).toBe(true);
    expect(saved.body.console).toMatchObject({
      inUse: Number(new URL(engine.url).port),
      saved: consolePort,
      nextStart: consolePort,
      source: 'console',
      restartRequired: true,
    });

    // Started again with other ports in the environment: the saved ones win.
    await engine.stop();
    engine = await startTestEngine({}, { clock, dataDir });
    expect(Number(new URL(engine.url).port)).toBe(consolePort);
    expect(Number(new URL(engine.gatewayUrl).port)).toBe(gatewayPort);
    admin = await signedInAdmin();
    const after = await admin.request<PortsAnswer>('GET', '/system/ports');
    expect(after.body.restartRequired).toBe(false);
    expect(after.body.console).toMatchObject({ inUse: consolePort, saved: consolePort, restartRequired: false });
    expect(after.body.gateway).toMatchObject({ inUse: gatewayPort, saved: gatewayPort });
    expect(after.body.intake).toMatchObject({ inUse: intakePort, saved: intakePort });

    // Back to the environment: saved nothing, in use until the next start.
    const reset = await admin.request<PortsAnswer>('PUT', '/system/ports', {
      console: null,
      gateway: null,
      intake: null,
    });
    expect(reset.body.console).toMatchObject({ saved: null, source: 'environment', inUse: consolePort });
    expect(reset.body.restartRequired).toBe(true);
  });

  it('falls back to the environment port, and says so, when a saved console port is taken at start', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const takenPort = (taken.address() as AddressInfo).port;
    try {
      const saved = await admin.request('PUT', '/system/ports', { console: takenPort, gateway: null, intake: null });
      expect(saved.status, saved.text).toBe(200);
      await engine.stop();
      engine = await startTestEngine({}, { clock, dataDir });
      const port = Number(new URL(engine.url).port);
      expect(port).not.toBe(takenPort);
      admin = await signedInAdmin();
      const after = await admin.request<PortsAnswer>('GET', '/system/ports');
      expect(after.body.console).toMatchObject({ inUse: port, saved: takenPort, restartRequired: true });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
