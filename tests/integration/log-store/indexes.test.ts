/**
 * The store's index entries and per-minute roll-ups are written with the records they describe,
 * find exactly the records a scan finds, and go with them on retention; a killed engine loses no
 * acknowledged write; a store that will not open says why and what to do.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClassicLevel } from 'classic-level';
import { LogStore, parseDimsKey, recordKey, type LogRecord } from '#engine/log-store';
import { indexKey } from '../../../engine/log-store/keys.ts';
import { encodeRows } from '../../../engine/log-store/rows.ts';
import { ManualClock } from '#engine/shared';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 10, 1, 10, 0, 0);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-logs-index-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A varied access record: i decides its fields, so a test can say which ones hold a value. */
function record(i: number, time: number): LogRecord {
  return {
    _timestamp: time,
    i,
    src_ip: `10.0.0.${i % 7}`,
    hostname: i % 2 ? 'shop.example.com' : 'api.example.com',
    guard_status: i % 5 === 0 ? 'OWASP' : 'PASS',
    status: i % 5 === 0 ? 403 : 200,
    client_bot_type: i % 3 === 0 ? 'selenium' : '',
    waf_triggered_rules: i % 5 === 0 ? `942100,${949110 + (i % 2)}` : '',
    waf_triggered_categories: i % 5 === 0 ? 'sqli' : '',
  };
}

/** Every record of a log (from the blocks), with the position the index names it by. */
async function scanAll(store: LogStore, log: string, from: number, to: number) {
  const out: { second: number; seq: number; row: number; record: LogRecord }[] = [];
  for await (const block of store.blocks(log, { from, to, oldestFirst: true })) {
    block.lines.forEach((_, row) =>
      out.push({ second: block.second, seq: block.seq, row, record: block.record(row) as LogRecord }),
    );
  }
  return out;
}

async function indexed(store: LogStore, log: string, field: string, value: string, from: number, to: number) {
  const found: { second: number; seq: number; row: number }[] = [];
  for await (const entry of store.indexed(log, field, value, { from, to })) {
    for (const row of entry.rows) found.push({ second: entry.second, seq: entry.seq, row });
  }
  return found;
}

const key = (p: { second: number; seq: number; row: number }): string => `${p.second}/${p.seq}/${p.row}`;

