import { describe, expect, it } from 'vitest';
import { ChallengeService, MemoryUsedChallenges, leadingZeroBits } from '#engine/probe';
import { ManualClock, SECOND } from '#engine/shared';
import { nonSolution, solve } from './support.ts';

const secret = Buffer.alloc(32, 5);
const site = { siteId: 'site_a' };

function setup(used = new MemoryUsedChallenges()) {
  const clock = new ManualClock();
  return { clock, challenges: new ChallengeService(secret, clock, { ttlSeconds: 60, used }) };
}

describe('proof-of-work challenges', () => {
  it('accept a solution found with Node crypto', () => {
    const { challenges } = setup();
    const issued = challenges.issueChallenge({ siteId: 'site_a', difficulty: 10 });
    expect(issued.challenge).toMatch(/^[A-Za-z0-9_-]{48}$/);
    expect(challenges.verifySolution(issued.challenge, solve(issued.challenge, 10), site)).toEqual({
      kind: 'valid',
      difficulty: 10,
    });
  });

  it('refuse a counter whose hash lacks the leading zero bits', () => {
    const { challenges } = setup();
    const issued = challenges.issueChallenge({ siteId: 'site_a', difficulty: 12 });
    expect(challenges.verifySolution(issued.challenge, nonSolution(issued.challenge, 12), site)).toEqual({
      kind: 'invalid',
      reason: 'insufficient_work',
    });
  });

  it('refuse the same solution the second time', () => {
    const { challenges } = setup();
    const issued = challenges.issueChallenge({ siteId: 'site_a', difficulty: 8 });
    const counter = solve(issued.challenge, 8);
    expect(challenges.verifySolution(issued.challenge, counter, site).kind).toBe('valid');
    expect(challenges.verifySolution(issued.challenge, counter, site)).toEqual({ kind: 'replayed' });
  });

  it('refuse a solution after the challenge expired', () => {
    const { challenges, clock } = setup();
    const issued = challenges.issueChallenge({ siteId: 'site_a', difficulty: 8 });
    clock.advance(60 * SECOND);
    expect(challenges.verifySolution(issued.challenge, solve(issued.challenge, 8), site)).toEqual({ kind: 'expired' });
  });

  it('refuse a challenge of another site', () => {
    const { challenges } = setup();
    const issued = challenges.issueChallenge({ siteId: 'site_a', difficulty: 8 });
    expect(challenges.verifySolution(issued.challenge, solve(issued.challenge, 8), { siteId: 'site_b' })).toEqual({
      kind: 'invalid',
      reason: 'signature',
    });
  });

  it('refuse a challenge whose difficulty was lowered by the client', () => {
    const { challenges } = setup();
    const issued = challenges.issueChallenge({ siteId: 'site_a', difficulty: 16 });
    const raw = Buffer.from(issued.challenge, 'base64url');
    raw[1] = 1;
    const forged = raw.toString('base64url');
    expect(challenges.verifySolution(forged, solve(forged, 1), site)).toEqual({ kind: 'invalid', reason: 'signature' });
  });

  it('refuse malformed challenges and counters without throwing', () => {
    const { challenges } = setup();
    const issued = challenges.issueChallenge({ siteId: 'site_a', difficulty: 8 });
    for (const [challenge, counter] of [
      ['', 0],
      ['x'.repeat(48), 0],
      [issued.challenge, -1],
      [issued.challenge, 1.5],
      [issued.challenge, Number.NaN],
    ] as const) {
      expect(challenges.verifySolution(challenge, counter, site)).toEqual({ kind: 'invalid', reason: 'malformed' });
    }
  });

  it('forget used challenges once they expire, keeping the set bounded', () => {
    const used = new MemoryUsedChallenges(2);
    const { challenges, clock } = setup(used);
    const a = challenges.issueChallenge({ siteId: 'site_a', difficulty: 4 });
    const b = challenges.issueChallenge({ siteId: 'site_a', difficulty: 4 });
    challenges.verifySolution(a.challenge, solve(a.challenge, 4), site);
    challenges.verifySolution(b.challenge, solve(b.challenge, 4), site);
    const c = challenges.issueChallenge({ siteId: 'site_a', difficulty: 4 });
    expect(challenges.verifySolution(c.challenge, solve(c.challenge, 4), site)).toEqual({
      kind: 'invalid',
      reason: 'busy',
    });
    clock.advance(60 * SECOND);
    const d = challenges.issueChallenge({ siteId: 'site_a', difficulty: 4 });
    expect(challenges.verifySolution(d.challenge, solve(d.challenge, 4), site).kind).toBe('valid');
    expect(used.size).toBe(1);
  });

  it('refuse to issue a difficulty outside 1 to 24 bits', () => {
    const { challenges } = setup();
    expect(() => challenges.issueChallenge({ siteId: 'site_a', difficulty: 0 })).toThrow(/difficulty/);
    expect(() => challenges.issueChallenge({ siteId: 'site_a', difficulty: 25 })).toThrow(/difficulty/);
  });

  it('count leading zero bits from the most significant bit', () => {
    expect(leadingZeroBits(Uint8Array.from([0, 0, 0x10, 0xff]))).toBe(19);
    expect(leadingZeroBits(Uint8Array.from([0x80]))).toBe(0);
    expect(leadingZeroBits(new Uint8Array(4))).toBe(32);
  });
});
