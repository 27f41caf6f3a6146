/**
 * Log-store append throughput against raw LevelDB (classic-level) writing the same records in
 * batches of the same size, in one run, so the overhead of our key layout and batching shows as a
 * ratio.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { LogStore, recordKey } from '#engine/log-store';

const RECORDS = 200_000;
const base = Date.UTC(2026, 0, 1);
const record = (i: number) => ({
  _timestamp: base + i,
  src_ip: `10.0.${(i >> 8) & 255}.${i & 255}`,
  hostname: 'shop.example.com',
  status: 200,
  guard_status: 'PASS',
  url: `/products/${i % 500}?page=${i % 7}`,
});

async function ours(): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'rampart-bench-'));
  const store = await LogStore.open(dir);
  const start = performance.now();
  for (let i = 0; i < RECORDS; i++) store.append('access', record(i));
  await store.flush();
  const seconds = (performance.now() - start) / 1000;
  await store.close();
  await rm(dir, { recursive: true, force: true });
  return RECORDS / seconds;
}

async function raw(): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'rampart-bench-raw-'));
  const db = new ClassicLevel<Buffer, string>(dir, { keyEncoding: 'buffer', valueEncoding: 'utf8' });
  await db.open();
  const start = performance.now();
  for (let i = 0; i < RECORDS; i += 1000) {
    const batch = [];
    for (let j = i; j < i + 1000; j++)
      batch.push({ type: 'put' as const, key: recordKey('access', base + j, j), value: JSON.stringify(record(j)) });
    await db.batch(batch);
  }
  const seconds = (performance.now() - start) / 1000;
  await db.close();
  await rm(dir, { recursive: true, force: true });
  return RECORDS / seconds;
}

const rawRate = await raw();
const ourRate = await ours();
console.log(`leveldb_raw_batch_append: ${Math.round(rawRate)} records/s`);
console.log(`log_store_append: ${Math.round(ourRate)} records/s`);
console.log(`log_store_vs_raw_ratio: ${(ourRate / rawRate).toFixed(2)}`);
