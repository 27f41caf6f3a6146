import { describe, expect, it } from 'vitest';
import { decide } from '#engine/verdict';
import { site, request, ports } from './fixture.ts';

/**
 * Trusted proxies append to the right of X-Forwarded-For; everything to the left is the client's to
 * choose. However long the header, the address a mode picks is read from the right end.
 */
const padding = (n: number, ip: string): string => Array.from({ length: n }, () => ip).join(', ');

describe("X-Forwarded-For read from the proxies' end", () => {
  const blocked = '198.51.100.7';
  const filterSite = site({
    sourceIp: { mode: 'xff', xffMode: 'filter', trustedSources: ['10.0.0.0/8'], customHeader: '' },
    blockList: { pathEnabled: false, paths: [], ipEnabled: true, ips: [blocked] },
  });

  it('a block-listed client is blocked behind a trusted proxy (short header)', () => {
    const verdict = decide(
      filterSite,
      request({ remoteAddr: '10.1.1.1', headers: { 'x-forwarded-for': `203.0.113.5, ${blocked}` } }),
      ports(),
    );
    expect(verdict).toMatchObject({ action: 'block', guardStatus: 'BLOCKLIST', srcIp: blocked });
  });

  it('a block-listed client cannot hide behind 63 trusted-looking entries it added itself', () => {
    const xff = `203.0.113.5, ${padding(63, '10.9.9.9')}, ${blocked}`;
    const verdict = decide(
      filterSite,
      request({ remoteAddr: '10.1.1.1', headers: { 'x-forwarded-for': xff } }),
      ports(),
    );
    expect(verdict).toMatchObject({ action: 'block', guardStatus: 'BLOCKLIST', srcIp: blocked });
  });

  it('an IP-locked token is checked against the address the nearest proxy saw (rightmost)', () => {
    const victim = '192.0.2.44';
    const attacker = '198.51.100.99';
    const s = site(
      { sourceIp: { mode: 'xff', xffMode: 'rightmost', trustedSources: [], customHeader: '' } },
      'B',
      true,
    );
    const lockedToVictim = ports({
      verifyToken: (_token, _site, ip) =>
        ip === victim ? { kind: 'valid', deviceId: 'dev-1', bot: false } : { kind: 'invalid', reason: 'ip' },
    });
    const honest = decide(
      s,
      request({ remoteAddr: '10.1.1.1', headers: { 'x-forwarded-for': victim } }),
      lockedToVictim,
    );
    expect(honest).toMatchObject({ action: 'pass', guardStatus: 'PASS' });
    const spoofed = decide(
      s,
      request({ remoteAddr: '10.1.1.1', headers: { 'x-forwarded-for': `${padding(64, victim)}, ${attacker}` } }),
      lockedToVictim,
    );
    expect(spoofed).toMatchObject({ guardStatus: 'TOKEN_INVALID', srcIp: attacker });
  });
});
