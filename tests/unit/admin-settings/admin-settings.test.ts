import { describe, expect, it } from 'vitest';
import { AdminSettingsService, effectiveSettings } from '#engine/admin-settings';
import { defaultAdminSettings, type AccountRecord, type ConfigDocument } from '#engine/config-store';
import { loadSettings, type SmtpSettings } from '#engine/settings';
import { DEFAULT_CNAME } from '#engine/shared';

type Doc = Pick<ConfigDocument, 'admin' | 'sites'>;

function slice(doc: Doc): { data: Doc; generation: number; update<T>(change: (d: Doc) => T): Promise<T> } {
  return {
    data: doc,
    generation: 0,
    update: <T>(change: (d: Doc) => T) => Promise.resolve(change(doc)),
  };
}

const environment = loadSettings({
  RAMPART_DATA: '/tmp/rampart-unit',
  RAMPART_CONSOLE_PORT: '9080',
  RAMPART_SMTP_HOST: 'relay.example.com',
  RAMPART_SESSION_IDLE_MINUTES: '20',
});

function service(doc: Doc = { admin: defaultAdminSettings(), sites: [] }) {
  const used: (SmtpSettings | undefined)[] = [];
  const timeouts: [number, number][] = [];
  const settings = new AdminSettingsService({
    store: slice(doc),
    environment,
    listening: () => ({ console: 9080, gateway: 9081, intake: 5514 }),
    mailer: { configured: true, send: () => Promise.resolve(), use: (smtp) => used.push(smtp) },
    sessions: { setTimeouts: (idle, absolute) => timeouts.push([idle, absolute]) },
  });
  return { settings, doc, used, timeouts };
}

const account = (twoFactor: AccountRecord['twoFactor']): AccountRecord => ({
  id: 'acc_1',
  email: 'admin@example.com',
  name: '',
  role: 'administrator',
  tenant: true,
  activated: true,
  enabled: true,
  passwordHash: null,
  createdAt: 0,
  activatedAt: 0,
  passwordChangedAt: null,
  lastSignInAt: null,
  twoFactor,
});

describe('effective settings at start', () => {
  it('keeps the environment where nothing is saved', () => {
    expect(effectiveSettings(environment, defaultAdminSettings())).toEqual(environment);
  });

  it('puts saved ports, SMTP and session lengths over the environment, the links following the console port', () => {
    const merged = effectiveSettings(environment, {
      ...defaultAdminSettings(),
      ports: { console: 8443, intake: 6514 },
      session: { idleMinutes: 10, absoluteHours: 2 },
      smtp: { host: 'mail.lan', port: 25, secure: false, user: '', password: '', from: 'R <r@lan>' },
    });
    expect(merged.console.port).toBe(8443);
    expect(merged.gateway.port).toBe(environment.gateway.port);
    expect(merged.intake.port).toBe(6514);
    expect(merged.publicUrl).toBe(environment.publicUrl.replace(':9080', ':8443'));
    expect(merged.session).toEqual({ idleMs: 600_000, absoluteMs: 7_200_000 });
    expect(merged.smtp).toMatchObject({ host: 'mail.lan', user: undefined, password: undefined });
  });
});

describe('sources', () => {
  it('tells the environment from the default', () => {
    const { settings } = service();
    expect(settings.smtp().source).toBe('environment');
    expect(settings.session()).toMatchObject({ source: 'environment', idleMinutes: 20, absoluteHours: 12 });
    const ports = settings.ports();
    expect(ports.console.source).toBe('environment');
    expect(ports.gateway.source).toBe('default');
  });
});

