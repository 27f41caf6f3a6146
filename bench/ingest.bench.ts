/**
 * Log ingestion (issue 14), in one run:
 *
 *   ingest_tls_records_per_s        TLS senders on loopback (their own processes, a configuration's
 *                                   client certificate each) -> the TLS intake -> parse (one plain_text
 *                                   configuration with regex areas, one json configuration) -> the
 *                                   configuration's log with its indexes and roll-ups (the raw log
 *                                   reads a parsed line from there; only failed lines are its own);
 *                                   sustained for RAMPART_BENCH_INGEST_SECONDS (default 60)
 *   ingest_tls_plain_text_records_per_s / ingest_tls_json_records_per_s   the same, per template
 *   ingest_raw_level_records_per_s  the same records put with classic-level alone (batches of 1,000)
 *   ingest_peak_rss_mb              the process's peak resident memory while the senders outrun the
 *                                   store (reading pauses on the store's backlog)
 *   ingest_kafka_records_per_s      a real Apache Kafka 4.1.0 broker on loopback (../shared/kafka, or
 *                                   RAMPART_KAFKA_SCRIPTS) holding RAMPART_BENCH_KAFKA_MESSAGES (default
 *                                   1,000,000) json messages in 3 partitions -> the Kafka intake -> parse
 *                                   -> the configuration's log, each partition's offset
 *                                   stored with its records and committed to Kafka after them
 *
 * Runs with the engine's Node flags (bench/run.mjs), as the engine process does.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { ConfigStore } from '#engine/config-store';
import { LogStore, recordKey } from '#engine/log-store';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { KafkaIntake } from '#engine/intake';
import {
  Intakes,
  LogConfigsService,
  LogIngest,
  customLogName,
  parseConfigOf,
  failedRawRecord,
  RAW_LOG,
} from '#engine/log-configs';
import { freePort } from '../tests/support/engine.ts';
import { kafkaMissing, startKafkaBroker } from '../tests/support/kafka-broker.ts';
import { systemClock, type LogConfigInput } from '#engine/shared';
import { line } from './support.ts';

const SECONDS = Number(process.env.RAMPART_BENCH_INGEST_SECONDS ?? 60);
const LINES = 20_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const plainText: LogConfigInput = {
  name: 'sshd over TLS',
  method: 'tcp',
  broker: null,
  templateType: 'plain_text',
  time: { mode: 'extract', format: { custom: 'MMM DD hh:mm:ss' }, field: '^(\\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d)' },
  timezone: 'UTC',
  fields: [
    {
      kind: 'regex',
      name: 'host',
      type: 'string',
      regex: '^\\w{3} [ \\d]\\d [\\d:]{8} (\\S+)',
      group: 1,
      required: true,
    },
    {
      kind: 'regex',
      name: 'src_ip',
      type: 'string',
      regex: 'from (\\d+\\.\\d+\\.\\d+\\.\\d+)',
      group: 1,
      required: true,
    },
    { kind: 'regex', name: 'user', type: 'string', regex: 'user=(\\w+)', group: 1, required: false },
    { kind: 'regex', name: 'port', type: 'integer', regex: 'port (\\d+)', group: 1, required: false },
  ],
  keyFields: { ip: 'src_ip', user: 'user' },
  intelligence: false,
  sampleData: '',
};

const json: LogConfigInput = {
  name: 'app events over TLS',
  method: 'tcp',
  broker: null,
  templateType: 'json',
  time: { mode: 'extract', format: 'YYYY-MM-DD hh:mm:ss', field: 'timestamp' },
  timezone: 'UTC',
  fields: [
    { kind: 'json', name: 'host', source: 'host', type: 'string', required: true },
    { kind: 'json', name: 'src_ip', source: 'client.ip', type: 'string', required: true },
    { kind: 'json', name: 'user', source: 'user', type: 'string', required: false },
    { kind: 'json', name: 'status', source: 'status', type: 'integer', required: false },
    { kind: 'json', name: 'duration', source: 'duration', type: 'float', required: false },
    { kind: 'json', name: 'message', source: 'message', type: 'string', required: false },
  ],
  keyFields: { ip: 'src_ip', user: 'user' },
  intelligence: false,
  sampleData: '',
};

const pad = (n: number): string => String(n).padStart(2, '0');

function plainLine(i: number, now: Date): string {
  const t = new Date(now.getTime() - (LINES - i) * 10);
  const day = String(t.getUTCDate()).padStart(2, ' ');
  return `${MONTHS[t.getUTCMonth()]} ${day} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())} web-${i % 7} info auth [${1000 + (i % 50)}]: Failed password for user=u${i % 300} from 10.${(i >> 8) & 255}.${i & 255}.${i % 97} port ${20000 + (i % 40000)} ssh2`;
}

/** A json line of time `now - (LINES - i) * spacingMs` (with spacing 0, `now`). */
function jsonLine(i: number, now: Date, spacingMs = 10): string {
  const t = new Date(now.getTime() - (LINES - i) * spacingMs);
  const stamp = `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
  return JSON.stringify({
    timestamp: stamp,
    host: `app-${i % 5}`,
    severity: 'info',
    facility: 'local0',
    'app-name': 'checkout',
    procid: String(3000 + (i % 20)),
    client: { ip: `192.168.${(i >> 8) & 255}.${i & 255}` },
    user: `c${i % 500}`,
    status: i % 17 === 0 ? 500 : 200,
    duration: (i % 1000) / 1000,
    message: `order ${i} placed`,
  });
}

const work = await mkdtemp(join(tmpdir(), 'rampart-bench-ingest-'));
const configStore = await ConfigStore.open(join(work, 'config'), systemClock);
const configs = new LogConfigsService({ store: configStore.slice(['logConfigs']), clock: systemClock });
const store = await LogStore.open(join(work, 'data'), undefined, {
  extraIndexedFields: (log) => configs.keyFieldsOfLog(log),
});
const ingest = new LogIngest({ store, configs, clock: systemClock });
const plainConfig = await configs.create(plainText);
const jsonConfig = await configs.create(json);
// Port 0 would turn the intake off: ask for a free one.
const port = await freePort();
const intakes = new Intakes({
  configs,
  ingest,
  store: configStore.slice(['intake']),
  logStore: store,
  clock: systemClock,
  tcp: { host: '127.0.0.1', port },
  advertisedHost: () => '127.0.0.1',
});
await intakes.start();

const now = new Date();
const files: Record<string, { lines: string; cert: string; key: string }> = {};
for (const [config, make] of [
  [plainConfig, plainLine],
  [jsonConfig, jsonLine],
] as const) {
  const base = join(work, config.id);
  await writeFile(`${base}.lines`, Array.from({ length: LINES }, (_, i) => make(i, now)).join('\n'));
  await writeFile(`${base}.cert`, config.certificate!.clientCertPem);
  await writeFile(`${base}.key`, config.certificate!.clientKeyPem);
  files[config.id] = { lines: `${base}.lines`, cert: `${base}.cert`, key: `${base}.key` };
}

let peakRss = process.memoryUsage.rss();
// CPU of this process (the engine's side: intake, parsing, the store and LevelDB's threads), not the senders'.
const cpuBefore = process.cpuUsage();
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 100);

const started = performance.now();
const tlsElu = performance.eventLoopUtilization();
const senders = Object.entries(files).map(
  ([, f]) =>
    new Promise<number>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['bench/ingest-sender.mjs', String(port), f.cert, f.key, f.lines, String(SECONDS)],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.once('exit', (code) =>
        code === 0 ? resolve(Number(out.trim())) : reject(new Error(`sender exited ${code}`)),
      );
    }),
);
const sent = await Promise.all(senders);
// Everything the senders got accepted is stored before the clock stops.
const total = (): number => ingest.counts(plainConfig.id).received + ingest.counts(jsonConfig.id).received;
const wanted = sent.reduce((a, b) => a + b, 0);
for (let waited = 0; total() < wanted && waited < 30_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
await store.flush();
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const engineCpuSeconds = (cpu.user + cpu.system) / 1e6;
const tlsMainBusy = performance.eventLoopUtilization(tlsElu).utilization;
clearInterval(sampler);

const plainCounts = ingest.counts(plainConfig.id);
const jsonCounts = ingest.counts(jsonConfig.id);
if (plainCounts.discarded + jsonCounts.discarded > 0) {
  throw new Error(`records were discarded: ${JSON.stringify(ingest.failed(plainConfig.id).slice(0, 2))}`);
}
const stored = plainCounts.parsed + jsonCounts.parsed;
const checked = await store.read(customLogName(plainConfig.id), { from: 0, to: Number.MAX_SAFE_INTEGER, limit: 1 });
if (checked.length !== 1 || typeof checked[0]?.src_ip !== 'string') throw new Error('no parsed record was stored');

await intakes.close();
await store.close();

// The reference: the same parsed records put with classic-level alone.
const rawDir = join(work, 'raw');
const db = new ClassicLevel<Buffer, string>(rawDir, { keyEncoding: 'buffer', valueEncoding: 'utf8' });
await db.open();
const sample = Array.from({ length: LINES }, (_, i) =>
  JSON.stringify({
    _timestamp: now.getTime(),
    host: `web-${i % 7}`,
    src_ip: `10.0.${i & 255}.1`,
    user: `u${i % 300}`,
    port: 20000 + i,
    parsed: 1,
    log_setting_id: plainConfig.id,
    raw_data: plainLine(i, now),
    log_id: `x-${i}`,
  }),
);
const rawCount = Math.min(2_000_000, Math.max(stored, 200_000));
const rawStart = performance.now();
for (let i = 0; i < rawCount; i += 1000) {
  const batch = [];
  for (let j = i; j < i + 1000; j++)
    batch.push({ type: 'put' as const, key: recordKey('raw', now.getTime(), j), value: sample[j % LINES]! });
  await db.batch(batch);
}
const rawRate = rawCount / ((performance.now() - rawStart) / 1000);
await db.close();
await rm(work, { recursive: true, force: true });

/** Kafka: a broker's topic read into a fresh store. Null (with the reason printed) when no broker can be started. */
async function kafkaRate(): Promise<number | null> {
  const missing = kafkaMissing();
  if (missing !== undefined) {
    console.log(`# ingest_kafka_records_per_s skipped: ${missing}`);
    return null;
  }
  const total = Number(process.env.RAMPART_BENCH_KAFKA_MESSAGES ?? 1_000_000);
  const broker = await startKafkaBroker('4.1.0');
  const kafkaWork = await mkdtemp(join(tmpdir(), 'rampart-bench-kafka-'));
  try {
    const kafka = new Kafka({ clientId: 'rampart-bench', brokers: [broker.address], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic: 'events', numPartitions: 3, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    await admin.disconnect();
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    // Each message carries the time it was produced, as a live application's events do (the TLS
    // files replay a fixed stretch of time instead).
    for (let at = 0; at < total; at += 10_000) {
      const sentAt = new Date();
      await producer.send({
        topic: 'events',
        acks: 1,
        messages: Array.from({ length: Math.min(10_000, total - at) }, (_, k) => ({
          partition: (at + k) % 3,
          value: jsonLine((at + k) % LINES, sentAt, 0),
        })),
      });
    }
    await producer.disconnect();

    const kafkaConfigStore = await ConfigStore.open(join(kafkaWork, 'config'), systemClock);
    const kafkaConfigs = new LogConfigsService({ store: kafkaConfigStore.slice(['logConfigs']), clock: systemClock });
    const config = await kafkaConfigs.create({
      ...json,
      name: 'app events over Kafka',
      method: 'broker',
      broker: { address: broker.address, topic: 'events', account: '', mechanism: 'none', tls: false, ca: '' },
    });
    const kafkaStore = await LogStore.open(join(kafkaWork, 'data'), undefined, {
      extraIndexedFields: (log) => kafkaConfigs.keyFieldsOfLog(log),
    });
    const intake = new KafkaIntake({
      store: kafkaStore,
      failed: (configId, message) =>
        kafkaStore.append(RAW_LOG, failedRawRecord(configId, message.line, message.logId, message.now, message.reason)),
    });
    const started = performance.now();
    const kafkaCpuBefore = process.cpuUsage();
    const rssAtStart = process.memoryUsage.rss();
    const kafkaSampler = setInterval(() => (kafkaPeakRss = Math.max(kafkaPeakRss, process.memoryUsage.rss())), 100);
    await intake.apply([{ id: config.id, brokers: [broker.address], topic: 'events', parse: parseConfigOf(config) }]);
    const counts = () => intake.counts()[config.id]!;
    // Joining the group (a few seconds, once per start) is timed apart from the sustained rate.
    while (counts().received === 0) {
      if (performance.now() - started > 120_000)
        throw new Error(`Kafka intake never started: ${JSON.stringify(counts())}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const joined = performance.now();
    const eluBefore = performance.eventLoopUtilization();
    const first = counts().stored;
    while (counts().stored + counts().discarded < total) {
      if (performance.now() - started > 600_000) throw new Error(`Kafka intake stalled: ${JSON.stringify(counts())}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await kafkaStore.flush();
    kafkaMainBusy = performance.eventLoopUtilization(eluBefore).utilization;
    const rate = (counts().stored - first) / ((performance.now() - joined) / 1000);
    const kafkaCpu = process.cpuUsage(kafkaCpuBefore);
    kafkaPerCpuSecond = counts().stored / ((kafkaCpu.user + kafkaCpu.system) / 1e6);
    kafkaJoinSeconds = (joined - started) / 1000;
    clearInterval(kafkaSampler);
    kafkaRssAtStart = rssAtStart;
    peakRss = Math.max(peakRss, kafkaPeakRss);
    await intake.close();
    await kafkaStore.close();
    return rate;
  } finally {
    await broker.stop();
    await rm(kafkaWork, { recursive: true, force: true });
  }
}
let kafkaJoinSeconds = 0;
let kafkaMainBusy = 0;
let kafkaPeakRss = 0;
let kafkaRssAtStart = 0;
let kafkaPerCpuSecond = 0;
const kafka = await kafkaRate();

line('ingest_tls_records_per_s', stored / elapsed, 'records/s');
// Per core of the engine's own CPU time (the senders run on the same 2 cores here; on a network they do not).
line('ingest_tls_records_per_engine_cpu_s', stored / engineCpuSeconds, 'records/s');
line('ingest_tls_engine_cores_used', engineCpuSeconds / elapsed, 'cores', 2);
line('ingest_tls_engine_thread_busy', tlsMainBusy, '', 2);
if (kafka !== null) {
  line('ingest_kafka_records_per_s', kafka, 'records/s');
  line('ingest_kafka_group_join_s', kafkaJoinSeconds, 's', 1);
  line('ingest_kafka_engine_thread_busy', kafkaMainBusy, '', 2);
  // The process's resident memory while the intake drains the topic, and before it started.
  line('ingest_kafka_peak_rss_mb', kafkaPeakRss / 2 ** 20, 'MB');
  line('ingest_kafka_rss_before_mb', kafkaRssAtStart / 2 ** 20, 'MB');
  line('ingest_kafka_records_per_engine_cpu_s', kafkaPerCpuSecond, 'records/s');
}
line('ingest_tls_plain_text_records_per_s', plainCounts.parsed / elapsed, 'records/s');
line('ingest_tls_json_records_per_s', jsonCounts.parsed / elapsed, 'records/s');
line('ingest_tls_seconds', elapsed, 's', 1);
line('ingest_raw_level_records_per_s', rawRate, 'records/s');
line('ingest_tls_vs_raw_level_ratio', stored / elapsed / rawRate, '', 2);
line('ingest_peak_rss_mb', peakRss / 1024 / 1024, 'MB');
