import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { DAY, validationFailed, type FieldProblem } from '#engine/shared';

/** A site certificate's chain or key may be at most this large (PEM text). */
export const CERTIFICATE_PEM_MAX = 64 * 1024;
/** The console warns this long before a site certificate expires. */
export const CERTIFICATE_WARN_DAYS = 30;

/** What the console shows of a site's certificate (never the key). */
export interface CertificateInfo {
  subject: string;
  issuer: string;
  /** DNS names and IP addresses (subjectAltName, else the subject's CN). */
  names: string[];
  notBefore: number;
  notAfter: number;
  /** Whole days left (negative once expired). */
  daysLeft: number;
  state: 'valid' | 'expiring' | 'expired' | 'not_yet_valid';
  fingerprint256: string;
  /** Certificates after the server's own (its chain). */
  chainLength: number;
  uploadedAt: number;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The certificates of a PEM text, in order. */
export function pemCertificates(pem: string): string[] {
  return pem.match(PEM_CERT) ?? [];
}

function namesOf(cert: X509Certificate): string[] {
  const alt = cert.subjectAltName;
  if (alt) {
    return alt
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.startsWith('DNS:') || entry.startsWith('IP Address:'))
      .map((entry) => entry.slice(entry.indexOf(':') + 1));
  }
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1];
  return cn ? [cn] : [];
}

/** Whether a certificate name (possibly `*.example.com`) covers a host name. */
function nameCovers(name: string, host: string): boolean {
  const n = name.toLowerCase();
  const h = host.toLowerCase();
  if (n === h) return true;
  if (!n.startsWith('*.')) return false;
  const dot = h.indexOf('.');
  return dot > 0 && h.slice(dot + 1) === n.slice(2);
}

/** Whether the certificate's names cover the site's domain (a `*.x` domain needs a `*.x` name). */
export function coversDomain(names: readonly string[], domain: string): boolean {
  if (domain === '') return true;
  if (domain.startsWith('*.')) return names.some((n) => n.toLowerCase() === domain.toLowerCase());
  return names.some((n) => nameCovers(n, domain));
}

function stateOf(notBefore: number, notAfter: number, now: number): CertificateInfo['state'] {
  if (now < notBefore) return 'not_yet_valid';
  if (now >= notAfter) return 'expired';
  return notAfter - now <= CERTIFICATE_WARN_DAYS * DAY ? 'expiring' : 'valid';
}

/** What the console shows of a stored certificate. */
export function describeCertificate(
  stored: { certificatePem: string; uploadedAt: number },
  now: number,
): CertificateInfo | null {
  const [first, ...chain] = pemCertificates(stored.certificatePem);
  if (first === undefined) return null;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(first);
  } catch {
    return null;
  }
  const notBefore = Date.parse(cert.validFrom);
  const notAfter = Date.parse(cert.validTo);
  return {
    subject: cert.subject.replace(/\n/g, ', '),
    issuer: cert.issuer.replace(/\n/g, ', '),
    names: namesOf(cert),
    notBefore,
    notAfter,
    daysLeft: Math.floor((notAfter - now) / DAY),
    state: stateOf(notBefore, notAfter, now),
    fingerprint256: cert.fingerprint256,
    chainLength: chain.length,
    uploadedAt: stored.uploadedAt,
  };
}

/**
 * Checks an uploaded certificate chain and key for a site: both PEM, the key unencrypted and
 * belonging to the first certificate, the certificate valid now and naming the site's domain, and
 * the pair usable by Node's TLS. Every problem is named by its field (`certificate`, `key`).
 */
export function checkSiteCertificate(
  input: { certificate: string; key: string },
  domain: string,
  now: number,
): { certificatePem: string; keyPem: string } {
  const problems: FieldProblem[] = [];
  const problem = (field: 'certificate' | 'key', message: string): void => {
    problems.push({ field, message: `${field}: ${message}` });
  };
  const certs = pemCertificates(input.certificate);
  let cert: X509Certificate | null = null;
  if (input.certificate.length > CERTIFICATE_PEM_MAX) problem('certificate', 'must be at most 64 KB of PEM text');
  else if (certs.length === 0) problem('certificate', 'is not a PEM certificate (-----BEGIN CERTIFICATE-----)');
  else {
    try {
      cert = new X509Certificate(certs[0] ?? '');
      for (const extra of certs.slice(1)) new X509Certificate(extra);
    } catch {
      cert = null;
      problem('certificate', 'holds a certificate that cannot be read');
    }
  }
  let key: KeyObject | null = null;
  if (input.key.length > CERTIFICATE_PEM_MAX) problem('key', 'must be at most 64 KB of PEM text');
  else if (/ENCRYPTED/.test(input.key)) problem('key', 'is encrypted: upload the key without its passphrase');
  else if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(input.key)) {
    problem('key', 'is not a PEM private key (-----BEGIN PRIVATE KEY-----)');
  } else {
    try {
      key = createPrivateKey(input.key);
    } catch {
      problem('key', 'cannot be read as a private key');
    }
  }
  if (cert !== null) {
    const notBefore = Date.parse(cert.validFrom);
    const notAfter = Date.parse(cert.validTo);
    if (now >= notAfter) problem('certificate', `expired on ${new Date(notAfter).toISOString().slice(0, 10)}`);
    else if (now < notBefore) {
      problem('certificate', `is not valid before ${new Date(notBefore).toISOString().slice(0, 10)}`);
    }
    const names = namesOf(cert);
    if (!coversDomain(names, domain)) {
      problem(
        'certificate',
        `does not name the site's domain ${domain} (it names ${names.length > 0 ? names.join(', ') : 'no host'})`,
      );
    }
    if (key !== null && !cert.checkPrivateKey(key)) problem('key', 'does not belong to the certificate');
  }
  const certificatePem = certs.join('\n') + '\n';
  const keyPem = input.key.trim() + '\n';
  if (problems.length === 0) {
    try {
      createSecureContext({ cert: certificatePem, key: keyPem });
    } catch (error) {
      problem('certificate', `cannot be used for TLS: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw validationFailed(problems);
  return { certificatePem, keyPem };
}
