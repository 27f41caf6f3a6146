import type { AccountRecord, AdminSettingsRecord, ConfigSlice, SmtpSettingsRecord } from '#engine/config-store';
import { planListeners } from '#engine/proxy';
import { withPorts, type Settings, type SmtpSettings } from '#engine/settings';
import { RampartError, validationFailed, type FieldProblem } from '#engine/shared';

export type SettingSource = 'console' | 'environment' | 'default';
export const PORT_NAMES = ['console', 'gateway', 'intake'] as const;
export type PortName = (typeof PORT_NAMES)[number];

/** What the engine sends mail with: the service points it at another server when SMTP is saved. */
export interface SwitchableMailPort {
  readonly configured: boolean;
  send(mail: { to: string; subject: string; text: string }): Promise<void>;
  use(smtp: SmtpSettings | undefined): void;
}

/** The console sessions: their timeouts change for open sessions too. */
export interface SessionTimeoutsPort {
  setTimeouts(idleMs: number, absoluteMs: number): void;
}

export interface AdminSettingsDeps {
  store: ConfigSlice<'admin' | 'sites'>;
  /** The settings as read from the environment at start, before anything saved in the console. */
  environment: Settings;
  /** The ports listening now (0: off). */
  listening: () => Record<PortName, number>;
  mailer: SwitchableMailPort;
  sessions: SessionTimeoutsPort;
}

export interface SmtpInput {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  /** Left out: the stored password is kept. */
  password?: string | undefined;
  from: string;
}

export interface SmtpView {
  source: SettingSource;
  server: { host: string; port: number; secure: boolean; user: string; from: string; passwordSet: boolean } | null;
  environmentConfigured: boolean;
}

export interface SessionLengths {
  idleMinutes: number;
  absoluteHours: number;
}

export interface SessionView extends SessionLengths {
  source: SettingSource;
  environment: SessionLengths;
}

export interface PortState {
  inUse: number;
  saved: number | null;
  environment: number;
  nextStart: number;
  source: SettingSource;
  restartRequired: boolean;
}

export type PortsView = Record<PortName, PortState> & { restartRequired: boolean; siteProxyPorts: number[] };

export interface TwoFactorPolicy {
  requireTwoFactorForAdmins: boolean;
  callerHasTwoFactor: boolean;
}

export interface TestMailOutcome {
  sent: boolean;
  error: string | null;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

const ENV_PORT_KEYS: Record<PortName, string> = {
  console: 'RAMPART_CONSOLE_PORT',
  gateway: 'RAMPART_GATEWAY_PORT',
  intake: 'RAMPART_INTAKE_PORT',
};

function smtpOf(record: SmtpSettingsRecord): SmtpSettings {
  return {
    host: record.host,
    port: record.port,
    secure: record.secure,
    user: record.user === '' ? undefined : record.user,
    password: record.password === '' ? undefined : record.password,
    from: record.from,
  };
}

/**
 * The settings the engine runs with: what is saved on the System page over the environment's. Used
 * once at start (the ports apply only then); SMTP and session lengths follow later changes through
 * `AdminSettingsService`.
 */
export function effectiveSettings(environment: Settings, admin: AdminSettingsRecord): Settings {
  const withSaved = withPorts(environment, admin.ports);
  return {
    ...withSaved,
    smtp: admin.smtp ? smtpOf(admin.smtp) : environment.smtp,
    session: admin.session
      ? { idleMs: admin.session.idleMinutes * MINUTE, absoluteMs: admin.session.absoluteHours * HOUR }
      : environment.session,
  };
}

/**
 * SMTP, session lengths, listening ports and two-factor enforcement as saved on the System page,
 * merged over the environment's. SMTP and session changes are applied at once (the mailer and the
 * session store are told); ports are saved for the next start.
 */
export class AdminSettingsService {
  readonly #deps: AdminSettingsDeps;

  constructor(deps: AdminSettingsDeps) {
    this.#deps = deps;
  }

  get #admin(): Readonly<AdminSettingsRecord> {
    return this.#deps.store.data.admin;
  }

