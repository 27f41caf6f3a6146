import forge from 'node-forge';
import { DAY, HOUR, RampartError } from '#engine/shared';
import {
  certificateFingerprint,
  fingerprintOf,
  issueServerCertificate as issuePkiServerCertificate,
  newKeyPair,
  newSerial,
  setValidity,
  type ServerCertificate,
} from '#engine/pki';

/** Ten years: a bundle is replaced by regenerating it, not by expiry. */
export const DEFAULT_CERTIFICATE_DAYS = 3650;

/** What a TCP configuration stores and what its downloadable bundle holds. */
export interface CertificateBundle {
  configId: string;
  /** The configuration's name when the bundle was made: for the bundle's comments only. */
  configName: string;
  caCertPem: string;
  caKeyPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** SHA-256 of the client certificate's DER, lower-case hex: the key the intake looks it up by. */
  fingerprint: string;
  /** The client certificate's serial number, hex. */
  serial: string;
  /** The client certificate's expiry, ms since the epoch. */
  notAfter: number;
}

export interface IssueBundleInput {
  configId: string;
  configName: string;
  /** The client certificate's common name; `rampart-log-<configId>` by default. */
  commonName?: string;
  /** Issue time, ms since the epoch (the Clock's `now()`). */
  now: number;
  days?: number;
}

/** A configuration id goes into file paths and certificate names: keep it to a safe alphabet. */
export const CONFIG_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A new CA and client certificate for one TCP configuration. The CA is self-signed (CA:true,
 * keyCertSign) and signs only this client certificate (clientAuth); a new bundle has a new CA, so
 * the intake, trusting only the current CAs, refuses the old bundle.
 * Keys and certificates are made with engine/pki's building blocks.
 */
export function issueBundle(input: IssueBundleInput): CertificateBundle {
  checkConfigId(input.configId);
  const days = input.days ?? DEFAULT_CERTIFICATE_DAYS;
  const commonName = input.commonName ?? `rampart-log-${input.configId}`;
  if (commonName.length === 0 || commonName.length > 64) {
    throw new RampartError('VALIDATION_FAILED', 'The certificate common name must be 1 to 64 characters.', {
      field: 'commonName',
    });
  }
  const validity = { from: input.now - HOUR, to: input.now + days * DAY };

  const ca = newKeyPair();
  const caCert = forge.pki.createCertificate();
  caCert.publicKey = ca.publicKey;
  caCert.serialNumber = newSerial();
  setValidity(caCert, validity);
  const caSubject = [
    { name: 'commonName', value: `Rampart log intake CA ${input.configId}` },
    { name: 'organizationName', value: 'Rampart' },
  ];
  caCert.setSubject(caSubject);
  caCert.setIssuer(caSubject);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(ca.privateKey, forge.md.sha256.create());

  const client = newKeyPair();
  const clientCert = forge.pki.createCertificate();
  clientCert.publicKey = client.publicKey;
  clientCert.serialNumber = newSerial();
  setValidity(clientCert, validity);
  clientCert.setSubject([
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'Rampart' },
  ]);
  clientCert.setIssuer(caSubject);
  clientCert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  clientCert.sign(ca.privateKey, forge.md.sha256.create());

  return {
    configId: input.configId,
    configName: input.configName,
    caCertPem: forge.pki.certificateToPem(caCert),
    caKeyPem: ca.privateKeyPem,
    clientCertPem: forge.pki.certificateToPem(clientCert),
    clientKeyPem: client.privateKeyPem,
    fingerprint: fingerprintOf(clientCert),
    serial: clientCert.serialNumber,
    notAfter: validity.to - (validity.to % 1000),
  };
}

export type { ServerCertificate };
export { certificateFingerprint };

/**
 * A self-signed server certificate for the intake listener (serverAuth, the given host names and
 * addresses as subject alternative names). Senders use `StreamDriverAuthMode="anon"`, so they do
 * not verify it: it only lets the TLS handshake run; the trust that matters is the server's check
 * of the client certificate.
 */
export function issueServerCertificate(input: {
  hosts: readonly string[];
  now: number;
  days?: number;
}): ServerCertificate {
  return issuePkiServerCertificate({
    hosts: input.hosts,
    now: input.now,
    days: input.days ?? DEFAULT_CERTIFICATE_DAYS,
    fallbackName: 'rampart-log-intake',
  });
}

export function checkConfigId(configId: string): void {
  if (!CONFIG_ID_PATTERN.test(configId)) {
    throw new RampartError('VALIDATION_FAILED', 'A configuration id is 1 to 64 letters, digits, "_" or "-".', {
      field: 'configId',
    });
  }
}
