import { describe, expect, it } from 'vitest';
import {
  RECOVERY_CODES,
  base32Decode,
  base32Encode,
  findRecoveryCode,
  hashRecoveryCode,
  hotp,
  matchTotp,
  newRecoveryCodes,
  newTotpSecret,
  otpauthUri,
  stepAt,
  totpCode,
  type HmacAlgorithm,
} from '#engine/accounts';
import { cryptoRandom } from '#engine/shared';

/** RFC 6238 Appendix B: the seeds (ASCII) and the 8-digit codes at each time, per algorithm. */
const SEEDS: Record<HmacAlgorithm, string> = {
  sha1: '12345678901234567890',
  sha256: '12345678901234567890123456789012',
  sha512: '1234567890123456789012345678901234567890123456789012345678901234',
};
const VECTORS: { time: number; sha1: string; sha256: string; sha512: string }[] = [
  { time: 59, sha1: '94287082', sha256: '46119246', sha512: '90693936' },
  { time: 1111111109, sha1: '07081804', sha256: '68084774', sha512: '25091201' },
  { time: 1111111111, sha1: '14050471', sha256: '67062674', sha512: '99943326' },
  { time: 1234567890, sha1: '89005924', sha256: '91819424', sha512: '93441116' },
  { time: 2000000000, sha1: '69279037', sha256: '90698825', sha512: '38618901' },
  { time: 20000000000, sha1: '65353130', sha256: '77737706', sha512: '47863826' },
];

const SECRET = base32Encode(Buffer.from(SEEDS.sha1));
const T = 1_111_111_111_000;

describe('TOTP (RFC 6238)', () => {
  for (const v of VECTORS) {
    for (const algorithm of ['sha1', 'sha256', 'sha512'] as const) {
      it(`gives the Appendix B code at T=${v.time} with HMAC-${algorithm.toUpperCase()}`, () => {
        expect(hotp(Buffer.from(SEEDS[algorithm]), stepAt(v.time * 1000), 8, algorithm)).toBe(v[algorithm]);
      });
    }
  }

  it('shows the last 6 digits of the 8-digit SHA-1 vectors, as authenticator apps do', () => {
    for (const v of VECTORS) expect(totpCode(SECRET, v.time * 1000)).toBe(v.sha1.slice(2));
  });

  it('round-trips base32 (RFC 4648 test vectors, no padding)', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('MZXW6YTBOI').toString()).toBe('foobar');
    expect(base32Decode('mzxw 6ytb oi======').toString()).toBe('foobar');
    expect(SECRET).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  });

  it('makes a secret of 20 random bytes', () => {
    const secret = newTotpSecret(cryptoRandom);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(secret)).toHaveLength(20);
    expect(newTotpSecret(cryptoRandom)).not.toBe(secret);
  });
});

describe('matching a typed code', () => {
  it('accepts the current code, and names its step', () => {
    expect(matchTotp(SECRET, totpCode(SECRET, T), T, -1)).toBe(stepAt(T));
  });

  it('accepts the codes of one step before and after (clock drift), not two', () => {
    expect(matchTotp(SECRET, totpCode(SECRET, T - 30_000), T, -1)).toBe(stepAt(T) - 1);
    expect(matchTotp(SECRET, totpCode(SECRET, T + 30_000), T, -1)).toBe(stepAt(T) + 1);
    expect(matchTotp(SECRET, totpCode(SECRET, T - 60_000), T, -1)).toBeNull();
    expect(matchTotp(SECRET, totpCode(SECRET, T + 60_000), T, -1)).toBeNull();
  });

  it('refuses a code whose step was already used, and any earlier one', () => {
    const step = stepAt(T);
    expect(matchTotp(SECRET, totpCode(SECRET, T), T, step)).toBeNull();
    expect(matchTotp(SECRET, totpCode(SECRET, T - 30_000), T, step)).toBeNull();
    expect(matchTotp(SECRET, totpCode(SECRET, T + 30_000), T, step)).toBe(step + 1);
  });

  it('refuses a wrong code, and anything that is not 6 digits', () => {
    const right = totpCode(SECRET, T);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    for (const typed of [wrong, '', '12345', '1234567', 'abcdef', `${right}0`]) {
      expect(matchTotp(SECRET, typed, T, -1), typed).toBeNull();
    }
    expect(matchTotp(SECRET, `${right.slice(0, 3)} ${right.slice(3)}`, T, -1)).toBe(stepAt(T));
  });

  it('gives an otpauth URI naming the issuer Rampart and the account', () => {
    const uri = new URL(otpauthUri(SECRET, 'ann+ops@example.com'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Rampart:ann+ops@example.com');
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret: SECRET,
      issuer: 'Rampart',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});

describe('recovery codes', () => {
  it('makes ten distinct xxxx-xxxx codes of the unambiguous alphabet', () => {
    const codes = newRecoveryCodes(cryptoRandom);
    expect(codes).toHaveLength(RECOVERY_CODES.count);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^[2-9a-hjkmnp-z]{4}-[2-9a-hjkmnp-z]{4}$/);
  });

  it('finds a typed code among the hashes whatever its case, spaces or dash', () => {
    const codes = newRecoveryCodes(cryptoRandom);
    const hashes = codes.map(hashRecoveryCode);
    expect(hashes.join()).not.toContain(codes[3]);
    const typed = ` ${codes[3]!.toUpperCase().replace('-', ' ')} `;
    expect(findRecoveryCode(hashes, typed)).toBe(3);
    expect(findRecoveryCode(hashes, 'zzzz-zzzz')).toBe(-1);
  });
});
