import { describe, expect, it } from 'vitest';
import { loadSettings, flagsToEnv } from '#engine/settings';
import { RampartError } from '#engine/shared';

function failure(env: Record<string, string>, argv: string[] = []): RampartError {
  try {
    loadSettings(env, argv);
  } catch (error) {
    if (error instanceof RampartError) return error;
    throw error;
  }
  throw new Error('settings were accepted');
}

describe('settings', () => {
  it('has the documented defaults', () => {
    const s = loadSettings({});
    expect(s.console).toMatchObject({ host: '127.0.0.1', port: 9080, tls: undefined });
    expect(s.gateway.port).toBe(9081);
    expect(s.intake.port).toBe(5514);
    expect(s.edition).toBe('B');
    expect(s.smtp).toBeUndefined();
    expect(s.publicUrl).toBe('http://127.0.0.1:9080');
    expect(s.dataDir).toMatch(/\.rampart$/);
  });

  it('reads the environment and lets CLI flags override it', () => {
    const s = loadSettings({ RAMPART_CONSOLE_PORT: '9090', RAMPART_EDITION: 'A' }, [
      '--console-port',
      '9191',
      '--data=/srv/rampart',
    ]);
    expect(s.console.port).toBe(9191);
    expect(s.edition).toBe('A');
    expect(s.dataDir).toBe('/srv/rampart');
  });

  it('has a gateway log port (UDP 9082, 0 for off) and a merge wait for access records', () => {
    expect(loadSettings({}).gateway).toMatchObject({ logPort: 9082, accessMergeWaitMs: 3000 });
    expect(loadSettings({ RAMPART_GATEWAY_LOG_PORT: '0' }).gateway.logPort).toBe(0);
    expect(loadSettings({ RAMPART_ACCESS_MERGE_WAIT_MS: '500' }).gateway.accessMergeWaitMs).toBe(500);
    expect(failure({ RAMPART_GATEWAY_LOG_PORT: '65536' }).field).toBe('RAMPART_GATEWAY_LOG_PORT');
    expect(failure({ RAMPART_ACCESS_MERGE_WAIT_MS: '0' }).field).toBe('RAMPART_ACCESS_MERGE_WAIT_MS');
  });

  it('names the variable of a bad value', () => {
    const e = failure({ RAMPART_GATEWAY_PORT: '70000' });
    expect(e.code).toBe('SETTINGS_INVALID');
    expect(e.field).toBe('RAMPART_GATEWAY_PORT');
    expect(e.message).toContain('RAMPART_GATEWAY_PORT');
    expect(failure({ RAMPART_EDITION: 'C' }).message).toMatch(/^RAMPART_EDITION: must be A or B/);
    expect(failure({ RAMPART_SMTP_SECURE: 'maybe' }).field).toBe('RAMPART_SMTP_SECURE');
    expect(failure({ RAMPART_CONSOLE_PORT: 'abc' }).field).toBe('RAMPART_CONSOLE_PORT');
  });

  it('refuses unknown or incomplete flags', () => {
    expect(() => flagsToEnv(['--colour', 'red'])).toThrow(/unknown option --colour/);
    expect(() => flagsToEnv(['--console-port'])).toThrow(/needs a value/);
    expect(() => flagsToEnv(['stray'])).toThrow(/unexpected argument/);
  });

  it('serves the console over HTTPS by default, plain HTTP on loopback, and refuses a LAN address with TLS off', () => {
    const auto = loadSettings({ RAMPART_CONSOLE_HOST: '0.0.0.0' });
    expect(auto.console).toMatchObject({ https: true, plainHttp: 'loopback', tls: undefined });
    expect(auto.publicUrl).toBe('https://0.0.0.0:9080');
    expect(loadSettings({}).console).toMatchObject({ https: true, plainHttp: 'loopback' });
    expect(loadSettings({}).publicUrl).toBe('http://127.0.0.1:9080');
    expect(loadSettings({ RAMPART_CONSOLE_PLAIN_HTTP: 'redirect' }).publicUrl).toBe('https://127.0.0.1:9080');
    expect(loadSettings({ RAMPART_CONSOLE_TLS: 'off' }).console.https).toBe(false);
    expect(failure({ RAMPART_CONSOLE_TLS: 'sometimes' }).field).toBe('RAMPART_CONSOLE_TLS');
    const e = failure({ RAMPART_CONSOLE_HOST: '0.0.0.0', RAMPART_CONSOLE_TLS: 'off' });
    expect(e.field).toBe('RAMPART_CONSOLE_HOST');
    expect(e.message).toMatch(/requires TLS/);
    const s = loadSettings({
      RAMPART_CONSOLE_HOST: '0.0.0.0',
      RAMPART_CONSOLE_TLS_CERT: '/c.pem',
      RAMPART_CONSOLE_TLS_KEY: '/k.pem',
    });
    expect(s.console.tls).toEqual({ certFile: '/c.pem', keyFile: '/k.pem' });
    expect(s.publicUrl).toBe('https://0.0.0.0:9080');
    expect(loadSettings({ RAMPART_CONSOLE_HOST: '::1' }).publicUrl).toBe('http://[::1]:9080');
  });

  it('wants both halves of the TLS pair', () => {
    expect(failure({ RAMPART_CONSOLE_TLS_CERT: '/c.pem' }).field).toBe('RAMPART_CONSOLE_TLS_KEY');
  });

  it('builds SMTP settings only when a host is given', () => {
    const s = loadSettings({
      RAMPART_SMTP_HOST: 'mail.example.com',
      RAMPART_SMTP_PORT: '2525',
      RAMPART_SMTP_SECURE: 'true',
    });
    expect(s.smtp).toMatchObject({ host: 'mail.example.com', port: 2525, secure: true });
  });
});
