/**
 * Value roll-ups (DESIGN 2d): the counts per value of the ranking fields over any range equal what
 * reading the records of that range finds, whether the buckets are open in memory, written, late,
 * or read back after a restart; ranges that start or end mid-minute included.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coverRange, LogStore, type LogRecord } from '#engine/log-store';
import { ManualClock } from '#engine/shared';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
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
async function expected(
  store: LogStore,
  from: number,
  to: number,
  log = 'access:s1',
): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  const add = (field: string, value: string) => {
    const values = (out[field] ??= {});
    values[value] = (values[value] ?? 0) + 1;
  };
  for await (const block of store.blocks(log, { from, to, oldestFirst: true })) {
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

async function actual(
  store: LogStore,
  from: number,
  to: number,
  log = 'access:s1',
): Promise<Record<string, Record<string, number>>> {
  const counts = await store.valueCounts(log, { from, to });
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

  it('count an hour still open when the process was killed, from its written minutes and the records after them', async () => {
    const minutes = 25;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'tests/fixtures/log-store/append-minutes-until-killed.ts', dir, String(T0), String(minutes)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (/^done \d+$/m.test(output)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the writer exited with ${code} before it was done`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const clock = new ManualClock(T0 + minutes * MINUTE);
    const store = await LogStore.open(dir, undefined, { clock });
    const written = Number(/^done (\d+)$/m.exec(output)![1]);
    const hour = await expected(store, T0, T0 + HOUR);
    expect(Object.values(hour.hostname ?? {}).reduce((a, b) => a + b, 0)).toBe(written);
    // The whole hour is read from its (recovered) hour bucket; its minutes from theirs.
    expect(await actual(store, T0, T0 + HOUR)).toEqual(hour);
    expect(await actual(store, T0 + 10 * MINUTE, T0 + 24 * MINUTE)).toEqual(
      await expected(store, T0 + 10 * MINUTE, T0 + 24 * MINUTE),
    );
    await store.close();
  }, 60_000);

  it('count days from their hours, whether the days passed live, were loaded in bulk or were cut by a restart', async () => {
    const clock = new ManualClock(T0);
    let store = await LogStore.open(dir, undefined, { clock });
    const next = random(11);
    // Live: a record every ~3 min over three days and a half, the clock following.
    let i = 0;
    for (let t = T0; t < T0 + 3 * DAY + 12 * HOUR; t += 60_000 + Math.floor(next() * 240_000)) {
      clock.set(t);
      store.append('access:s1', access(i++, t, next));
      if (i % 50 === 0) await store.flush();
      // A restart in the middle of the second day.
      if (i === 700) {
        await store.close();
        store = await LogStore.open(dir, undefined, { clock });
      }
    }
    await store.flush();
    // Bulk: another site's three days loaded at once, long after they happened.
    clock.set(T0 + 10 * DAY);
    for (let t = T0; t < T0 + 3 * DAY; t += 30_000 + Math.floor(next() * 60_000)) {
      store.append('access:s2', { ...access(i++, t, next), site_id: 's2' });
      if (i % 500 === 0) await store.flush();
    }
    await store.flush();
    const ranges: [number, number][] = [
      [T0 + 17_345, T0 + 3 * DAY + 2 * HOUR + 7_777],
      [T0 - 14 * HOUR, T0 + 2 * DAY - 14 * HOUR + 1],
      [T0 + 3 * DAY - 10 * HOUR, T0 + 10 * DAY],
      [T0 + DAY + 59 * MINUTE + 30_000, T0 + DAY + HOUR + 30_000],
    ];
    const check = async (): Promise<void> => {
      for (const log of ['access:s1', 'access:s2'])
        for (const [from, to] of ranges) {
          const want = await expected(store, from, to, log);
          expect(await actual(store, from, to, log)).toEqual(want);
          const distinct = await store.distinctValues(log, { from, to }, 'src_ip');
          expect(distinct.sketch).toBeNull();
          expect([...distinct.values].sort()).toEqual(Object.keys(want.src_ip ?? {}).sort());
          // The per-dimension roll-ups cover the same ranges: their sum is the number of records.
          let rolled = 0;
          const span = (await store.span(log))!;
          const cover = coverRange(Math.max(from, span.oldest), to);
          for (const part of cover.whole)
            for await (const bucket of store.rollups(log, part, part.granularity))
              if (bucket.at >= part.from && bucket.at < part.to)
                for (const n of Object.values(bucket.counts)) rolled += n;
          for (const [a, b] of cover.edges) rolled += (await store.read(log, { from: a, to: b })).length;
          expect(rolled).toBe((await store.read(log, { from, to })).length);
        }
    };
    await check();
    await store.close();
    store = await LogStore.open(dir, undefined, { clock });
    await check();
    await store.close();
  });

  it('are derived again when a store written before hour and day roll-ups is opened', async () => {
    const clock = new ManualClock(T0 + 5 * DAY);
    let store = await LogStore.open(dir, undefined, { clock });
    const next = random(5);
    let i = 0;
    for (let t = T0; t < T0 + 2 * DAY + 3 * HOUR; t += 60_000 + Math.floor(next() * 120_000)) {
      store.append('access:s1', access(i++, t, next));
      store.append('detection:s1', {
        _timestamp: t,
        src_ip: '10.9.9.9',
        referrer: `https://shop.example.com/p/${i % 9}`,
      });
    }
    await store.close();
    // What the previous release left: minute roll-ups only, value roll-ups in its own layout.
    const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'logs'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const spaces = { rollups: Buffer.from([0xfe, 0x72]), values: Buffer.from([0xfe, 0x76]) };
    for await (const key of db.keys({ gte: spaces.rollups, lt: Buffer.from([0xfe, 0x73]) })) {
      // The byte after `<log>\0` is a time's first byte (0) for a minute, `h` or `d` otherwise.
      const at = key.indexOf(0, 2) + 1;
      if (key[at] !== 0) await db.del(key);
    }
    await db.clear({ gte: spaces.values, lt: Buffer.from([0xfe, 0x77]) });
    const oldValueKey = Buffer.concat([spaces.values, Buffer.from('access:s1\0m'), Buffer.alloc(14)]);
    await db.put(oldValueKey, Buffer.from('{"src_ip":{"10.0.0.1":99}}'));
    await db.del(Buffer.concat([Buffer.from([0xff, 0x6d]), Buffer.from('rollups-format')]));
    await db.close();

    store = await LogStore.open(dir, undefined, { clock });
    const ranges: [number, number][] = [
      [T0 - HOUR, T0 + 3 * DAY],
      [T0 + 17_345, T0 + 2 * DAY + HOUR + 7_777],
    ];
    for (const [from, to] of ranges) {
      expect(await actual(store, from, to)).toEqual(await expected(store, from, to));
      let rolled = 0;
      for (const part of coverRange(T0, T0 + 3 * DAY).whole)
        for await (const bucket of store.rollups('access:s1', part, part.granularity))
          if (bucket.at >= part.from && bucket.at < part.to) for (const n of Object.values(bucket.counts)) rolled += n;
      expect(rolled).toBe(i);
    }
    const detection = await store.valueCounts('detection:s1', { from: T0, to: T0 + 3 * DAY }, ['referrer_path']);
    expect([...detection.fields.get('referrer_path')!.values()].reduce((a, b) => a + b, 0)).toBe(i);
    await store.close();
  });

  it('say which fields overflowed a bucket instead of claiming exact counts', async () => {
    const clock = new ManualClock(T0);
    const store = await LogStore.open(dir, undefined, { clock });
    for (let n = 0; n < 1_200; n++)
      store.append('access:s1', {
        _timestamp: T0 + n,
        src_ip: `10.1.${n >> 8}.${n & 255}`,
        request: 'GET / HTTP/1.1',
      });
    const counts = await store.valueCounts('access:s1', { from: T0, to: T0 + MINUTE });
    expect(counts.approximate).toEqual(['src_ip']);
    expect(counts.fields.get('src_ip')!.size).toBe(1_000);
    expect(counts.fields.get('path')!.get('/')).toBe(1_200);
    // The distinct count comes from the sketch of all addresses (1.6 % standard error).
    const distinct = await store.distinctValues('access:s1', { from: T0, to: T0 + MINUTE }, 'src_ip');
    const sketch = distinct.sketch!;
    for (const value of distinct.values) sketch.add(value);
    expect(Math.abs(sketch.estimate() - 1_200)).toBeLessThan(60);
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
