/**
 * X.509 building blocks: RSA keys, certificate authorities and server certificates, made with
 * node:crypto keys and node-forge certificates. The TCP intake's bundles and the console's own
 * certificate are built from these.
 */
export {
  newKeyPair,
  keyPairFromPem,
  newSerial,
  setValidity,
  certificateFingerprint,
  fingerprintOf,
  issueCa,
  issueServerCertificate,
} from './x509.ts';
export type { KeyPair, CertificateAuthority, ServerCertificate } from './x509.ts';
