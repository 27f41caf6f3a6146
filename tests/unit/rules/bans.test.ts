import { describe, expect, it } from 'vitest';
import { BanStore, THREAT_STORE_SECONDS } from '#engine/rules';
import { ManualClock } from '#engine/shared';

const origin = { kind: 'manual' as const, accountId: null, reason: 'test' };

function store() {
  const clock = new ManualClock(1_700_000_000_000);
  let changes = 0;
  const bans = new BanStore({ clock, changed: () => changes++ });
  return { clock, bans, changes: () => changes };
}

describe('bans and the threat store', () => {
  it('a ban holds on its site until its duration has passed, to the millisecond', () => {
    const { clock, bans } = store();
    bans.ban({ siteId: 's1', object: 'ip', value: '203.0.113.9', durationSeconds: 60, origin, threatStore: false });
    const now = clock.now();
    expect(bans.isBanned('s1', '203.0.113.9', '', now, false)).toBe(true);
    expect(bans.isBanned('s2', '203.0.113.9', '', now, true)).toBe(false);
    expect(bans.isBanned('s1', '203.0.113.9', '', now + 59_999, false)).toBe(true);
    expect(bans.isBanned('s1', '203.0.113.9', '', now + 60_000, false)).toBe(false);
  });

  it("a rule's block also puts an IP or device in the threat store for 300 s, for every site that consults it", () => {
    const { clock, bans } = store();
    bans.ban({ siteId: 's1', object: 'device', value: 'dev-1', durationSeconds: 3600, origin, threatStore: true });
    const now = clock.now();
    expect(bans.isBanned('s2', '', 'dev-1', now, true)).toBe(true);
    expect(bans.isBanned('s2', '', 'dev-1', now, false)).toBe(false);
    expect(bans.isBanned('s2', '', 'dev-1', now + THREAT_STORE_SECONDS * 1000, true)).toBe(false);
    // The site's own ban lasts its duration.
    expect(bans.isBanned('s1', '', 'dev-1', now + THREAT_STORE_SECONDS * 1000, false)).toBe(true);
  });

  it('users and custom keys are banned on the site but never enter the threat store', () => {
    const { clock, bans } = store();
    bans.ban({ siteId: 's1', object: 'user', value: 'alice', durationSeconds: 60, origin, threatStore: true });
    expect(bans.threats()).toEqual([]);
    expect(bans.isKeyBanned('s1', 'user', 'alice', clock.now())).toBe(true);
  });

  it('banning again extends a ban, never shortens it', () => {
    const { clock, bans } = store();
    const first = bans.ban({
      siteId: 's1',
      object: 'ip',
      value: '10.0.0.1',
      durationSeconds: 600,
      origin,
      threatStore: false,
    });
    const again = bans.ban({
      siteId: 's1',
      object: 'ip',
      value: '10.0.0.1',
      durationSeconds: 60,
      origin,
      threatStore: false,
    });
    expect(again.id).toBe(first.id);
    expect(again.until).toBe(clock.now() + 600_000);
    bans.ban({ siteId: 's1', object: 'ip', value: '10.0.0.1', durationSeconds: 6000, origin, threatStore: false });
    expect(bans.get(first.id)?.until).toBe(clock.now() + 6_000_000);
  });

  it('lifting a ban removes it and the threat-store entry it made', () => {
    const { clock, bans } = store();
    const ban = bans.ban({
      siteId: 's1',
      object: 'ip',
      value: '10.0.0.1',
      durationSeconds: 600,
      origin,
      threatStore: true,
    });
    bans.lift(ban.id);
    expect(bans.isBanned('s1', '10.0.0.1', '', clock.now(), true)).toBe(false);
    expect(() => bans.lift(ban.id)).toThrow(/not found/);
  });

  it('lists active bans newest first, filtered and paged by cursor', () => {
    const { clock, bans } = store();
    for (let i = 0; i < 5; i++) {
      bans.ban({
        siteId: i % 2 === 0 ? 's1' : 's2',
        object: 'ip',
        value: `10.0.0.${i}`,
        durationSeconds: 60,
        origin,
        threatStore: false,
      });
      clock.advance(1000);
    }
    const first = bans.list({ limit: 2 });
    expect(first.bans.map((b) => b.value)).toEqual(['10.0.0.4', '10.0.0.3']);
    expect(first.total).toBe(5);
    const second = bans.list({ limit: 2, cursor: first.nextCursor! });
    expect(second.bans.map((b) => b.value)).toEqual(['10.0.0.2', '10.0.0.1']);
    expect(bans.list({ limit: 10, siteId: 's1' }).bans).toHaveLength(3);
    expect(bans.list({ limit: 10, value: '.3' }).bans.map((b) => b.value)).toEqual(['10.0.0.3']);
    clock.advance(60_000);
    expect(bans.list({ limit: 10 }).total).toBe(0);
  });

  it('survives a restart through its snapshot, leaving out what expired meanwhile and what is malformed', () => {
    const { clock, bans } = store();
    bans.ban({ siteId: 's1', object: 'ip', value: '10.0.0.1', durationSeconds: 10, origin, threatStore: true });
    bans.ban({ siteId: 's1', object: 'ip', value: '10.0.0.2', durationSeconds: 1000, origin, threatStore: false });
    const saved = JSON.parse(JSON.stringify(bans.snapshot())) as { bans: unknown[] };
    saved.bans.push({ id: 42 }, null, 'junk');
    clock.advance(20_000);
    const restarted = new BanStore({ clock });
    restarted.load(saved);
    expect(restarted.list({ limit: 10 }).bans.map((b) => b.value)).toEqual(['10.0.0.2']);
    expect(restarted.threats()).toHaveLength(1);
    expect(restarted.activeThreats()).toBe(1);
    clock.advance(300_000);
    expect(restarted.activeThreats()).toBe(0);
    restarted.load('not a snapshot');
    restarted.load(null);
  });

  it('writes its snapshot as JSON in pieces, freeing the event loop between slices', async () => {
    const { bans } = store();
    for (let i = 0; i < 20_000; i++) {
      const value = `10.1.${i >> 8}.${i & 255}`;
      bans.ban({ siteId: 's1', object: 'ip', value, durationSeconds: 60, origin, threatStore: i % 2 === 0 });
    }
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    const pieces: string[] = [];
    try {
      for await (const piece of bans.snapshotPieces(0)) pieces.push(piece);
    } finally {
      clearInterval(counting);
    }
    expect(turns).toBeGreaterThan(5);
    expect(JSON.parse(pieces.join(''))).toEqual(bans.snapshot());

    const none = new BanStore({ clock: new ManualClock(1_700_000_000_000) });
    const empty: string[] = [];
    for await (const piece of none.snapshotPieces()) empty.push(piece);
    expect(JSON.parse(empty.join(''))).toEqual({ version: 1, bans: [], threats: [] });
  });

  it('a flood of bans is checked in constant time and swept when expired', () => {
    const { clock, bans } = store();
    for (let i = 0; i < 100_000; i++)
      bans.ban({
        siteId: 's1',
        object: 'ip',
        value: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
        durationSeconds: 60,
        origin,
        threatStore: true,
      });
    const started = performance.now();
    for (let i = 0; i < 100_000; i++) bans.isBanned('s1', `192.0.2.${i & 255}`, 'dev', clock.now(), true);
    expect(performance.now() - started).toBeLessThan(500);
    clock.advance(THREAT_STORE_SECONDS * 1000);
    expect(bans.sweep()).toBe(true);
    expect(bans.counts()).toEqual({ bans: 0, threats: 0 });
  });

  it('a sweep with a limit frees at most that many expired entries and goes on where it stopped', () => {
    const { clock, bans } = store();
    for (let i = 0; i < 10; i++)
      bans.ban({ siteId: 's1', object: 'ip', value: `10.0.0.${i}`, durationSeconds: 60, origin, threatStore: false });
    clock.advance(60_000);
    expect(bans.sweep(clock.now(), 4)).toBe(true);
    expect(bans.counts().bans).toBe(6);
    expect(bans.sweep(clock.now(), 4)).toBe(true);
    expect(bans.sweep(clock.now(), 4)).toBe(true);
    expect(bans.counts().bans).toBe(0);
    expect(bans.sweep(clock.now(), 4)).toBe(false);
  });

  it('a ban made again after its predecessor expired, before a sweep, is a new ban', () => {
    const { clock, bans } = store();
    const first = bans.ban({
      siteId: 's1',
      object: 'ip',
      value: '10.0.0.1',
      durationSeconds: 60,
      origin,
      threatStore: false,
    });
    clock.advance(60_000);
    const second = bans.ban({
      siteId: 's1',
      object: 'ip',
      value: '10.0.0.1',
      durationSeconds: 60,
      origin,
      threatStore: false,
    });
    expect(second.id).not.toBe(first.id);
    expect(bans.get(first.id)).toBeUndefined();
    expect(bans.isBanned('s1', '10.0.0.1', '', clock.now() + 59_999, false)).toBe(true);
    expect(bans.counts().bans).toBe(1);
  });
});
