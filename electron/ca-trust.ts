// Whether a certificate Chromium refused is one the appliance's own CA signed: the desktop window
// trusts that CA for the console's origin only (the engine tells its fingerprint in its ready
// message). Pure Node (no electron import), so tests run it.

import { X509Certificate } from 'node:crypto';

/** The part of Electron's Certificate this check reads: PEM data and the issuer chain. */
export interface ChainCertificate {
  readonly data: string;
  readonly issuerCert?: ChainCertificate | null;
}

/**
 * True when the served certificate was signed by the CA with `caFingerprint256` (Node's
 * `AA:BB:…` form): the CA must be in the presented chain and its key must verify the leaf.
 */
export function signedByOwnCa(served: ChainCertificate, caFingerprint256: string | null | undefined): boolean {
  if (!caFingerprint256) return false;
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(served.data);
  } catch {
    return false;
  }
  const seen = new Set<ChainCertificate>();
  for (let at = served.issuerCert ?? null; at && !seen.has(at); at = at.issuerCert ?? null) {
    seen.add(at);
    try {
      const cert = new X509Certificate(at.data);
      if (cert.fingerprint256 === caFingerprint256.toUpperCase() && cert.ca) return leaf.verify(cert.publicKey);
    } catch {
      return false;
    }
  }
  return false;
}
