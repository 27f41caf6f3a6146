import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueCa, issueServerCertificate } from '#engine/pki';
import { signedByOwnCa, type ChainCertificate } from '../../../electron/ca-trust.ts';
import { parseEngineMessage } from '../../../electron/supervisor.ts';

const now = Date.now();
const ownCa = issueCa({ commonName: 'Rampart appliance CA', now, days: 30 });
const otherCa = issueCa({ commonName: 'Rampart appliance CA', now, days: 30 });
const ownFingerprint = new X509Certificate(ownCa.certPem).fingerprint256;

/** A chain as Electron hands it over: the leaf, its issuer after it. */
function chain(leafPem: string, ...issuers: string[]): ChainCertificate {
  let tail: ChainCertificate | null = null;
  for (const pem of [...issuers].reverse()) tail = { data: pem, issuerCert: tail };
  return { data: leafPem, issuerCert: tail };
}

describe('the desktop window trusts the appliance CA only', () => {
  const served = issueServerCertificate({ hosts: ['127.0.0.1'], now, days: 30, issuer: ownCa });

  it('accepts a certificate the CA with the told fingerprint signed', () => {
    expect(signedByOwnCa(chain(served.certPem, ownCa.certPem), ownFingerprint)).toBe(true);
    expect(signedByOwnCa(chain(served.certPem, ownCa.certPem), ownFingerprint.toLowerCase())).toBe(true);
  });

  it('refuses another CA, even one of the same name, and a chain without the CA', () => {
    const foreign = issueServerCertificate({ hosts: ['127.0.0.1'], now, days: 30, issuer: otherCa });
    expect(signedByOwnCa(chain(foreign.certPem, otherCa.certPem), ownFingerprint)).toBe(false);
    expect(signedByOwnCa(chain(served.certPem), ownFingerprint)).toBe(false);
    const selfSigned = issueServerCertificate({ hosts: ['127.0.0.1'], now, days: 30 });
    expect(signedByOwnCa(chain(selfSigned.certPem, selfSigned.certPem), ownFingerprint)).toBe(false);
  });

  it('refuses a leaf the CA did not sign placed in front of the real CA', () => {
    const foreign = issueServerCertificate({ hosts: ['127.0.0.1'], now, days: 30, issuer: otherCa });
    expect(signedByOwnCa(chain(foreign.certPem, ownCa.certPem), ownFingerprint)).toBe(false);
  });

  it('refuses everything when the engine told no fingerprint, and garbage', () => {
    expect(signedByOwnCa(chain(served.certPem, ownCa.certPem), null)).toBe(false);
    expect(signedByOwnCa(chain(served.certPem, ownCa.certPem), undefined)).toBe(false);
    expect(signedByOwnCa(chain('not a certificate', ownCa.certPem), ownFingerprint)).toBe(false);
  });

  it('reads the HTTPS address and CA fingerprint from the engine ready message', () => {
    expect(
      parseEngineMessage({
        type: 'ready',
        consoleUrl: 'http://127.0.0.1:9080',
        version: '1.0.0',
        secureUrl: 'https://127.0.0.1:9080',
        caFingerprint256: ownFingerprint,
      }),
    ).toMatchObject({ secureUrl: 'https://127.0.0.1:9080', caFingerprint256: ownFingerprint });
  });
});
