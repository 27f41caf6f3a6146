import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogStore, recordKey } from '#engine/log-store';
import { SearchService } from '#engine/search';
import { ManualClock } from '#engine/shared';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-logs-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('log store', () => {
  it('reads back one log in time order within a range, apart from other logs', async () => {
    const store = await LogStore.open(dir);
    for (const t of [50, 10, 30, 20, 40]) store.append('access', { _timestamp: t, n: t });
    store.append('detection', { _timestamp: 25, n: -1 });
    const records = await store.read('access', { from: 20, to: 50 });
    expect(records.map((r) => r.n)).toEqual([20, 30, 40]);
    expect((await store.read('detection', { from: 0, to: 100 })).map((r) => r.n)).toEqual([-1]);
    await store.close();
  });

  it("gives a log's oldest and newest second through appends older and newer, deletions and a purge", async () => {
    const store = await LogStore.open(dir);
    expect(await store.span('access')).toBeNull();
    store.append('access', { _timestamp: 50_500 });
    expect(await store.span('access')).toEqual({ oldest: 50_000, newest: 50_000 });
    store.append('access', { _timestamp: 90_000 });
    store.append('access', { _timestamp: 10_200 });
    expect(await store.span('access')).toEqual({ oldest: 10_000, newest: 90_000 });
    await store.deleteBefore('access', 60_000);
    expect(await store.span('access')).toEqual({ oldest: 90_000, newest: 90_000 });
    await store.purge('access');
    expect(await store.span('access')).toBeNull();
    store.append('access', { _timestamp: 5_000 });
    expect(await store.span('access')).toEqual({ oldest: 5_000, newest: 5_000 });
    await store.close();
  });

  it('keeps records with equal timestamps apart and persists them across a reopen', async () => {
    const store = await LogStore.open(dir);
    for (let i = 0; i < 2500; i++) store.append('access', { _timestamp: 1000, i });
    await store.close();
    const reopened = await LogStore.open(dir);
    const records = await reopened.read('access', { from: 0, to: 2000 });
    expect(records).toHaveLength(2500);
    expect(records.map((r) => r.i)).toEqual(Array.from({ length: 2500 }, (_, i) => i));
    expect(await reopened.read('access', { from: 0, to: 2000, limit: 10 })).toHaveLength(10);
    await reopened.close();
  });

  it('never overwrites a record written before a restart with the same timestamp', async () => {
    const first = await LogStore.open(dir);
    first.append('access', { _timestamp: 5, run: 1 });
    await first.close();
    const second = await LogStore.open(dir);
    second.append('access', { _timestamp: 5, run: 2 });
    expect((await second.read('access', { from: 0, to: 10 })).map((r) => r.run)).toEqual([1, 2]);
    await second.close();
  });

  it('keeps multi-byte text, records larger than a block and blocks that fill up, in order', async () => {
    const store = await LogStore.open(dir);
    const wide = '攻击检测 \u{1F6E1}\uFE0F ü'.repeat(40); // 3- and 4-byte UTF-8 sequences
    const huge = 'x'.repeat(200_000);
    for (let i = 0; i < 300; i++)
      store.append('access', { _timestamp: 2000 + (i % 3), i, text: i === 150 ? huge : wide });
    store.append('access', { _timestamp: 3500, i: 300, text: 'next second' });
    const records = await store.read('access', { from: 2000, to: 4000 });
    expect(records.map((r) => r.i)).toEqual([
      ...Array.from({ length: 300 }, (_, i) => i).sort((a, b) => (a % 3) - (b % 3) || a - b),
      300,
    ]);
    expect(records.find((r) => r.i === 150)?.text).toBe(huge);
    expect(records.filter((r) => r.text === wide)).toHaveLength(299);
    await store.close();
  });

  it('writes a steady stream in a few batches and loses nothing appended during a write', async () => {
    const store = await LogStore.open(dir);
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 500; i++) store.append('access', { _timestamp: 10_000 + round, round, i });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const records = await store.read('access', { from: 0, to: 20_000 });
    expect(records).toHaveLength(2500);
    expect(records.at(-1)).toMatchObject({ round: 4, i: 499 });
    await store.close();
  });
});

