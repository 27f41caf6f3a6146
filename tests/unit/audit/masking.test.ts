import { describe, expect, it } from 'vitest';
import { MASK, MAX_STRING, SECRET_FIELD_NAMES, isSecretField, maskSecrets } from '#engine/audit';

/** Configuration objects as the store keeps them, each with the secrets it holds. */
const FIXTURES: { name: string; value: Record<string, unknown>; secrets: string[] }[] = [
  {
    name: 'an account (password hash)',
    value: { id: 'acc_1', email: 'a@example.com', passwordHash: 'scrypt$abc$def', role: 'user' },
    secrets: ['scrypt$abc$def'],
  },
  {
    name: "edition B's global configuration (Access Key)",
    value: { tokenCookieName: 'rampart_token', accessKey: 'Zm9vYmFyYmF6cXV4', ipLock: false },
    secrets: ['Zm9vYmFyYmF6cXV4'],
  },
  {
    name: 'a BROKER log configuration (broker password) with its certificate bundle (private keys)',
    value: {
      id: 'log_1',
      broker: { address: '127.0.0.1:9092', account: 'svc', password: 'broker-pass-1' },
      certificate: {
        caCertPem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
        caKeyPem: 'ca-key-material',
        clientKeyPem: 'client-key-material',
        fingerprint: 'ab12',
      },
    },
    secrets: ['broker-pass-1', 'ca-key-material', 'client-key-material'],
  },
  {
    name: 'SMTP settings (password)',
    value: { smtp: { host: 'mail.example.com', user: 'relay', smtp_password: 'smtp-pass-2', pass: 'x' } },
    secrets: ['smtp-pass-2'],
  },
  {
    name: 'a rule whose webhook signs with a secret',
    value: { notify: { webhook: { url: 'https://hooks.example.com', secret: 'hmac-secret-3' } } },
    secrets: ['hmac-secret-3'],
  },
  {
    name: 'a site certificate (key PEM) and session tokens',
    value: {
      certificate: { certificatePem: 'cert', keyPem: 'site-key-4' },
      session: { csrfToken: 'csrf-5', token: 'tok-6', tokenCookieName: 'rampart_token' },
    },
    secrets: ['site-key-4', 'csrf-5', 'tok-6'],
  },
];

describe('maskSecrets', () => {
  for (const fixture of FIXTURES) {
    it(`leaves no secret of ${fixture.name} in the masked copy`, () => {
      const json = JSON.stringify(maskSecrets(fixture.value));
      for (const secret of fixture.secrets) expect(json).not.toContain(secret);
      expect(json).toContain(MASK);
    });
  }

  it('keeps what is not secret: ids, names, addresses, cookie names, public certificates', () => {
    const masked = maskSecrets(FIXTURES[2]!.value);
    expect(masked).toMatchObject({
      id: 'log_1',
      broker: { address: '127.0.0.1:9092', account: 'svc', password: MASK },
      certificate: { caCertPem: expect.stringContaining('BEGIN CERTIFICATE') as unknown, fingerprint: 'ab12' },
    });
    expect(maskSecrets({ tokenCookieName: 'rampart_token', tokenExpirySeconds: 60 })).toEqual({
      tokenCookieName: 'rampart_token',
      tokenExpirySeconds: 60,
    });
  });

  it('keeps an empty secret empty, so "not set" stays visible', () => {
    expect(maskSecrets({ password: '', accessKey: null, secret: 'x' })).toEqual({
      password: '',
      accessKey: null,
      secret: MASK,
    });
  });

  it('masks a PEM private key whatever its field is called', () => {
    const pem = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----';
    expect(maskSecrets({ notes: pem, list: [pem, 'plain'] })).toEqual({ notes: MASK, list: [MASK, 'plain'] });
    expect(maskSecrets({ blob: '-----BEGIN PRIVATE KEY-----\nabc' })).toEqual({ blob: MASK });
  });

  it('masks a secret field holding an object or a list whole', () => {
    expect(maskSecrets({ secrets: { tokenKey: 'k' }, passwords: ['a'], accessKeys: ['b'] })).toEqual({
      secrets: MASK,
      passwords: MASK,
      accessKeys: MASK,
    });
  });

  it('does not change its input', () => {
    const input = { broker: { password: 'p' } };
    maskSecrets(input);
    expect(input).toEqual({ broker: { password: 'p' } });
  });

  it('cuts an overlong string and says how long it was', () => {
    const masked = maskSecrets({ blockContent: 'x'.repeat(MAX_STRING + 10) });
    expect(masked.blockContent).toBe(`${'x'.repeat(MAX_STRING)}… (${MAX_STRING + 10} characters)`);
  });
});

describe('isSecretField', () => {
  it('knows every listed name, in any case and with _ or -', () => {
    for (const name of SECRET_FIELD_NAMES) {
      expect(isSecretField(name), name).toBe(true);
      expect(isSecretField(name.toUpperCase()), name).toBe(true);
    }
    expect(isSecretField('access_key')).toBe(true);
    expect(isSecretField('private-key')).toBe(true);
  });

  it('takes names that end like a secret (smtpPassword, webhookSecret, refreshToken, tlsKeyPem)', () => {
    for (const name of ['smtpPassword', 'webhookSecret', 'refreshToken', 'tlsKeyPem', 'adminPassphrase'])
      expect(isSecretField(name), name).toBe(true);
  });

  it('leaves configuration names that merely mention a secret word alone', () => {
    for (const name of ['tokenCookieName', 'tokenExpirySeconds', 'keyFields', 'passList', 'accessMethod', 'status'])
      expect(isSecretField(name), name).toBe(false);
  });
});