describe('the log store index', () => {
  it('finds exactly the records holding a value, across hours, newest first, list fields item by item', async () => {
    const store = await LogStore.open(dir);
    // 3,000 records over 3 hours (several blocks per second, several seconds per hour).
    for (let i = 0; i < 3000; i++) store.append('access:s1', record(i, T0 + i * 3_600));
    store.append('access:s2', record(0, T0));
    const all = await scanAll(store, 'access:s1', T0, T0 + 3 * HOUR);
    expect(all).toHaveLength(3000);
    const cases: [string, string, (r: LogRecord) => boolean][] = [
      ['src_ip', '10.0.0.3', (r) => r.src_ip === '10.0.0.3'],
      ['status', '403', (r) => r.status === 403],
      ['guard_status', 'PASS', (r) => r.guard_status === 'PASS'],
      ['client_bot_type', 'selenium', (r) => r.client_bot_type === 'selenium'],
      ['waf_triggered_rules', '942100', (r) => String(r.waf_triggered_rules).split(',').includes('942100')],
      ['waf_triggered_rules', '949111', (r) => String(r.waf_triggered_rules).split(',').includes('949111')],
      ['hostname', 'nowhere.example.com', () => false],
    ];
    for (const [field, value, holds] of cases) {
      const from = T0 + HOUR / 2;
      const to = T0 + 2.5 * HOUR;
      const expected = all.filter((p) => p.record._timestamp >= Math.floor(from / 1000) * 1000 && p.second < to);
      const want = expected.filter((p) => holds(p.record)).map(key);
      const got = await indexed(store, 'access:s1', field, value, from, to);
      expect(new Set(got.map(key)), `${field}=${value}`).toEqual(new Set(want));
      expect(got.length, `${field}=${value} has no repeats`).toBe(want.length);
      // Newest first: block positions never increase.
      for (let n = 1; n < got.length; n++) expect(got[n]!.second).toBeLessThanOrEqual(got[n - 1]!.second);
    }
    await store.close();
  });

  it('finds records through entries gathered over several writes, late seconds, a reopen and an entry of the per-block format', async () => {
    const gatherMs = 40;
    const pause = () => new Promise((r) => setTimeout(r, gatherMs + 10));
    let store = await LogStore.open(dir, undefined, { indexGatherMs: gatherMs });
    const log = 'access:s1';
    let i = 0;
    // Three gathering windows; the last brings blocks of seconds older than the first's (a sender
    // whose clock is behind), in the same slots, and stays gathering while it is read.
    for (const seconds of [
      [20, 21, 22],
      [23, 40, 41],
      [5, 21, 39],
    ]) {
      for (const s of seconds) for (let n = 0; n < 30; n++) store.append(log, record(i++, T0 + s * 1000 + n));
      await store.flush();
      await pause();
    }
    store.append(log, record(i++, T0 + 21_500));
    const check = async (s: LogStore, label: string) => {
      const all = await scanAll(s, log, T0, T0 + HOUR);
      expect(all).toHaveLength(i);
      for (const [field, value, holds] of [
        ['src_ip', '10.0.0.3', (r: LogRecord) => r.src_ip === '10.0.0.3'],
        ['status', '200', (r: LogRecord) => r.status === 200],
      ] as const) {
        for (const [from, to] of [
          [T0, T0 + HOUR],
          [T0 + 21_000, T0 + 23_000],
          [T0 + 39_000, T0 + 40_000],
        ] as const) {
          const want = all.filter((p) => p.second >= from && p.second < to && holds(p.record)).map(key);
          const got = await indexed(s, log, field, value, from, to);
          expect(new Set(got.map(key)), `${label}: ${field}=${value} in ${from - T0}..${to - T0}`).toEqual(
            new Set(want),
          );
          expect(got.length, `${label}: no repeats`).toBe(want.length);
          for (let n = 1; n < got.length; n++) {
            const newer = got[n - 1]!;
            const older = got[n]!;
            expect(
              older.second < newer.second || (older.second === newer.second && older.seq <= newer.seq),
              label,
            ).toBe(true);
          }
        }
      }
    };
    await check(store, 'while gathering');
    await store.close();
    store = await LogStore.open(dir, undefined, { indexGatherMs: gatherMs });
    await check(store, 'after a reopen');
    await store.close();
    // A block and its entry as stores before postings wrote them: one entry per block, no mark.
    const db = new ClassicLevel<Buffer, Buffer>(join(dir, 'logs'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.open();
    const old = { ...record(3, T0 + 21_000), i: 'old' };
    await db.put(recordKey(log, T0 + 21_000, 0x00000007), Buffer.from(JSON.stringify(old)));
    await db.put(indexKey(log, 'src_ip', Buffer.from('10.0.0.3'), T0 + 21_000, 0x00000007), encodeRows([0]));
    await db.put(indexKey(log, 'status', Buffer.from('200'), T0 + 21_000, 0x00000007), encodeRows([0]));
    await db.close();
    i++;
    store = await LogStore.open(dir, undefined, { indexGatherMs: gatherMs });
    await check(store, 'beside a per-block entry');
    await store.close();
  });

  it('counts every record once per minute in the roll-ups, by site, guard status, bot type, status class and attack group', async () => {
    const store = await LogStore.open(dir);
    for (let i = 0; i < 1200; i++) store.append('access:s1', record(i, T0 + i * 100)); // two minutes
    await store.flush();
    for (let i = 1200; i < 1500; i++) store.append('access:s1', record(i, T0 + i * 100)); // a third minute, later flushes
    const minutes = new Map<number, Record<string, number>>();
    for await (const m of store.rollups('access:s1', { from: T0, to: T0 + 10 * 60_000 })) {
      const merged = minutes.get(m.at) ?? {};
      for (const [dims, n] of Object.entries(m.counts)) merged[dims] = (merged[dims] ?? 0) + n;
      minutes.set(m.at, merged);
    }
    expect([...minutes.keys()]).toEqual([T0, T0 + 60_000, T0 + 120_000]);
    const total = [...minutes.values()].flatMap((c) => Object.values(c)).reduce((a, b) => a + b, 0);
    expect(total).toBe(1500);
    const first = minutes.get(T0) ?? {};
    const blocked = Object.entries(first)
      .filter(([dims]) => parseDimsKey(dims).guard_status === 'OWASP')
      .reduce((n, [dims, count]) => {
        expect(parseDimsKey(dims)).toMatchObject({ site: 's1', status_class: '4xx', attack_group: 'sqli' });
        return n + count;
      }, 0);
    expect(blocked).toBe(120); // i % 5 === 0 among the first 600
    await store.close();
  });
});

describe('retention', () => {
  it('deletes expired records with their index entries and roll-ups, and nothing else', async () => {
    const clock = new ManualClock(T0);
    const store = await LogStore.open(dir, undefined, {
      clock,
      retention: { days: () => ({ access: 30, detection: 7 }) },
    });
    const old = T0 - 40 * DAY;
    const recent = T0 - 10 * DAY;
    for (let i = 0; i < 300; i++) {
      store.append('access:s1', record(i, old + i * 1000));
      store.append('access:s1', record(i, recent + i * 1000));
      store.append('detection:s1', record(i, recent + i * 1000));
    }
    await store.flush();
    const cut = await store.applyRetention();
    expect(cut.map((c) => c.log).sort()).toEqual(['access:s1', 'detection:s1']);

    const left = await scanAll(store, 'access:s1', 0, T0);
    expect(left).toHaveLength(300);
    expect(left.every((p) => p.record._timestamp >= recent)).toBe(true);
    expect(await scanAll(store, 'detection:s1', 0, T0)).toHaveLength(0);

    const expiredIndex = await indexed(store, 'access:s1', 'src_ip', '10.0.0.1', old - HOUR, old + HOUR);
    expect(expiredIndex).toEqual([]);
    const keptIndex = await indexed(store, 'access:s1', 'src_ip', '10.0.0.1', recent - HOUR, recent + HOUR);
    expect(keptIndex.length).toBe(left.filter((p) => p.record.src_ip === '10.0.0.1').length);

    const rollupMinutes: number[] = [];
    for await (const m of store.rollups('access:s1', { from: 0, to: T0 })) rollupMinutes.push(m.at);
    expect(rollupMinutes.length).toBeGreaterThan(0);
    expect(rollupMinutes.every((m) => m >= recent - 60_000)).toBe(true);
    expect((await store.logs()).map((l) => l.log)).toEqual(['access:s1']);

    // A month later still, the rest goes too.
    clock.advance(25 * DAY);
    await store.applyRetention();
    expect(await scanAll(store, 'access:s1', 0, T0 + 30 * DAY)).toHaveLength(0);
    await store.close();
  });
});

describe('durability and opening', () => {
  it('loses no acknowledged write when the process is killed with SIGKILL', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/fixtures/log-store/append-until-killed.ts', dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let acked = 0;
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) {
          const m = /^ack (\d+)$/.exec(line);
          if (m) acked = Math.max(acked, Number(m[1]));
        }
        if (acked >= 5_000) resolve();
      });
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    const store = await LogStore.open(dir);
    const records = await scanAll(store, 'access:s1', 0, Date.now() + 1000);
    const ns = new Set(records.map((r) => r.record.n as number));
    for (let n = 0; n < acked; n++) if (!ns.has(n)) expect.fail(`acknowledged record ${n} of ${acked} is lost`);
    let viaIndex = 0;
    for (let i = 0; i < 9; i++)
      viaIndex += (await indexed(store, 'access:s1', 'src_ip', `10.1.1.${i}`, 0, Date.now() + 1000)).length;
    expect(viaIndex).toBe(records.length);
    // The value roll-ups that were open at the kill are counted again from the records.
    const values = await store.valueCounts('access:s1', { from: 0, to: Date.now() + 1000 });
    let viaValues = 0;
    for (const n of values.fields.get('src_ip')?.values() ?? []) viaValues += n;
    expect(viaValues).toBe(records.length);
    await store.close();
  }, 60_000);

  it('says when its files are damaged, and how to recover, without touching them', async () => {
    const store = await LogStore.open(dir);
    store.append('access:s1', record(1, T0));
    await store.close();
    const current = join(dir, 'logs', 'CURRENT');
    await writeFile(current, 'MANIFEST-999999\n');
    await expect(LogStore.open(dir)).rejects.toThrow(/cannot be opened .*move the folder aside/);
    // Nothing was deleted or rewritten: the operator still has the files to recover from.
    expect(await readFile(current, 'utf8')).toBe('MANIFEST-999999\n');
  });

  it('says when another process holds the store, and what to do', async () => {
    const first = await LogStore.open(dir);
    await expect(LogStore.open(dir)).rejects.toThrow(/in use by another process .*stop the other Rampart engine/);
    await first.close();
  });
});