  #given(key: string): boolean {
    return this.#deps.environment.given.includes(key);
  }

  // --- SMTP ---

  smtp(): SmtpView {
    const saved = this.#admin.smtp;
    const environment = this.#deps.environment.smtp;
    const server = saved ? smtpOf(saved) : environment;
    return {
      source: saved ? 'console' : environment ? 'environment' : 'default',
      server: server
        ? {
            host: server.host,
            port: server.port,
            secure: server.secure,
            user: server.user ?? '',
            from: server.from,
            passwordSet: (server.password ?? '') !== '',
          }
        : null,
      environmentConfigured: environment !== undefined,
    };
  }

  async setSmtp(input: SmtpInput): Promise<SmtpView> {
    const stored = this.#admin.smtp?.password ?? '';
    // Without a user there is nothing to authenticate, so no password is kept.
    const password = input.user === '' ? '' : (input.password ?? stored);
    if (input.user !== '' && password === '') {
      throw validationFailed([
        { field: 'password', message: 'is required with a user name', params: { reason: 'passwordRequired' } },
      ]);
    }
    const record: SmtpSettingsRecord = {
      host: input.host,
      port: input.port,
      secure: input.secure,
      user: input.user,
      password,
      from: input.from,
    };
    await this.#deps.store.update((doc) => {
      doc.admin.smtp = record;
    });
    this.#deps.mailer.use(smtpOf(record));
    return this.smtp();
  }

  async useEnvironmentSmtp(): Promise<SmtpView> {
    await this.#deps.store.update((doc) => {
      doc.admin.smtp = null;
    });
    this.#deps.mailer.use(this.#deps.environment.smtp);
    return this.smtp();
  }

  /** Sends a test mail through the server in use; a failure is an outcome with the SMTP client's words. */
  async sendTestMail(to: string): Promise<TestMailOutcome> {
    const mailer = this.#deps.mailer;
    if (!mailer.configured) {
      return {
        sent: false,
        error: 'No SMTP server is configured: save one on the System page or set RAMPART_SMTP_HOST',
      };
    }
    try {
      await mailer.send({
        to,
        subject: 'Rampart test mail',
        text: 'This test mail was sent from the System page of the Rampart console: outgoing mail works.',
      });
      return { sent: true, error: null };
    } catch (error) {
      return { sent: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  // --- Sessions ---

  #environmentSession(): SessionLengths {
    const { idleMs, absoluteMs } = this.#deps.environment.session;
    return { idleMinutes: Math.round(idleMs / MINUTE), absoluteHours: Math.round(absoluteMs / HOUR) };
  }

  session(): SessionView {
    const saved = this.#admin.session;
    const environment = this.#environmentSession();
    const fromEnvironment =
      this.#given('RAMPART_SESSION_IDLE_MINUTES') || this.#given('RAMPART_SESSION_ABSOLUTE_HOURS');
    return {
      ...(saved ?? environment),
      source: saved ? 'console' : fromEnvironment ? 'environment' : 'default',
      environment,
    };
  }

  async setSession(lengths: SessionLengths): Promise<SessionView> {
    await this.#deps.store.update((doc) => {
      doc.admin.session = { idleMinutes: lengths.idleMinutes, absoluteHours: lengths.absoluteHours };
    });
    this.#deps.sessions.setTimeouts(lengths.idleMinutes * MINUTE, lengths.absoluteHours * HOUR);
    return this.session();
  }

  async useEnvironmentSession(): Promise<SessionView> {
    await this.#deps.store.update((doc) => {
      doc.admin.session = null;
    });
    const { idleMs, absoluteMs } = this.#deps.environment.session;
    this.#deps.sessions.setTimeouts(idleMs, absoluteMs);
    return this.session();
  }

  // --- Ports ---

  #environmentPorts(): Record<PortName, number> {
    const env = this.#deps.environment;
    return { console: env.console.port, gateway: env.gateway.port, intake: env.intake.port };
  }

  /** The ports the reverse proxy listens on for the sites (CNAME and inline plugin sites). */
  #siteProxyPorts(): number[] {
    return [...planListeners(this.#deps.store.data.sites).listeners.keys()].toSorted((a, b) => a - b);
  }

  ports(): PortsView {
    const saved = this.#admin.ports;
    const environment = this.#environmentPorts();
    const listening = this.#deps.listening();
    const state = (name: PortName): PortState => {
      const savedPort = saved[name] ?? null;
      const nextStart = savedPort ?? environment[name];
      return {
        inUse: listening[name],
        saved: savedPort,
        environment: environment[name],
        nextStart,
        source: savedPort !== null ? 'console' : this.#given(ENV_PORT_KEYS[name]) ? 'environment' : 'default',
        restartRequired: nextStart !== listening[name],
      };
    };
    const ports = { console: state('console'), gateway: state('gateway'), intake: state('intake') };
    return {
      ...ports,
      restartRequired: PORT_NAMES.some((name) => ports[name].restartRequired),
      siteProxyPorts: this.#siteProxyPorts(),
    };
  }

  /** Saves the ports (null: the environment's) for the next start: distinct, and none a site's proxy port. */
  async setPorts(input: Record<PortName, number | null>): Promise<PortsView> {
    const environment = this.#environmentPorts();
    const next = (name: PortName): number => input[name] ?? environment[name];
    const siteProxyPorts = new Set(this.#siteProxyPorts());
    const problems: FieldProblem[] = [];
    for (const name of PORT_NAMES) {
      const port = next(name);
      if (port === 0) continue; // the intake switched off in the environment
      const other = PORT_NAMES.find((o) => o !== name && next(o) === port);
      if (other !== undefined && input[name] !== null) {
        problems.push({
          field: name,
          message: `port ${port} is also the ${other} port: each needs its own`,
          params: { reason: 'portTaken', port, by: other },
        });
      } else if (siteProxyPorts.has(port) && input[name] !== null) {
        problems.push({
          field: name,
          message: `port ${port} is a site's proxy port (CNAME access): choose another`,
          params: { reason: 'portTaken', port, by: 'site' },
        });
      }
    }
    if (problems.length > 0) throw validationFailed(problems);
    await this.#deps.store.update((doc) => {
      const ports: AdminSettingsRecord['ports'] = {};
      for (const name of PORT_NAMES) {
        const port = input[name];
        if (port !== null) ports[name] = port;
      }
      doc.admin.ports = ports;
    });
    return this.ports();
  }

  // --- Two-factor enforcement ---

  twoFactorPolicy(caller: AccountRecord): TwoFactorPolicy {
    return {
      requireTwoFactorForAdmins: this.#admin.requireTwoFactorForAdmins,
      callerHasTwoFactor: caller.twoFactor !== null,
    };
  }

  /** Turning it on needs a second factor of the administrator doing it, who would otherwise be locked out. */
  async setRequireTwoFactor(required: boolean, caller: AccountRecord): Promise<TwoFactorPolicy> {
    if (required && caller.twoFactor === null) {
      throw new RampartError(
        'VALIDATION_FAILED',
        'Set up two-factor sign-in for your own account first (My account): administrators without it could not sign in once it is required',
        { field: 'requireTwoFactorForAdmins', params: { reason: 'ownTwoFactorMissing' } },
      );
    }
    await this.#deps.store.update((doc) => {
      doc.admin.requireTwoFactorForAdmins = required;
    });
    return this.twoFactorPolicy(caller);
  }
}
