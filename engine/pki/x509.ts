import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';
import { DAY, HOUR } from '#engine/shared';

const RSA_BITS = 2048;

/** A key pair: node-forge's form (to build and sign certificates) and the private key's PEM. */
export interface KeyPair {
  publicKey: forge.pki.rsa.PublicKey;
  privateKey: forge.pki.rsa.PrivateKey;
  privateKeyPem: string;
}

/**
 * An RSA key pair. node:crypto generates it (native; node-forge's pure-JS RSA takes seconds) and
 * node-forge builds and signs the certificates, which node:crypto cannot do.
 */
export function newKeyPair(): KeyPair {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: RSA_BITS,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return keyPairFromPem(privateKey);
}

export function keyPairFromPem(privateKeyPem: string): KeyPair {
  const forgeKey = forge.pki.privateKeyFromPem(privateKeyPem);
  return { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e), privateKeyPem };
}

/** 16 random bytes, the top bit clear so the DER integer stays positive. */
export function newSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

/** Validity in ms since the epoch, cut to whole seconds: X.509 times carry no milliseconds. */
export function setValidity(cert: forge.pki.Certificate, validity: { from: number; to: number }): void {
  cert.validity.notBefore = new Date(validity.from - (validity.from % 1000));
  cert.validity.notAfter = new Date(validity.to - (validity.to % 1000));
}

/** SHA-256 of a certificate's DER, lower-case hex (the form TLS code computes from a peer's `raw`). */
export function certificateFingerprint(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex');
}

export function fingerprintOf(cert: forge.pki.Certificate): string {
  const der = forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes();
  return certificateFingerprint(Buffer.from(der, 'binary'));
}

/** A certificate authority: its certificate and key, PEM. */
export interface CertificateAuthority {
  certPem: string;
  keyPem: string;
}

/** A self-signed CA (CA:true, pathLen 0, keyCertSign) that signs leaf certificates only. */
export function issueCa(input: { commonName: string; now: number; days: number }): CertificateAuthority {
  const pair = newKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = pair.publicKey;
  cert.serialNumber = newSerial();
  setValidity(cert, { from: input.now - HOUR, to: input.now + input.days * DAY });
  const subject = [
    { name: 'commonName', value: input.commonName.slice(0, 64) },
    { name: 'organizationName', value: 'Rampart' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(pair.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: pair.privateKeyPem };
}

/** A TLS server's key and certificate. */
export interface ServerCertificate {
  certPem: string;
  keyPem: string;
  fingerprint: string;
  notAfter: number;
}

/**
 * A server certificate (serverAuth) for the given host names and addresses, as subject alternative
 * names. Signed by `issuer` when given, else self-signed.
 */
export function issueServerCertificate(input: {
  hosts: readonly string[];
  now: number;
  days: number;
  issuer?: CertificateAuthority;
  /** The common name when there are no hosts. */
  fallbackName?: string;
}): ServerCertificate {
  const pair = newKeyPair();
  const cert = forge.pki.createCertificate();
  const validity = { from: input.now - HOUR, to: input.now + input.days * DAY };
  cert.publicKey = pair.publicKey;
  cert.serialNumber = newSerial();
  setValidity(cert, validity);
  const subject = [
    { name: 'commonName', value: input.hosts[0]?.slice(0, 64) || (input.fallbackName ?? 'rampart') },
    { name: 'organizationName', value: 'Rampart' },
  ];
  cert.setSubject(subject);
  const signer = input.issuer ? keyPairFromPem(input.issuer.keyPem) : pair;
  const issuerCert = input.issuer ? forge.pki.certificateFromPem(input.issuer.certPem) : undefined;
  cert.setIssuer(issuerCert ? issuerCert.subject.attributes : subject);
  const altNames = input.hosts.map((host) => (isIP(host) !== 0 ? { type: 7, ip: host } : { type: 2, value: host }));
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    ...(altNames.length > 0 ? [{ name: 'subjectAltName', altNames }] : []),
    ...(issuerCert
      ? [{ name: 'authorityKeyIdentifier', keyIdentifier: issuerCert.generateSubjectKeyIdentifier().getBytes() }]
      : []),
  ]);
  cert.sign(signer.privateKey, forge.md.sha256.create());
  return {
    certPem: forge.pki.certificateToPem(cert),
    keyPem: pair.privateKeyPem,
    fingerprint: fingerprintOf(cert),
    notAfter: validity.to - (validity.to % 1000),
  };
}