describe('fields a log is indexed on besides the standard ones (a configuration’s key fields)', () => {
  it('are offered to searches only once their entries cover the whole log', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rampart-extra-'));
    let extra: string[] = [];
    const store = await LogStore.open(dir, undefined, { extraIndexedFields: () => extra });
    store.append('custom:a', { _timestamp: 1_000, user: 'bob' });
    await store.flush();
    // the key field is added after records were stored: its index misses them, so no search uses it
    extra = ['user'];
    store.append('custom:a', { _timestamp: 2_000, user: 'bob' });
    store.append('custom:b', { _timestamp: 2_000, user: 'eve' });
    await store.flush();
    expect((await store.indexedFields('custom:a')).has('user')).toBe(false);
    expect((await store.indexedFields('custom:b')).has('user')).toBe(true);
    expect((await store.indexedFields('custom:b')).has('src_ip')).toBe(true);
    // once the records from before are gone, the index is whole
    await store.deleteBefore('custom:a', 2_000);
    expect((await store.indexedFields('custom:a')).has('user')).toBe(true);
    await store.close();
    // and it is remembered across a restart
    const reopened = await LogStore.open(dir, undefined, { extraIndexedFields: () => extra });
    expect((await reopened.indexedFields('custom:b')).has('user')).toBe(true);
    await reopened.close();
    await rm(dir, { recursive: true, force: true });
  });
});
