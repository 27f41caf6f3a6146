import { X509Certificate } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import type { ConfigSlice, ConsoleTlsRecord } from '#engine/config-store';
import { issueCa, issueServerCertificate } from '#engine/pki';
import { checkSiteCertificate, describeCertificate, type CertificateInfo } from '#engine/sites';
import { DAY, RampartError, type Clock } from '#engine/shared';

/** The appliance's own CA lives ten years; its server certificate 397 days, what browsers accept. */
export const CONSOLE_CA_DAYS = 3650;
export const CONSOLE_CERTIFICATE_DAYS = 397;
/** A generated certificate is made again at start when fewer days than this are left. */
export const RENEW_BEFORE_DAYS = 30;

export type ConsoleTlsSource = 'generated' | 'uploaded' | 'files';

/** What the console shows of its own TLS (never a key). */
export interface ConsoleTlsStatus {
  source: ConsoleTlsSource;
  certificate: CertificateInfo | null;
  /** The appliance's own CA, which signs the generated certificate (download it to trust it). */
  ca: { subject: string; fingerprint256: string; notAfter: number } | null;
  /** The names and addresses this host answers on. */
  hostNames: string[];
  /** Those of them the served certificate does not name (a browser warns on them). */
  uncoveredNames: string[];
}

export interface ConsoleCertificatesDeps {
  store: ConfigSlice<'consoleTls'>;
  clock: Clock;
  /** The names and addresses the console is reached on (consoleHostNames). */
  hostNames: () => string[];
  /** A certificate and key read from files given at start (RAMPART_CONSOLE_TLS_CERT / _KEY): they win. */
  files?: { certPem: string; keyPem: string };
}

/**
 * The console's TLS certificate. At first start the appliance makes its own CA and a server
 * certificate for its host names and addresses; an administrator may upload one instead, or go back
 * to the generated one. Listeners subscribe to changes and swap their secure context without a restart.
 */
export class ConsoleCertificates {
  readonly #deps: ConsoleCertificatesDeps;
  readonly #listeners = new Set<(tls: { cert: string; key: string }) => void>();

  constructor(deps: ConsoleCertificatesDeps) {
    this.#deps = deps;
  }