describe('SMTP', () => {
  it('keeps the stored password when an update leaves it out, and points the mailer at the new server', async () => {
    const { settings, doc, used } = service();
    await settings.setSmtp({ host: 'a.lan', port: 587, secure: false, user: 'u', password: 'Secret#1', from: 'a@lan' });
    const view = await settings.setSmtp({ host: 'b.lan', port: 587, secure: false, user: 'u', from: 'a@lan' });
    expect(doc.admin.smtp?.password).toBe('Secret#1');
    expect(view.server).toMatchObject({ host: 'b.lan', passwordSet: true });
    expect(JSON.stringify(view)).not.toContain('Secret#1');
    expect(used.at(-1)).toMatchObject({ host: 'b.lan', password: 'Secret#1' });
  });

  it('stores no password without a user name', async () => {
    const { settings, doc } = service();
    await settings.setSmtp({ host: 'a.lan', port: 25, secure: false, user: '', password: 'Secret#1', from: 'a@lan' });
    expect(doc.admin.smtp?.password).toBe('');
  });

  it('goes back to the environment server', async () => {
    const { settings, used } = service();
    await settings.setSmtp({ host: 'a.lan', port: 25, secure: false, user: '', from: 'a@lan' });
    const view = await settings.useEnvironmentSmtp();
    expect(view).toMatchObject({ source: 'environment', server: { host: 'relay.example.com' } });
    expect(used.at(-1)).toBe(environment.smtp);
  });
});

describe('sessions', () => {
  it('tells the session store the new timeouts, and the environment ones when reset', async () => {
    const { settings, timeouts } = service();
    await settings.setSession({ idleMinutes: 5, absoluteHours: 1 });
    await settings.useEnvironmentSession();
    expect(timeouts).toEqual([
      [300_000, 3_600_000],
      [1_200_000, 43_200_000],
    ]);
  });
});

describe('ports', () => {
  const cnameSite = (httpPort: number) =>
    ({
      id: 'site_1',
      domain: 'shop.example.com',
      accessMethod: 'cname',
      createdAt: 0,
      cname: { ...DEFAULT_CNAME, httpPort, originAddress: '10.0.0.5:80' },
    }) as unknown as ConfigDocument['sites'][number];

  it('refuses a port another one uses at the next start, naming the field', async () => {
    const { settings } = service();
    await expect(settings.setPorts({ console: 9081, gateway: null, intake: null })).rejects.toMatchObject({
      field: 'console',
      params: { reason: 'portTaken', by: 'gateway' },
    });
  });

  it("refuses a CNAME site's proxy port", async () => {
    const { settings } = service({ admin: defaultAdminSettings(), sites: [cnameSite(8080)] });
    await expect(settings.setPorts({ console: null, gateway: 8080, intake: null })).rejects.toMatchObject({
      field: 'gateway',
      params: { reason: 'portTaken', by: 'site' },
    });
  });

  it('saves ports for the next start and says a restart is required', async () => {
    const { settings, doc } = service();
    const view = await settings.setPorts({ console: 8443, gateway: null, intake: null });
    expect(doc.admin.ports).toEqual({ console: 8443 });
    expect(view.console).toMatchObject({ inUse: 9080, saved: 8443, nextStart: 8443, restartRequired: true });
    expect(view.gateway.restartRequired).toBe(false);
    expect(view.restartRequired).toBe(true);
  });
});

describe('two-factor enforcement', () => {
  it('is refused for an administrator without a second factor', async () => {
    const { settings, doc } = service();
    await expect(settings.setRequireTwoFactor(true, account(null))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'requireTwoFactorForAdmins',
      params: { reason: 'ownTwoFactorMissing' },
    });
    expect(doc.admin.requireTwoFactorForAdmins).toBe(false);
  });

  it('is turned on by an administrator with a second factor, and off by one without', async () => {
    const { settings, doc } = service();
    const withFactor = account({ secret: 'X', enabledAt: 1, recoveryCodeHashes: [], lastUsedStep: 0 });
    expect(await settings.setRequireTwoFactor(true, withFactor)).toEqual({
      requireTwoFactorForAdmins: true,
      callerHasTwoFactor: true,
    });
    await settings.setRequireTwoFactor(false, account(null));
    expect(doc.admin.requireTwoFactorForAdmins).toBe(false);
  });
});
