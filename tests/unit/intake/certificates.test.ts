import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueBundle, issueServerCertificate } from '../../../engine/intake/certificates.ts';

// Each TCP configuration gets its own CA and a client certificate it signed (clientAuth); the
// fingerprint the intake looks a sender up by is the SHA-256 of the client certificate's DER.

const now = Date.UTC(2026, 0, 5);
const bundle = issueBundle({ configId: 'log_tcp1', configName: 'Firewall logs', now, days: 30 });

describe('issueBundle', () => {
  const ca = new X509Certificate(bundle.caCertPem);
  const client = new X509Certificate(bundle.clientCertPem);

  it('issues a client certificate that verifies against its own CA', () => {
    expect(client.checkIssued(ca)).toBe(true);
    expect(client.verify(ca.publicKey)).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
  });

  it('makes the CA a CA and the client certificate a client-authentication leaf', () => {
    expect(ca.ca).toBe(true);
    expect(client.ca).toBe(false);
    expect(client.keyUsage).toContain('1.3.6.1.5.5.7.3.2');
    expect(client.subject).toContain('CN=rampart-log-log_tcp1');
  });

  it('gives the SHA-256 fingerprint of the client certificate, as the TLS peer presents it', () => {
    expect(bundle.fingerprint).toBe(client.fingerprint256.replaceAll(':', '').toLowerCase());
    expect(bundle.serial).toBe(client.serialNumber.toLowerCase());
  });

  it('pairs each certificate with its key', () => {
    const clientKey = createPublicKey(createPrivateKey(bundle.clientKeyPem)).export({ format: 'der', type: 'spki' });
    expect(clientKey).toEqual(client.publicKey.export({ format: 'der', type: 'spki' }));
    const caKey = createPublicKey(createPrivateKey(bundle.caKeyPem)).export({ format: 'der', type: 'spki' });
    expect(caKey).toEqual(ca.publicKey.export({ format: 'der', type: 'spki' }));
  });

  it('is valid from an hour before issue for the given days', () => {
    expect(new Date(client.validFrom).getTime()).toBe(now - 3600_000);
    expect(new Date(client.validTo).getTime()).toBe(now + 30 * 86_400_000);
    expect(bundle.notAfter).toBe(now + 30 * 86_400_000);
  });

  it('issues a new CA each time, so a regenerated bundle does not verify against the old CA', () => {
    const again = issueBundle({ configId: 'log_tcp1', configName: 'Firewall logs', now });
    expect(again.fingerprint).not.toBe(bundle.fingerprint);
    expect(new X509Certificate(again.clientCertPem).checkIssued(ca)).toBe(false);
  });

  it('refuses a configuration id that could not go into a path', () => {
    expect(() => issueBundle({ configId: '../etc', configName: 'x', now })).toThrow(/configuration id/);
  });
});

describe('issueServerCertificate', () => {
  it('issues a self-signed server certificate naming the given hosts', () => {
    const server = issueServerCertificate({ hosts: ['127.0.0.1', 'intake.example'], now });
    const cert = new X509Certificate(server.certPem);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkHost('intake.example')).toBe('intake.example');
    expect(cert.keyUsage).toContain('1.3.6.1.5.5.7.3.1');
  });
});