describe('blocks written before the current format', () => {
  it('are read and searched beside new ones (a JSON object per line, no header)', async () => {
    // An earlier version's blocks, put as that version wrote them.
    const db = new ClassicLevel<Buffer, string>(join(dir, 'logs'), { keyEncoding: 'buffer', valueEncoding: 'utf8' });
    await db.open();
    const old = [
      { _timestamp: 1_000, src_ip: '10.0.0.1', user_agent: 'curl/8.5.0' },
      { _timestamp: 1_400, src_ip: '10.0.0.2', user_agent: 'Mozilla/5.0' },
    ];
    await db.put(recordKey('access:a', 1_000, 7), old.map((r) => JSON.stringify(r)).join('\n'));
    await db.close();

    const store = await LogStore.open(dir);
    store.append('access:a', { _timestamp: 2_000, src_ip: '10.0.0.3', user_agent: 'curl/8.6.0' });
    expect(await store.read('access:a', { from: 0, to: 10_000 })).toEqual([
      ...old,
      { _timestamp: 2_000, src_ip: '10.0.0.3', user_agent: 'curl/8.6.0' },
    ]);
    const search = new SearchService({ store, clock: new ManualClock(10_000) });
    const found = await search.search({ log: 'access:a', range: { from: 0, to: 10_000 }, query: 'user_agent:*curl*' });
    expect(found.records.map((r) => r.record.src_ip)).toEqual(['10.0.0.3', '10.0.0.1']);
    await store.close();
  });
});

describe('meta values put with records', () => {
  it('are written in the batch of the records appended before them, and read back after a reopen', async () => {
    const store = await LogStore.open(dir);
    for (let i = 0; i < 3000; i++) store.append('custom:k', { _timestamp: 5_000 + i, offset: i });
    store.putMeta('kafka/k/t/0', '3000');
    expect(store.backlog().records).toBe(3000);
    expect(await store.getMeta('kafka/k/t/0')).toBe('3000');
    await store.flush();
    expect(store.backlog()).toEqual({ records: 0, bytes: 0 });
    await store.close();
    const reopened = await LogStore.open(dir);
    expect(await reopened.getMeta('kafka/k/t/0')).toBe('3000');
    expect(await reopened.getMeta('kafka/k/t/1')).toBeUndefined();
    expect(await reopened.read('custom:k', { from: 0, to: 100_000 })).toHaveLength(3000);
    await reopened.close();
  });

  it('are never written without the records before them: a process killed at any moment has both or neither', async () => {
    // A child appends numbered records and puts the count after each run of them, and is killed
    // mid-stream; whatever survived, the stored count is exactly the number of records stored.
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `
        const { LogStore } = await import('#engine/log-store');
        const store = await LogStore.open(${JSON.stringify(dir)});
        let n = 0;
        for (;;) {
          for (let i = 0; i < 500; i++) store.append('custom:k', { _timestamp: 10_000 + n, n: n++ });
          store.putMeta('count', String(n));
          if (n === 20_000) process.stdout.write('going\\n');
          await new Promise((r) => setImmediate(r));
        }
      `,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await new Promise((r) => setTimeout(r, 150));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const store = await LogStore.open(dir);
    const count = Number(await store.getMeta('count'));
    const records = await store.read('custom:k', { from: 0, to: Number.MAX_SAFE_INTEGER });
    expect(count).toBeGreaterThanOrEqual(20_000);
    expect(records).toHaveLength(count);
    expect(records.at(-1)?.n).toBe(count - 1);
    await store.close();
  });
});

describe('senders whose clocks differ by a second or two', () => {
  it('interleave into one block per second, not one block per switch, and read back in time order', async () => {
    const store = await LogStore.open(dir);
    for (let i = 0; i < 1000; i++) store.append('raw', { _timestamp: 10_000 + (i % 3) * 1000 + (i % 7), i });
    await store.flush();
    let blocks = 0;
    for await (const block of store.blocks('raw', { from: 0, to: 20_000, oldestFirst: true })) {
      expect(block.lines.length).toBeGreaterThan(100);
      blocks++;
    }
    expect(blocks).toBe(3);
    const records = await store.read('raw', { from: 0, to: 20_000 });
    expect(records).toHaveLength(1000);
    expect(records.map((r) => r._timestamp)).toEqual([...records.map((r) => r._timestamp)].sort((a, b) => a - b));
    await store.close();
  });
});
