import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogStore, type VolumeProbe } from '#engine/log-store';

const MB = 1024 * 1024;
const T0 = Date.UTC(2026, 0, 1);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-budget-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function storeBytes(): Promise<number> {
  const logs = join(dir, 'logs');
  let total = 0;
  for (const name of await readdir(logs)) total += (await stat(join(logs, name))).size;
  return total;
}

/** `seconds` seconds of records, ~`perSecond` bytes each second, alternating between two logs. Random text: LevelDB cannot compress it away. */
async function fill(store: LogStore, seconds: number, perSecond: number): Promise<void> {
  for (let s = 0; s < seconds; s++) {
    for (let i = 0; i < perSecond / 2048; i++) {
      store.append(i % 2 === 0 ? 'access:a' : 'detection:a', {
        _timestamp: T0 + s * 1000 + i,
        s,
        pad: randomBytes(1000).toString('hex'),
      });
    }
    await store.flush();
  }
}

const all = { from: 0, to: Number.MAX_SAFE_INTEGER };

describe('log store disk budget', () => {
  it('over an absolute cap, deletes the oldest records across logs and keeps the newest', async () => {
    const store = await LogStore.open(dir, undefined, {
      budget: { maxBytes: 4 * MB, minFreeRatio: 0, checkEveryMs: 3_600_000, checkAfterBytes: Number.MAX_SAFE_INTEGER },
    });
    await fill(store, 40, 256 * 1024); // ~10 MB
    const check = await store.checkBudget();
    expect(check?.removed.length).toBeGreaterThan(0);
    expect(check?.withinBudget).toBe(true);
    expect(await storeBytes()).toBeLessThanOrEqual(4 * MB);

    const access = await store.read('access:a', all);
    const detection = await store.read('detection:a', all);
    // The newest seconds survive in both logs; the oldest are gone from both.
    expect(access.at(-1)?.s).toBe(39);
    expect(detection.at(-1)?.s).toBe(39);
    expect(access[0]?.s).toBeGreaterThan(10);
    expect(detection[0]?.s).toBeGreaterThan(10);
    // What remains is a contiguous run of the newest seconds.
    const kept = new Set(access.map((r) => r.s));
    expect([...kept]).toEqual(Array.from({ length: kept.size }, (_, i) => 40 - kept.size + i));
    // A read of the deleted range returns nothing, without error.
    expect(await store.read('access:a', { from: T0, to: T0 + 5_000 })).toEqual([]);
    await store.close();
  });

  it('a store within its budget deletes nothing', async () => {
    const store = await LogStore.open(dir, undefined, {
      budget: { maxBytes: 64 * MB, minFreeRatio: 0, checkEveryMs: 3_600_000 },
    });
    await fill(store, 5, 64 * 1024);
    const check = await store.checkBudget();
    expect(check).toMatchObject({ removed: [], withinBudget: true });
    expect((await store.read('access:a', all))[0]?.s).toBe(0);
    await store.close();
  });

  it('keeps the volume 10 % free by default, deleting oldest first', async () => {
    // A 100 MB volume whose other files take 86 MB: the store may hold about 4 MB.
    const volume: VolumeProbe = async () => {
      const total = 100 * MB;
      return { totalBytes: total, freeBytes: total - 86 * MB - (await storeBytes()) };
    };
    const store = await LogStore.open(dir, undefined, {
      budget: { checkEveryMs: 3_600_000, checkAfterBytes: Number.MAX_SAFE_INTEGER },
      volume,
    });
    await fill(store, 30, 256 * 1024); // ~7.5 MB
    const check = await store.checkBudget();
    expect(check?.withinBudget).toBe(true);
    expect(check?.after.freeBytes).toBeGreaterThanOrEqual(10 * MB);
    const access = await store.read('access:a', all);
    expect(access.at(-1)?.s).toBe(29);
    expect(access[0]?.s).toBeGreaterThan(5);
    await store.close();
  });

  it('checks by itself after a burst of writes', async () => {
    const messages: string[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      error: () => undefined,
      warn: (_: object, msg?: string) => void messages.push(msg ?? ''),
    };
    const store = await LogStore.open(dir, undefined, {
      budget: { maxBytes: 2 * MB, minFreeRatio: 0, checkEveryMs: 3_600_000 },
      logger,
    });
    await fill(store, 24, 256 * 1024); // ~6 MB: a check follows every 512 KB written
    await store.close(); // waits for a check in flight
    expect(messages).toContain('log store over its disk budget: deleted the oldest records');
    const reopened = await LogStore.open(dir);
    const access = await reopened.read('access:a', all);
    expect(access[0]?.s).toBeGreaterThan(0);
    expect(access.at(-1)?.s).toBe(23);
    await reopened.close();
  });
});