  /**
   * Makes the CA and the generated certificate when there are none, and makes the certificate
   * again when it is close to expiry or no longer names every host name (an address was added).
   */
  async ensure(): Promise<void> {
    const now = this.#deps.clock.now();
    const stored = this.#deps.store.data.consoleTls;
    const names = this.#deps.hostNames();
    let ca = stored?.ca;
    if (!ca || expiresWithin(ca.certPem, now, 365)) {
      ca = issueCa({ commonName: `Rampart appliance CA (${hostname().slice(0, 32)})`, now, days: CONSOLE_CA_DAYS });
    }
    const fresh =
      stored !== null &&
      stored.ca.certPem === ca.certPem &&
      (stored.source === 'uploaded' ||
        (!expiresWithin(stored.certPem, now, RENEW_BEFORE_DAYS) && names.every((n) => stored.names.includes(n))));
    if (fresh) return;
    const keepUploaded = stored?.source === 'uploaded' && stored.ca.certPem === ca.certPem;
    const record = keepUploaded && stored ? stored : this.#generated(ca, names, now);
    await this.#deps.store.update((doc) => {
      doc.consoleTls = record;
    });
  }

  /** The certificate and key to serve now. */
  current(): { cert: string; key: string } {
    if (this.#deps.files) return { cert: this.#deps.files.certPem, key: this.#deps.files.keyPem };
    const stored = this.#stored();
    return { cert: stored.certPem, key: stored.keyPem };
  }

  /** Called with the new certificate and key whenever they change. */
  onChange(listener: (tls: { cert: string; key: string }) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  status(): ConsoleTlsStatus {
    const now = this.#deps.clock.now();
    const stored = this.#deps.store.data.consoleTls;
    const source: ConsoleTlsSource = this.#deps.files ? 'files' : (stored?.source ?? 'generated');
    const certPem = this.#deps.files?.certPem ?? stored?.certPem ?? '';
    const certificate = describeCertificate({ certificatePem: certPem, uploadedAt: stored?.updatedAt ?? 0 }, now);
    const hostNames = this.#deps.hostNames();
    return {
      source,
      certificate,
      ca: stored ? caSummary(stored.ca.certPem) : null,
      hostNames,
      uncoveredNames: hostNames.filter((name) => !covers(certPem, name)),
    };
  }

  /** The appliance's own CA certificate (PEM), to install as trusted on the operators' machines. */
  caPem(): string {
    return this.#stored().ca.certPem;
  }

  /**
   * Serves an administrator's certificate (chain first) and key from now on. Refused with a
   * VALIDATION_FAILED naming `certificate` or `key` when they do not fit together, are expired or
   * cannot be used for TLS.
   */
  async upload(input: { certificate: string; key: string }): Promise<ConsoleTlsStatus> {
    this.#refuseWhenFromFiles();
    const now = this.#deps.clock.now();
    const checked = checkSiteCertificate(input, '', now);
    const stored = this.#stored();
    await this.#deps.store.update((doc) => {
      doc.consoleTls = {
        ca: stored.ca,
        source: 'uploaded',
        certPem: checked.certificatePem,
        keyPem: checked.keyPem,
        names: [],
        updatedAt: now,
      };
    });
    this.#publish();
    return this.status();
  }

  /** Goes back to a certificate signed by the appliance's own CA, made now for the current host names. */
  async useGenerated(): Promise<ConsoleTlsStatus> {
    this.#refuseWhenFromFiles();
    const stored = this.#stored();
    const record = this.#generated(stored.ca, this.#deps.hostNames(), this.#deps.clock.now());
    await this.#deps.store.update((doc) => {
      doc.consoleTls = record;
    });
    this.#publish();
    return this.status();
  }

  #generated(ca: { certPem: string; keyPem: string }, names: string[], now: number): ConsoleTlsRecord {
    const made = issueServerCertificate({ hosts: names, now, days: CONSOLE_CERTIFICATE_DAYS, issuer: ca });
    return {
      ca,
      source: 'generated',
      certPem: made.certPem + ca.certPem,
      keyPem: made.keyPem,
      names,
      updatedAt: now,
    };
  }

  #stored(): ConsoleTlsRecord {
    const stored = this.#deps.store.data.consoleTls;
    if (!stored) throw new RampartError('NOT_FOUND', 'The console certificate has not been made yet');
    return stored;
  }

  #refuseWhenFromFiles(): void {
    if (this.#deps.files) {
      throw new RampartError(
        'VALIDATION_FAILED',
        'certificate: the console certificate is read from files given at start (RAMPART_CONSOLE_TLS_CERT and RAMPART_CONSOLE_TLS_KEY); unset them to manage it here',
        { field: 'certificate' },
      );
    }
  }

  #publish(): void {
    const tls = this.current();
    for (const listener of this.#listeners) listener(tls);
  }
}

function expiresWithin(certPem: string, now: number, days: number): boolean {
  try {
    return Date.parse(new X509Certificate(certPem).validTo) - now < days * DAY;
  } catch {
    return true;
  }
}

function caSummary(certPem: string): ConsoleTlsStatus['ca'] {
  try {
    const cert = new X509Certificate(certPem);
    return {
      subject: cert.subject.replace(/\n/g, ', '),
      fingerprint256: cert.fingerprint256,
      notAfter: Date.parse(cert.validTo),
    };
  } catch {
    return null;
  }
}

/** Whether the first certificate of a PEM chain is valid for a host name or an address. */
function covers(certPem: string, name: string): boolean {
  try {
    const cert = new X509Certificate(certPem);
    return (isIP(name) !== 0 ? cert.checkIP(name) : cert.checkHost(name)) !== undefined;
  } catch {
    return false;
  }
}

/**
 * The names and addresses a console bound to `bindHost` is reached on: localhost and the loopback
 * addresses, this host's name, and every non-internal interface address (all of them when bound to
 * a wildcard, else only the bound one). Link-local IPv6 addresses are left out: a URL cannot name them portably.
 */
export function consoleHostNames(bindHost: string, publicHost?: string): string[] {
  const names = ['localhost', '127.0.0.1', '::1'];
  const host = hostname();
  if (host) names.push(host.toLowerCase());
  const wildcard = bindHost === '0.0.0.0' || bindHost === '::' || bindHost === '';
  if (wildcard) {
    for (const list of Object.values(networkInterfaces())) {
      for (const entry of list ?? []) {
        if (entry.internal || entry.address.toLowerCase().startsWith('fe80:')) continue;
        names.push(entry.address);
      }
    }
  } else {
    names.push(bindHost.replace(/^\[|\]$/g, ''));
  }
  if (publicHost) names.push(publicHost.replace(/^\[|\]$/g, '').toLowerCase());
  return [...new Set(names)];
}
