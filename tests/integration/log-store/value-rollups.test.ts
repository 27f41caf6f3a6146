/**
 * Value roll-ups (DESIGN 2d): the counts per value of the ranking fields over any range equal what
 * reading the records of that range finds, whether the buckets are open in memory, written, late,
 * or read back after a restart; ranges that start or end mid-minute included.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogStore, type LogRecord } from '#engine/log-store';
import { ManualClock } from '#engine/shared';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.UTC(2026, 10, 1, 10, 0, 0);
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-values-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A small deterministic generator. */
function random(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (x * 1_103_515_245 + 12_345) >>> 0;
    return x / 2 ** 32;
  };
}

function access(i: number, time: number, next: () => number): LogRecord {
  const attack = next() < 0.2;
  return {
    _timestamp: time,
    site_id: 's1',
    src_ip: `10.0.${Math.floor(next() * 4)}.${Math.floor(next() * 30)}`,
    hostname: next() < 0.7 ? 'shop.example.com' : 'api.example.com',
    request: `GET /p/${Math.floor(next() * 12)}?q=${i} HTTP/1.1`,
    guard_status: attack ? 'OWASP' : 'PASS',
  };
}

/** What reading the records finds: records per value of each ranking field in [from, to). */
async function expected(store: LogStore, from: number, to: number): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  const add = (field: string, value: string) => {
    const values = (out[field] ??= {});
    values[value] = (values[value] ?? 0) + 1;
  };
  for await (const block of store.blocks('access:s1', { from, to, oldestFirst: true })) {
    for (let row = 0; row < block.lines.length; row++) {
      const r = block.record(row)!;
      const t = r._timestamp as number;
      if (t < from || t >= to) continue;
      add('src_ip', r.src_ip as string);
      add('hostname', r.hostname as string);
      add('path', (r.request as string).split(' ')[1]!.split('?')[0]!);
      if (r.guard_status === 'OWASP') {
        add('attack_src_ip', r.src_ip as string);
        add('attack_hostname', r.hostname as string);
      }
    }
  }
  return out;
}

async function actual(store: LogStore, from: number, to: number): Promise<Record<string, Record<string, number>>> {
  const counts = await store.valueCounts('access:s1', { from, to });
  expect(counts.approximate).toEqual([]);
  return Object.fromEntries([...counts.fields].map(([field, values]) => [field, Object.fromEntries(values)]));
}

describe('value roll-ups', () => {
  it('count exactly what the records hold, over ranges with edges mid-minute, open, written and after a restart', async () => {
    const clock = new ManualClock(T0);
    let store = await LogStore.open(dir, undefined, { clock });
    const next = random(7);
    // Three hours of traffic, a record every ~2 s, written as time goes by (buckets close behind).
    let i = 0;
    for (let t = T0; t < T0 + 3 * HOUR; t += 1000 + Math.floor(next() * 2000)) {
      clock.set(t);
      store.append('access:s1', access(i++, t, next));
      if (i % 200 === 0) await store.flush();
    }
    await store.flush();
    const ranges: [number, number][] = [
      [T0, T0 + 3 * HOUR],
      [T0 + 17_345, T0 + 2 * HOUR + 41 * MINUTE + 7_777],
      [T0 + HOUR + 5 * MINUTE + 1, T0 + HOUR + 5 * MINUTE + 59_000],
      [T0 + 59 * MINUTE + 30_000, T0 + HOUR + 30_000],
      [T0 + 2 * HOUR + 50 * MINUTE, T0 + 4 * HOUR],
    ];
    for (const [from, to] of ranges) expect(await actual(store, from, to)).toEqual(await expected(store, from, to));

    // A late record (its minute and hour were written long ago) counts too.
    store.append('access:s1', access(i, T0 + 10 * MINUTE + 500, next));
    await store.flush();
    expect(await actual(store, T0, T0 + HOUR)).toEqual(await expected(store, T0, T0 + HOUR));

    await store.close();
    store = await LogStore.open(dir, undefined, { clock });
    for (const [from, to] of ranges) expect(await actual(store, from, to)).toEqual(await expected(store, from, to));
    await store.close();
  });

  it('say which fields overflowed a bucket instead of claiming exact counts', async () => {
    const clock = new ManualClock(T0);
    const store = await LogStore.open(dir, undefined, { clock });
    for (let n = 0; n < 1_200; n++)
      store.append('access:s1', {
        _timestamp: T0 + 1_000 + n,
        src_ip: `10.1.${n >> 8}.${n & 255}`,
        request: 'GET / HTTP/1.1',
      });
    const counts = await store.valueCounts('access:s1', { from: T0, to: T0 + MINUTE });
    expect(counts.approximate).toEqual(['src_ip']);
    expect(counts.fields.get('src_ip')!.size).toBe(1_000);
    expect(counts.fields.get('path')!.get('/')).toBe(1_200);
    await store.close();
  });

  it('are kept for access and detection logs only', async () => {
    const store = await LogStore.open(dir);
    store.append('custom:c1', { _timestamp: T0, src_ip: '10.0.0.1', request: 'GET / HTTP/1.1' });
    store.append('detection:s1', { _timestamp: T0, src_ip: '10.0.0.1', referrer: 'https://shop.example.com/cart?x=1' });
    expect((await store.valueCounts('custom:c1', { from: T0 - HOUR, to: T0 + HOUR })).fields.size).toBe(0);
    const detection = await store.valueCounts('detection:s1', { from: T0 - HOUR, to: T0 + HOUR });
    expect(Object.fromEntries(detection.fields.get('referrer_path')!)).toEqual({ '/cart': 1 });
    await store.close();
  });
});
