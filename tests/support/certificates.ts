/**
 * Certificates made by a test (node-forge): an authority and server certificates it signs, for
 * the names and validity a test asks for. Nothing is written to the repository.
 */
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

export interface TestAuthority {
  cert: string;
  key: string;
}

export interface TestCertificate {
  /** The server certificate, then the authority's (a chain). */
  chain: string;
  cert: string;
  key: string;
}

function keyPair(): { keyPem: string; publicKey: forge.pki.PublicKey } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString()),
  };
}

let serial = 1;

export function testAuthority(name = 'Rampart Test CA'): TestAuthority {
  const { keyPem, publicKey } = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = (serial++).toString(16).padStart(2, '0');
  cert.validity.notBefore = new Date(Date.now() - 3600_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const subject = [{ name: 'commonName', value: name }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keyPem };
}

/** A server certificate for `names`, valid from `from` to `to` (ms since the epoch; default: now, a year). */
export function testCertificate(
  ca: TestAuthority,
  names: readonly string[],
  validity: { from?: number; to?: number } = {},
): TestCertificate {
  const { keyPem, publicKey } = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = (serial++).toString(16).padStart(2, '0');
  cert.validity.notBefore = new Date(validity.from ?? Date.now() - 3600_000);
  cert.validity.notAfter = new Date(validity.to ?? Date.now() + 365 * 24 * 3600_000);
  cert.setSubject([{ name: 'commonName', value: names[0] ?? 'localhost' }]);
  cert.setIssuer(forge.pki.certificateFromPem(ca.cert).subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: names.map((value) => ({ type: 2, value })) },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.key), forge.md.sha256.create());
  const pem = forge.pki.certificateToPem(cert);
  return { chain: pem + ca.cert, cert: pem, key: keyPem };
}
