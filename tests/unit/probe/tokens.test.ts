import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_TOKEN_LENGTH, TokenService } from '#engine/probe';
import { ManualClock, SECOND } from '#engine/shared';
import { deriveKey } from '../../../engine/probe/keys.ts';

const secret = Buffer.alloc(32, 1);
const site = { siteId: 'site_a', ip: '198.51.100.7' };

function setup() {
  const clock = new ManualClock();
  const tokens = new TokenService(secret, clock);
  const { deviceId } = tokens.newDeviceId();
  return { clock, tokens, deviceId };
}

/** Flips one character in the middle of a token, keeping it well-formed base64url. */
function tamper(token: string, at = 20): string {
  const c = token[at] === 'A' ? 'B' : 'A';
  return token.slice(0, at) + c + token.slice(at + 1);
}

describe('token cookie', () => {
  it('verifies as valid with device, times and bot flag', () => {
    const { clock, tokens, deviceId } = setup();
    const token = tokens.issue({ siteId: 'site_a', deviceId, ttlSeconds: 60, bot: true });
    expect(tokens.verify(token, site)).toEqual({
      kind: 'valid',
      deviceId,
      issuedAt: clock.now(),
      expiresAt: clock.now() + 60 * SECOND,
      bot: true,
    });
  });

  it('is missing when absent or empty', () => {
    const { tokens } = setup();
    expect(tokens.verify(undefined, site)).toEqual({ kind: 'missing' });
    expect(tokens.verify('', site)).toEqual({ kind: 'missing' });
  });

  it('is invalid when one character is changed', () => {
    const { tokens, deviceId } = setup();
    const token = tokens.issue({ siteId: 'site_a', deviceId, ttlSeconds: 60 });
    for (const at of [0, 3, 10, 20, 40, 60, 71]) expect(tokens.verify(tamper(token, at), site).kind).toBe('invalid');
  });

  it('is invalid for another site', () => {
    const { tokens, deviceId } = setup();
    const token = tokens.issue({ siteId: 'site_a', deviceId, ttlSeconds: 60 });
    expect(tokens.verify(token, { siteId: 'site_b', ip: site.ip })).toEqual({ kind: 'invalid', reason: 'wrong_site' });
  });

  it('cannot be verified with a token made under another secret', () => {
    const { tokens, deviceId, clock } = setup();
    const other = new TokenService(Buffer.alloc(32, 2), clock);
    const token = other.issue({ siteId: 'site_a', deviceId, ttlSeconds: 60 });
    expect(tokens.verify(token, site).kind).toBe('invalid');
  });

  it('expires exactly at issue time plus lifetime', () => {
    const { tokens, deviceId, clock } = setup();
    const token = tokens.issue({ siteId: 'site_a', deviceId, ttlSeconds: 60 });
    clock.advance(60 * SECOND - 1);
    expect(tokens.verify(token, site).kind).toBe('valid');
    clock.advance(1);
    expect(tokens.verify(token, site)).toEqual({ kind: 'expired', deviceId });
  });

  it('stays expired when it was verified (and remembered) before', () => {
    const { tokens, deviceId, clock } = setup();
    const token = tokens.issue({ siteId: 'site_a', deviceId, ttlSeconds: 5 });
    expect(tokens.verify(token, site).kind).toBe('valid');
    clock.advance(5 * SECOND);
    expect(tokens.verify(token, site).kind).toBe('expired');
  });

  it('with IP lock verifies from its IP and is invalid from another', () => {
    const { tokens, deviceId } = setup();
    const token = tokens.issue({ siteId: 'site_a', deviceId, ttlSeconds: 60, ip: site.ip });
    expect(tokens.verify(token, site).kind).toBe('valid');
    expect(tokens.verify(token, { siteId: 'site_a', ip: '198.51.100.8' })).toEqual({
      kind: 'invalid',
      reason: 'ip_mismatch',
    });
  });

  it('without IP lock verifies from any IP', () => {
    const { tokens, deviceId } = setup();
    const token = tokens.issue({ siteId: 'site_a', deviceId, ttlSeconds: 60 });
    expect(tokens.verify(token, { siteId: 'site_a', ip: '2001:db8::1' }).kind).toBe('valid');
  });

  it('refuses an IP-locked token from another IP even after a valid check was remembered', () => {
    const { tokens, deviceId } = setup();
    const token = tokens.issue({ siteId: 'site_a', deviceId, ttlSeconds: 60, ip: site.ip });
    expect(tokens.verify(token, site).kind).toBe('valid');
    expect(tokens.verify(token, { siteId: 'site_a', ip: '203.0.113.1' }).kind).toBe('invalid');
    expect(tokens.verify(token, { siteId: 'site_b', ip: site.ip }).kind).toBe('invalid');
  });

  it('is invalid, without throwing, for garbage', () => {
    const { tokens } = setup();
    const garbage: unknown[] = [
      'x',
      'a.b.c',
      '%%%%',
      'é'.repeat(72),
      '='.repeat(72),
      '\u0000'.repeat(72),
      42,
      {},
      'A'.repeat(72),
    ];
    for (const value of garbage) expect(tokens.verify(value as string, site).kind).toBe('invalid');
  });

  it('is invalid as oversized beyond 512 characters', () => {
    const { tokens } = setup();
    expect(tokens.verify('A'.repeat(MAX_TOKEN_LENGTH + 1), site)).toEqual({ kind: 'invalid', reason: 'oversized' });
  });

  it('is signed with standard HMAC-SHA256 over body, site and IP', () => {
    const { tokens, deviceId } = setup();
    const raw = Buffer.from(tokens.issue({ siteId: 'site_a', deviceId, ttlSeconds: 60, ip: site.ip }), 'base64url');
    const mac = createHmac('sha256', deriveKey(secret, 'token'))
      .update(raw.subarray(0, 36))
      .update(`site_a\u0000${site.ip}`)
      .digest();
    expect(raw.subarray(36)).toEqual(mac.subarray(0, 18));
  });

  it('refuses to issue for a device id it did not make', () => {
    const { tokens } = setup();
    expect(() => tokens.issue({ siteId: 'site_a', deviceId: 'not-a-device', ttlSeconds: 60 })).toThrow(/device id/);
  });
});

