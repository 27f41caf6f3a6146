import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFiles } from '../../../engine/intake/bundle.ts';
import { issueBundle, type CertificateBundle } from '../../../engine/intake/certificates.ts';
import { TlsIntake } from '../../../engine/intake/tls-intake.ts';
import { skipAllWithout } from '../../support/skip.ts';
import { MemorySink, Registry, freeUdpPort, rsyslogMissing, serverCertificate, until } from './support.ts';

// A real rsyslogd, configured by the bundle's own rsyslog.conf (only its file paths changed, plus
// a UDP input on a loopback port), forwards `logger` lines over TLS to the intake, which files
// them under the bundle's configuration.

const RSYSLOGD = '/usr/sbin/rsyslogd';

describe('a real rsyslogd with the bundle configuration', () => {
  const reason = rsyslogMissing();
  skipAllWithout(reason);

  let dir = '';
  let rsyslogd: ChildProcess | undefined;
  let intake: TlsIntake | undefined;
  let bundle: CertificateBundle;
  let udpPort = 0;
  const sink = new MemorySink();
  const output: string[] = [];

  beforeAll(async () => {
    if (reason !== undefined) return;
    dir = mkdtempSync(join(tmpdir(), 'rampart-rsyslog-'));
    bundle = issueBundle({ configId: 'cfg_rsyslog', configName: 'rsyslog "test"\n$evil', now: Date.now() });
    const other = issueBundle({ configId: 'cfg_other', configName: 'Other', now: Date.now() });
    intake = new TlsIntake({ ...serverCertificate(), configs: new Registry().set(other).set(bundle), sink });
    const port = await intake.listen('127.0.0.1', 0);
    udpPort = await freeUdpPort();

    writeFileSync(join(dir, 'ca_cert.pem'), bundle.caCertPem);
    writeFileSync(join(dir, 'csr_cert.pem'), bundle.clientCertPem);
    writeFileSync(join(dir, 'private_key.pem'), bundle.clientKeyPem, { mode: 0o600 });
    mkdirSync(join(dir, 'work'));
    const { rainerScript } = bundleFiles(bundle, { host: '127.0.0.1', port, directory: dir });
    const config = [
      `global(workDirectory="${dir}/work")`,
      'module(load="imudp")',
      `input(type="imudp" address="127.0.0.1" port="${udpPort}")`,
      rainerScript,
    ].join('\n');
    writeFileSync(join(dir, 'rsyslog.conf'), config);
    rsyslogd = spawn(RSYSLOGD, ['-n', '-f', join(dir, 'rsyslog.conf'), '-i', join(dir, 'rsyslogd.pid')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    rsyslogd.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    rsyslogd.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  });

  afterAll(async () => {
    if (rsyslogd?.pid !== undefined && rsyslogd.exitCode === null) {
      const exited = new Promise((resolve) => rsyslogd?.once('exit', resolve));
      rsyslogd.kill('SIGTERM');
      await exited;
    }
    await intake?.close();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('forwards logger lines over TLS under the bundle configuration', async () => {
    const marker = `rampart-rsyslog-${Date.now()}`;
    // rsyslogd needs a moment to open its UDP input; UDP loses what is sent before, so send until one arrives.
    await until(
      () => {
        if (rsyslogd?.exitCode !== null) throw new Error(`rsyslogd exited: ${output.join('')}`);
        if (sink.lines.length === 0) {
          execFileSync('logger', ['-d', '-n', '127.0.0.1', '-P', String(udpPort), '-t', 'rampart-test', marker]);
        }
        return sink.lines.length > 0;
      },
      30_000,
      `a line through rsyslogd (its output: ${output.join('')})`,
    );
    execFileSync('logger', ['-d', '-n', '127.0.0.1', '-P', String(udpPort), '-t', 'rampart-test', `${marker} second`]);
    await until(() => sink.lines.some((entry) => entry.line.endsWith(`${marker} second`)), 15_000, 'the second line');
    expect(sink.lines.every((entry) => entry.configId === 'cfg_rsyslog')).toBe(true);
    // Spec 4.1's plain_text shape: a 15-character timestamp, host, severity, facility, [procid]: message.
    expect(sink.lines[0]!.line).toMatch(
      /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ notice user \[[^\]]*\]: rampart-rsyslog-\d+/,
    );
    expect(intake?.counts().configs.cfg_rsyslog?.connectionsOpen).toBe(1);
  });
});
