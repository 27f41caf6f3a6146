import { execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import { issueServerCertificate, type CertificateBundle } from '../../../engine/intake/certificates.ts';
import type { IntakeConfig, IntakeConfigs, IntakeSink } from '../../../engine/intake/tls-intake.ts';

/** The intake's own certificate, issued once per test file. */
export const serverCertificate = (): { keyPem: string; certPem: string } => {
  const issued = issueServerCertificate({ hosts: ['127.0.0.1'], now: Date.now() });
  return { keyPem: issued.keyPem, certPem: issued.certPem };
};

/** The TCP configurations the intake serves: a bundle per configuration id, replaceable. */
export class Registry implements IntakeConfigs {
  readonly bundles = new Map<string, CertificateBundle>();
  set(bundle: CertificateBundle): this {
    this.bundles.set(bundle.configId, bundle);
    return this;
  }
  byFingerprint(fingerprint: string): IntakeConfig | undefined {
    for (const bundle of this.bundles.values()) if (bundle.fingerprint === fingerprint) return { id: bundle.configId };
    return undefined;
  }
  cas(): string[] {
    return [...this.bundles.values()].map((bundle) => bundle.caCertPem);
  }
}

/** A sink that keeps what it receives; its backlog is whatever the test sets. */
export class MemorySink implements IntakeSink {
  readonly lines: { configId: string; line: string }[] = [];
  pending = 0;
  write(configId: string, lines: string[]): void {
    for (const line of lines) this.lines.push({ configId, line });
  }
  backlog(): number {
    return this.pending;
  }
  of(configId: string): string[] {
    return this.lines.filter((entry) => entry.configId === configId).map((entry) => entry.line);
  }
}

/** Every socket a test opens, destroyed after it. */
export const openSockets = new Set<Socket>();

export function closeAll(): void {
  for (const socket of openSockets) socket.destroy();
  openSockets.clear();
}

/** A TLS client presenting `bundle`'s certificate (or none); resolves once the handshake is done. */
export function tlsClient(port: number, bundle?: CertificateBundle): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: '127.0.0.1',
      port,
      rejectUnauthorized: false,
      ...(bundle === undefined ? {} : { key: bundle.clientKeyPem, cert: bundle.clientCertPem }),
    });
    openSockets.add(socket);
    socket.once('secureConnect', () => resolve(socket));
    socket.once('error', reject);
  });
}

export function rawClient(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: '127.0.0.1', port }, () => resolve(socket));
    openSockets.add(socket);
    socket.once('error', reject);
  });
}

/** Resolves when the socket has closed (from either side). */
export function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once('close', () => resolve());
  });
}

/** Polls until `check` is true, or fails after `ms`. */
export async function until(check: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Why a real rsyslogd with TLS cannot run here, or undefined when it can. */
export function rsyslogMissing(): string | undefined {
  if (!existsSync('/usr/sbin/rsyslogd')) return 'rsyslogd is not installed (apt-get install rsyslog rsyslog-gnutls)';
  try {
    if (!execFileSync('dpkg', ['-L', 'rsyslog-gnutls']).toString().includes('lmnsd_gtls.so'))
      return 'rsyslog has no TLS driver (apt-get install rsyslog-gnutls)';
  } catch {
    return 'rsyslog has no TLS driver (apt-get install rsyslog-gnutls)';
  }
  if (!existsSync('/usr/bin/logger')) return 'logger is not installed (apt-get install bsdutils)';
  if (!existsSync('/usr/bin/unzip')) return 'unzip is not installed (apt-get install unzip)';
  return undefined;
}

/** A UDP port free on loopback now (for rsyslogd's imudp input). */
export const freeUdpPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