describe('identity cookie', () => {
  it('verifies the cookie newDeviceId made and returns its device id', () => {
    const { tokens } = setup();
    const identity = tokens.newDeviceId();
    expect(identity.deviceId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(tokens.verifyDeviceId(identity.cookieValue)).toEqual({ kind: 'valid', deviceId: identity.deviceId });
  });

  it('gives each new device a different id', () => {
    const { tokens } = setup();
    expect(tokens.newDeviceId().deviceId).not.toBe(tokens.newDeviceId().deviceId);
  });

  it('is invalid when a client puts another device id in front of its signature', () => {
    const { tokens } = setup();
    const mine = tokens.newDeviceId();
    const theirs = tokens.newDeviceId();
    const forged = `${theirs.deviceId}.${mine.cookieValue.split('.')[1] ?? ''}`;
    expect(tokens.verifyDeviceId(forged)).toEqual({ kind: 'invalid' });
  });

  it('is missing when absent and invalid for garbage', () => {
    const { tokens } = setup();
    expect(tokens.verifyDeviceId(undefined)).toEqual({ kind: 'missing' });
    for (const value of ['x', 'A'.repeat(39), `${'A'.repeat(22)}.${'A'.repeat(16)}`, 'é'.repeat(39)]) {
      expect(tokens.verifyDeviceId(value)).toEqual({ kind: 'invalid' });
    }
  });

  it('gives one device id for every spelling of the same bytes', () => {
    const { tokens } = setup();
    const identity = tokens.newDeviceId();
    // The last id character carries 4 spare bits: flipping them spells the same 16 bytes.
    const last = identity.cookieValue[21] ?? 'A';
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1] ?? last;
    const respelled = identity.cookieValue.slice(0, 21) + sibling + identity.cookieValue.slice(22);
    const check = tokens.verifyDeviceId(respelled);
    expect(check).toEqual({ kind: 'valid', deviceId: identity.deviceId });
  });
});
