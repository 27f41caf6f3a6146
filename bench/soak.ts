/**
 * `npm run soak` (issue 19; not part of `npm test`): the engine as its own process (the built
 * bundle) under verdicts, TLS ingest, Kafka ingest and events together for RAMPART_SOAK_MINUTES
 * (default 30), in six equal slices, with a SIGKILL of the engine at the end of each of the first
 * five, a Kafka broker restart, a disk-budget squeeze and a burst of 10,000 TLS reconnects. Then it
 * reads the engine's store and says whether any record was lost or stored twice.
 *
 * Phase 0, capacity, the three loads together for RAMPART_SOAK_CAPACITY_SECONDS (default 20; or
 * given as RAMPART_SOAK_VERDICT_RPS, RAMPART_SOAK_TLS_RPS, RAMPART_SOAK_KAFKA_RPS): verdicts/s with
 * autocannon (32 connections); TLS records/s stored from bench/ingest-sender.mjs writing as fast as
 * it can; Kafka records/s stored from a topic filled beforehand. Together, because each alone takes
 * the whole of a small machine: half of each measured alone is more than it holds with all three
 * at once. These go to their own log
 * configurations, which the loss check does not cover. The soak then drives RAMPART_SOAK_LOAD
 * (default 0.5) of each, all at once:
 *
 * - verdicts: hey at a fixed rate (bench/support.ts), one run per slice; its p99 is of the answered
 *   verdicts, the ones refused while the engine restarts are counted beside it;
 * - TLS: bench/soak/tls-sender.ts, json lines each with a unique `seq`, into a TCP configuration;
 * - Kafka: a kafkajs producer (acks=all) into topic `soak`, 3 partitions, read by a BROKER
 *   configuration;
 * - events: a count over the site's access log, a distinct over the TLS log and a count over the
 *   Kafka log, enabled (their firings are printed; no rule acts on them, so verdicts stay PASS).
 *
 * Disturbances: at the end of slices 1-5 the engine is SIGKILLed and started again on the same data
 * folder (hey and both senders keep going); a third into slice 2 the broker is stopped for 30 s and
 * started again with its data; after the kill ending slice 3 the engine starts with
 * RAMPART_LOG_MAX_BYTES below the store's size (the disk budget is an operator setting, read at
 * start: the console API has no budget to lower), waits for the store to trim, and is SIGKILLed and
 * started again without it; a third into slice 4, 10,000 TLS handshakes (200 at a time) with the TLS
 * configuration's certificate, each closed at once (bench/soak/reconnect-storm.ts).
 *
 * What counts as lost. TLS syslog has no acknowledgement: lines written on a connection that dies
 * may be lost in flight. After every drop, once the engine is up, the store is asked (export API,
 * `seq:[a TO b]`) which of that connection's seqs it holds, newest first in runs of 50,000 until a run
 * is complete (a connection's lines are stored in order, so older ones are then in; the final check
 * verifies that), each run among the records received in the 30 s before the drop (twice as far
 * back for each older run: only the tail can be missing, and an export over a connection's whole
 * life took minutes under load); the missing ones are sent again and counted as
 * `soak_tls_in_flight_at_kill` (the
 * squeeze's own restarts included). At the end the store must hold every seq the sender made exactly
 * once. Kafka: every offset below each partition's high watermark exactly once (record ids
 * `soak-<partition>-<offset>`), whatever the producer retried. The budget squeeze is aimed at the
 * capacity phase's older records (the cap is the store's size less half of what phase 0 wrote, or
 * a fifth below the store's size when the capacities were given and phase 0 wrote little), but
 * the budget deletes across all logs and, today, well past its target (the store's write-ahead log
 * counts and cannot be trimmed), so it usually reaches the soak's logs: the records it removed (TLS
 * seqs made before the oldest record left, Kafka offsets below a partition's oldest stored one) are
 * counted as `soak_records_removed_by_budget`, not as lost, and the loss check covers the rest.
 *
 * Reading it: lost and duplicated must be 0; removed_by_budget says how much of the run the loss
 * check could not cover. Each slice's comment line gives the verdicts answered and refused (the
 * engine restarting) and the TLS sender's largest backlog: a backlog that grows slice after slice
 * means the load is more than this machine sustains with everything together, and the end then
 * fails rather than wait for ever.
 *
 * Run: `npm run soak` (builds the engine first unless BENCH_NO_BUILD=1; needs java and mvn for
 * the broker, as tests/support/kafka-broker.ts says). Settings: RAMPART_SOAK_MINUTES (30; 3 for a
 * quick trial), RAMPART_SOAK_LOAD (0.5), RAMPART_SOAK_CAPACITY_SECONDS (20),
 * RAMPART_SOAK_VERDICT_RPS / _TLS_RPS / _KAFKA_RPS (skip that capacity run and take this figure),
 * RAMPART_SOAK_KAFKA_CAPACITY_MESSAGES (300,000), RAMPART_SOAK_KEEP=1 (keep the work folder),
 * RAMPART_SOAK_TRACE=1 (a comment line with the engine's RSS every 6 s and one at each loss check's
 * start, to see when memory moves).
 *
 * Output (name: value unit): the capacities and driven rates; per slice `soak_slice: n`,
 * `soak_verdict_p99_ms`, `soak_rss_mb` (the engine's resident memory, median of the slice's
 * second half) and `soak_rss_anon_mb` (the same without file pages: LevelDB maps the store's table
 * files it reads, and those pages count in RSS); `soak_rss_spread_pct` and
 * `soak_rss_anon_spread_pct` (max/min - 1 over all six slices); `soak_records_lost` and
 * `soak_records_duplicated` (TLS + Kafka), which must be
 * 0. Exits 1 when they are not. The engine's log is kept in the work folder on failure
 * (RAMPART_SOAK_KEEP=1 keeps the folder always).
 */
import { execFile, execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { Producer } from 'kafkajs';
import { freePort } from '../tests/support/engine.ts';
import { ApiClient } from '../tests/support/api-client.ts';
import { kafkaMissing, startKafkaBroker, type KafkaBroker } from '../tests/support/kafka-broker.ts';
import { client as kafkaClient, connectProducer, createTopic } from '../tests/integration/kafka/support.ts';
import { engineEnvironment } from '../scripts/engine-allocator.mjs';
import { line, median, p99AtRateAsync, startEngineProcess, type StartedEngine } from './support.ts';
import { createVerdictSite, verdictHeaders } from './verdict-site.ts';
import type { ParentMessage, SenderDown, SenderMessage, SenderStopped } from './soak/protocol.ts';
import { tallyStore } from './soak/verify.ts';

const MINUTES = Number(process.env.RAMPART_SOAK_MINUTES ?? 30);
const SLICES = 6;
const SLICE_MS = (MINUTES * 60_000) / SLICES;
const CAPACITY_SECONDS = Number(process.env.RAMPART_SOAK_CAPACITY_SECONDS ?? 20);
const LOAD = Number(process.env.RAMPART_SOAK_LOAD ?? 0.5);
const BROKER_OUTAGE_MS = 30_000;
const STORM = { count: 10_000, concurrency: 200 };
const CHECK_RUN = 50_000;
/** One export of a drop check; a slower one is retried. */
const EXPORT_TIMEOUT_MS = 120_000;
/** How long the end may take to write the sender's backlog and read the topic to its end. */
const DRAIN_MS = 600_000;
const EMAIL = 'soak@example.com';
const PASSWORD = 'Kettle#Blue7';
const PARTITIONS = 3;
const TRACE = process.env.RAMPART_SOAK_TRACE === '1';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 19);
const log = (text: string): void => console.log(`# ${new Date().toISOString().slice(11, 19)} ${text}`);

// ---------------------------------------------------------------------------------------------
// Every process this bench starts is stopped on exit, by its PID (the broker by its own helper).
const children = new Set<ChildProcess>();
let broker: KafkaBroker | undefined;
const track = <T extends ChildProcess>(child: T): T => {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
};
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  // The broker's helper kills its JVM on exit; its data folder is this bench's to remove.
  if (broker !== undefined) rmSync(broker.dir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

// ---------------------------------------------------------------------------------------------
// The engine: one data folder, fixed ports, restarted in place.
const work = await mkdtemp(join(tmpdir(), 'rampart-soak-'));
const dataDir = join(work, 'data');
const engineLog = openSync(join(work, 'engine.log'), 'a');
const ports = {
  console: await freePort(),
  gateway: await freePort(),
  intake: await freePort(),
};
const engineEnv: Record<string, string> = {
  RAMPART_DATA: dataDir,
  RAMPART_CONSOLE_HOST: '127.0.0.1',
  RAMPART_CONSOLE_PORT: String(ports.console),
  RAMPART_GATEWAY_HOST: '127.0.0.1',
  RAMPART_GATEWAY_PORT: String(ports.gateway),
  // Access records are written at verdict time (no nginx log port here).
  RAMPART_GATEWAY_LOG_PORT: '0',
  RAMPART_INTAKE_PORT: String(ports.intake),
  RAMPART_KAFKA_BROKERS_ALLOWED: '127.0.0.0/8',
  RAMPART_PROXY_HOST: '127.0.0.1',
  RAMPART_LOG_LEVEL: 'warn',
};
const verdictUrl = `http://127.0.0.1:${ports.gateway}/_rampart/verdict`;

let engine: StartedEngine | undefined;
let admin = new ApiClient('');
let engineUp = false;
let kills = 0;
/** Resolves when the engine is next up (checks of dropped TLS connections wait on it). */
let upWaiters: (() => void)[] = [];

async function startEngine(extra: Record<string, string> = {}): Promise<void> {
  const started = performance.now();
  engine = await startEngineProcess({ ...engineEnv, ...extra }, { stdout: engineLog, onSpawn: track });
  log(`engine up in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  admin = new ApiClient(engine.consoleUrl);
  const signedIn = await admin.signIn(EMAIL, PASSWORD);
  if (signedIn.status !== 200) throw new Error(`sign-in failed: ${signedIn.text}`);
  engineUp = true;
  const waiters = upWaiters;
  upWaiters = [];
  for (const resolve of waiters) resolve();
}

async function killEngine(): Promise<void> {
  const child = engine!.child;
  engineUp = false;
  kills++;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const whenUp = (): Promise<void> => (engineUp ? Promise.resolve() : new Promise((resolve) => upWaiters.push(resolve)));

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await admin.request<T>(method, path, body);
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${response.text.slice(0, 300)}`);
  return response.body;
}

interface Status {
  received: number;
  parsed: number;
  discarded: number;
  kafka: { state: string; lag: number | null; lastError: string | null } | null;
  failed: { code: string; reason: string }[];
}
const status = (id: string): Promise<Status> => api<Status>('GET', `/log-configs/${id}/status`);

interface StorageView {
  logs: { log: string; oldest: number; newest: number; approxBytes: number }[];
  disk: { usedBytes: number };
}
const storage = (): Promise<StorageView> => api<StorageView>('GET', '/storage');

/** A TCP configuration's client certificate and key, from its bundle as an operator downloads it. */
async function certificateFiles(id: string): Promise<{ cert: string; key: string }> {
  const response = await fetch(`${engine!.consoleUrl}/api/v1/log-configs/${id}/certificate`, {
    headers: { cookie: admin.cookie ?? '' },
  });
  if (response.status !== 200) throw new Error(`certificate bundle of ${id}: ${response.status}`);
  const folder = join(work, `bundle-${id}`);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'bundle.zip'), Buffer.from(await response.arrayBuffer()));
  execFileSync('unzip', ['-o', '-q', join(folder, 'bundle.zip'), '-d', folder]);
  return { cert: join(folder, 'csr_cert.pem'), key: join(folder, 'private_key.pem') };
}

// The soak's records: json with a seq, an ip and a user (the events' keys), read at receipt time.
const SOAK_FIELDS = [
  { kind: 'json', name: 'seq', source: 'seq', type: 'integer', required: true },
  { kind: 'json', name: 'ip', source: 'ip', type: 'string', required: true },
  { kind: 'json', name: 'user', source: 'user', type: 'string', required: false },
  { kind: 'json', name: 'msg', source: 'msg', type: 'string', required: false },
];
const logConfig = (name: string, broker: { address: string; topic: string } | null) => ({
  name,
  method: broker ? 'broker' : 'tcp',
  ...(broker ? { broker: { ...broker, account: '', password: '', mechanism: 'none' } } : {}),
  templateType: 'json',
  time: { mode: 'current' },
  timezone: 'UTC',
  fields: SOAK_FIELDS,
  keyFields: { ip: 'ip', user: 'user' },
});
const kafkaValue = (seq: number): string =>
  `{"seq":${seq},"ip":"172.16.${(seq >> 8) & 63}.${seq % 89}","user":"k${seq % 300}","msg":"soak message ${seq}"}`;

// ---------------------------------------------------------------------------------------------
let producer: Producer | undefined;
let failed = false;
try {
  const missing = kafkaMissing();
  if (missing !== undefined) throw new Error(`the soak needs a Kafka broker: ${missing}`);
  if (!process.env.BENCH_NO_BUILD) execFileSync(process.execPath, ['scripts/build-engine.mjs'], { stdio: 'ignore' });
  broker = await startKafkaBroker('4.1.0');
  await createTopic([broker.address], 'soak-capacity', PARTITIONS);
  await createTopic([broker.address], 'soak', PARTITIONS);
  producer = await connectProducer([broker.address]);

  // The first start: no account to sign in with yet.
  engine = await startEngineProcess(engineEnv, { stdout: engineLog, onSpawn: track });
  admin = new ApiClient(engine.consoleUrl);
  engineUp = true;
  const setup = await admin.setup(EMAIL, PASSWORD);
  if (setup.status !== 201) throw new Error(`setup failed: ${setup.text}`);
  const site = await createVerdictSite(admin);
  const headers = await verdictHeaders(dataDir, site);
  const configs = await api<{ items: { id: string; kind: string; siteId: string | null }[] }>('GET', '/log-configs');
  const accessConfig = configs.items.find((c) => c.kind === 'access' && c.siteId === site.siteId)!.id;
  const tlsCapacityConfig = (await api<{ id: string }>('POST', '/log-configs', logConfig('capacity tls', null))).id;
  const tlsConfig = (await api<{ id: string }>('POST', '/log-configs', logConfig('soak tls', null))).id;
  const tlsCapacityFiles = await certificateFiles(tlsCapacityConfig);
  const tlsFiles = await certificateFiles(tlsConfig);

  // -------------------------------------------------------------------------------------------
  // Phase 0: capacity, the three loads together (each alone takes the whole of a small machine, so
  // half of each measured alone would be more than it holds together).
  const given = (name: string): number | undefined =>
    process.env[name] === undefined ? undefined : Number(process.env[name]);
  const kafkaTotal = Number(process.env.RAMPART_SOAK_KAFKA_CAPACITY_MESSAGES ?? 300_000);
  if (given('RAMPART_SOAK_KAFKA_RPS') === undefined) {
    for (let at = 0; at < kafkaTotal; at += 10_000) {
      const messages = [];
      for (let seq = at; seq < Math.min(kafkaTotal, at + 10_000); seq++)
        messages.push({ partition: seq % PARTITIONS, value: kafkaValue(seq) });
      await producer.send({ topic: 'soak-capacity', acks: -1, messages });
    }
  }
  const measureVerdicts = async (): Promise<number> => {
    const run = await autocannon({ url: verdictUrl, connections: 32, duration: CAPACITY_SECONDS, headers });
    if (run.non2xx > 0 || run.errors > 0) throw new Error(`verdicts failed in the capacity run: ${run.non2xx} non-2xx`);
    return run.requests.total / CAPACITY_SECONDS;
  };
  const measureTls = async (): Promise<number> => {
    const linesFile = join(work, 'capacity.lines');
    writeFileSync(
      linesFile,
      Array.from({ length: 20_000 }, (_, i) => kafkaValue(i).replace('soak message', 'capacity line')).join('\n'),
    );
    const started = performance.now();
    const sent = await new Promise<number>((resolve, reject) => {
      const child = track(
        spawn(
          process.execPath,
          [
            'bench/ingest-sender.mjs',
            String(ports.intake),
            tlsCapacityFiles.cert,
            tlsCapacityFiles.key,
            linesFile,
            String(CAPACITY_SECONDS),
          ],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        ),
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.once('exit', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`sender ${code}`))));
    });
    let stored = await status(tlsCapacityConfig);
    while (stored.parsed + stored.discarded < sent && performance.now() - started < (CAPACITY_SECONDS + 60) * 1000) {
      await sleep(100);
      stored = await status(tlsCapacityConfig);
    }
    return stored.parsed / ((performance.now() - started) / 1000);
  };
  const measureKafka = async (): Promise<number> => {
    const total = kafkaTotal;
    const id = (
      await api<{ id: string }>(
        'POST',
        '/log-configs',
        logConfig('capacity kafka', { address: broker!.address, topic: 'soak-capacity' }),
      )
    ).id;
    // Timed from the first status that shows records (joining the group takes seconds, once per
    // start); should that status already show most of them, from the configuration's creation.
    const created = performance.now();
    const deadline = created + 300_000;
    let s = await status(id);
    while (s.received === 0 && performance.now() < deadline) {
      await sleep(20);
      s = await status(id);
    }
    const first = { at: performance.now(), parsed: s.parsed };
    while (s.parsed + s.discarded < total && performance.now() < deadline) {
      await sleep(50);
      s = await status(id);
    }
    const done = performance.now();
    if (first.parsed < total / 2) return (s.parsed - first.parsed) / ((done - first.at) / 1000);
    log('Kafka capacity timed from the creation of its configuration (includes joining the group)');
    return s.parsed / ((done - created) / 1000);
  };
  const [verdictCapacity, tlsCapacity, kafkaCapacity] = await Promise.all([
    given('RAMPART_SOAK_VERDICT_RPS') ?? measureVerdicts(),
    given('RAMPART_SOAK_TLS_RPS') ?? measureTls(),
    given('RAMPART_SOAK_KAFKA_RPS') ?? measureKafka(),
  ]);
  const preBytes = (await storage()).disk.usedBytes;
  line('soak_verdict_capacity_rps', verdictCapacity, '/s');
  line('soak_tls_capacity_records_per_s', tlsCapacity, 'records/s');
  line('soak_kafka_capacity_records_per_s', kafkaCapacity, 'records/s');
  const rates = {
    verdict: Math.max(1, Math.round(verdictCapacity * LOAD)),
    tls: Math.max(1, Math.round(tlsCapacity * LOAD)),
    kafka: Math.max(1, Math.round(kafkaCapacity * LOAD)),
  };
  line('soak_verdict_rate', rates.verdict, '/s');
  line('soak_tls_rate', rates.tls, 'records/s');
  line('soak_kafka_rate', rates.kafka, 'records/s');
  const allocation = engineEnvironment();
  log(
    `engine allocator: ${allocation.allocator}${allocation.env.MALLOC_CONF ? ` (${allocation.env.MALLOC_CONF})` : ''}`,
  );

  // -------------------------------------------------------------------------------------------
  // The soak's own configurations and events.
  const kafkaConfig = (
    await api<{ id: string }>(
      'POST',
      '/log-configs',
      logConfig('soak kafka', { address: broker.address, topic: 'soak' }),
    )
  ).id;
  const events: { id: string; name: string }[] = [];
  const addEvent = async (body: Record<string, unknown>): Promise<string> => {
    const created = await api<{ id: string; name: string }>('POST', '/events', body);
    events.push(created);
    return created.id;
  };
  const productPage = await addEvent({
    kind: 'simple',
    name: 'soak verdict GET',
    sources: [accessConfig],
    relation: 'a',
    conditions: [{ label: 'a', field: 'request', filter: 'string', mode: 'regex', value: '^GET /products/' }],
  });
  await addEvent({
    kind: 'count',
    name: 'soak busy client',
    sources: [accessConfig],
    triggerEvent: productPage,
    object: 'ip',
    window: { value: 1, unit: 'minute' },
    comparator: '>=',
    threshold: 1000,
  });
  await addEvent({
    kind: 'distinct',
    name: 'soak tls users per ip',
    sources: [tlsConfig],
    triggerEvent: null,
    field: 'user',
    object: 'ip',
    window: { value: 5, unit: 'minute' },
    comparator: '>=',
    threshold: 3,
  });
  await addEvent({
    kind: 'count',
    name: 'soak kafka per ip',
    sources: [kafkaConfig],
    triggerEvent: null,
    object: 'ip',
    window: { value: 1, unit: 'minute' },
    comparator: '>=',
    threshold: 50,
  });
  for (const event of events) await api('POST', `/events/${event.id}/enabled`, { enabled: true });

  // -------------------------------------------------------------------------------------------
  // Loads.
  const progress: { at: number; lastSeq: number }[] = [];
  /** The most lines the sender held unwritten in this slice (the engine not keeping up, or down). */
  let backlog = 0;
  let backlogNow = 0;
  const drops: SenderDown[] = [];
  let inFlight = 0;
  let tlsDrops = 0;
  const sender = track(
    fork('bench/soak/tls-sender.ts', [String(ports.intake), tlsFiles.cert, tlsFiles.key, String(rates.tls)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const toSender = (message: ParentMessage): void => {
    sender.send(message);
  };
  const senderStopped = new Promise<SenderStopped>((resolve) =>
    sender.on('message', (raw) => {
      const message = raw as SenderMessage;
      if (message.type === 'progress') {
        progress.push({ at: message.at, lastSeq: message.lastSeq });
        backlog = Math.max(backlog, message.queued);
        backlogNow = message.queued;
      } else if (message.type === 'down') {
        tlsDrops++;
        drops.push(message);
      } else if (message.type === 'stopped') {
        resolve(message);
      }
    }),
  );
  /** The newest seq made by `at` (a seq written before `at` is at most this). */
  const seqMadeBy = (at: number): number => {
    let seq = -1;
    for (const p of progress) if (p.at <= at + 1000) seq = p.lastSeq;
    return seq;
  };

  /**
   * Which seqs within [lo, hi] the store holds among the records received within `window` (a
   * connection's life: the engine reads a connection's lines while it is up, and stamps them then).
   */
  async function storedSeqs(lo: number, hi: number, window: { from: number; to: number }): Promise<Set<number>> {
    const response = await fetch(`${engine!.consoleUrl}/api/v1/logs/export`, {
      method: 'POST',
      headers: { cookie: admin.cookie ?? '', 'x-csrf-token': admin.csrf ?? '', 'content-type': 'application/json' },
      body: JSON.stringify({
        log: `custom:${tlsConfig}`,
        range: window,
        query: `seq:[${lo} TO ${hi}]`,
        format: 'csv',
        columns: ['seq'],
        max: 100_000,
      }),
      signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
    });
    if (response.status !== 200) throw new Error(`export: ${response.status} ${await response.text()}`);
    const found = new Set<number>();
    for (const row of (await response.text()).split('\n')) {
      const seq = Number(row.replace(/"/g, '').trim());
      if (row.trim() !== '' && Number.isInteger(seq)) found.add(seq);
    }
    return found;
  }

  /**
   * One dropped connection: the seqs it wrote that the store lacks are sent again. Only its tail can
   * be missing (what the kernel and the engine still held when it died), so runs are read newest
   * first, each over the records received from a little before that run was written: the first over
   * the 30 s before the drop, each older one over twice as far back.
   */
  async function checkDrop(drop: SenderDown): Promise<void> {
    const started = performance.now();
    if (TRACE) log('check of a dropped TLS connection starts');
    const missing: number[] = [];
    let exports = 0;
    if (drop.resent.length > 0) {
      const sorted = [...drop.resent].sort((a, b) => a - b);
      // Resent lines went out in a burst after a check: the engine read them from then on.
      const [first, last] = drop.resentAt ?? [drop.since, drop.at];
      const window = { from: first - 2_000, to: Math.min(drop.at, last + 60_000) + 10_000 };
      const have = await storedSeqs(sorted[0]!, sorted.at(-1)!, window);
      exports++;
      for (const seq of sorted) if (!have.has(seq)) missing.push(seq);
    }
    if (drop.fresh !== null) {
      const [first, last] = drop.fresh;
      let back = 30_000;
      for (let hi = last; hi >= first; hi -= CHECK_RUN, back *= 2) {
        const lo = Math.max(first, hi - CHECK_RUN + 1);
        const window = { from: Math.max(drop.since - 2_000, drop.at - back), to: drop.at + 10_000 };
        const have = await storedSeqs(lo, hi, window);
        exports++;
        for (let seq = lo; seq <= hi; seq++) if (!have.has(seq)) missing.push(seq);
        if (have.size >= hi - lo + 1) break;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    if (seconds > 10) log(`check of a dropped TLS connection took ${seconds.toFixed(1)} s (${exports} exports)`);
    inFlight += missing.length;
    if (missing.length > 0) toSender({ type: 'resend', seqs: missing });
  }

  let checking = true;
  let checksPending = 0;
  const checker = (async () => {
    while (checking || drops.length > 0) {
      const drop = drops[0];
      if (drop === undefined) {
        await sleep(200);
        continue;
      }
      checksPending = drops.length;
      await whenUp();
      // Whatever the engine had read from the connection is in the store a moment later.
      await sleep(Math.max(0, drop.at + 3_000 - Date.now()));
      try {
        await checkDrop(drop);
        drops.shift();
      } catch (error) {
        log(`check of a dropped TLS connection failed, retried: ${String(error)}`);
        await sleep(1000);
      }
      checksPending = drops.length;
    }
  })();

  let producing = true;
  let produced = 0;
  let produceRetries = 0;
  const producerLoop = (async () => {
    const started = performance.now();
    let failures = 0;
    while (producing) {
      const due = Math.floor((rates.kafka * (performance.now() - started)) / 1000);
      const n = Math.min(due - produced, 5000);
      if (n <= 0) {
        await sleep(20);
        continue;
      }
      const messages = [];
      for (let seq = produced; seq < produced + n; seq++)
        messages.push({ partition: seq % PARTITIONS, value: kafkaValue(seq) });
      try {
        await producer.send({ topic: 'soak', acks: -1, messages });
        produced += n;
        failures = 0;
      } catch {
        // The same seqs again: the topic may then hold some twice (the check is by offset).
        produceRetries++;
        if (++failures % 5 === 0) await producer.connect().catch(() => undefined);
        await sleep(500);
      }
    }
  })();

  // The engine's resident memory every 2 s, per slice.
  const rss: { slice: number; at: number; mb: number; anonMb: number }[] = [];
  let slice = 0;
  let sliceStart = Date.now();
  const sampler = setInterval(() => {
    const pid = engine?.child.pid;
    if (!engineUp || pid === undefined) return;
    try {
      // VmRSS counts the store's table files LevelDB has mapped and read as well; RssAnon is the
      // engine's own memory (heap, buffers, LevelDB's memtables).
      const text = readFileSync(`/proc/${pid}/status`, 'utf8');
      const total = /VmRSS:\s+(\d+) kB/.exec(text);
      const anon = /RssAnon:\s+(\d+) kB/.exec(text);
      if (total && anon) {
        rss.push({ slice, at: Date.now() - sliceStart, mb: Number(total[1]) / 1024, anonMb: Number(anon[1]) / 1024 });
        if (TRACE && rss.length % 3 === 0)
          log(`rss ${(Number(total[1]) / 1024).toFixed(0)} MB, anon ${(Number(anon[1]) / 1024).toFixed(0)} MB`);
      }
    } catch {
      // Between a kill and the next start.
    }
  }, 2000);
  // Where that memory is (diagnostic), every 10 s: the pages of LevelDB's table files the engine has
  // mapped (/proc/<pid>/smaps), and its V8 heap and memory outside it (/metrics).
  const tableSamples: { slice: number; at: number; tablesMb: number; tables: number }[] = [];
  const heap: { slice: number; at: number; total: number; used: number; newSpace: number; external: number }[] = [];
  let heapFailure = '';
  const heapSampler = setInterval(() => {
    const pid = engine?.child.pid;
    if (!engineUp || pid === undefined) return;
    const at = Date.now() - sliceStart;
    const ofSlice = slice;
    try {
      let inTable = false;
      let tablesKb = 0;
      let tables = 0;
      for (const row of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
        if (/^[0-9a-f]+-[0-9a-f]+ /.test(row)) {
          inTable = row.endsWith('.ldb') || row.endsWith('.ldb (deleted)');
          if (inTable) tables++;
        } else if (inTable && row.startsWith('Rss:')) tablesKb += Number(row.split(/\s+/)[1]);
      }
      tableSamples.push({ slice: ofSlice, at, tablesMb: tablesKb / 1024, tables });
    } catch {
      return; // Between a kill and the next start.
    }
    fetch(`${engine!.consoleUrl}/metrics`, {
      headers: { cookie: admin.cookie ?? '' },
      signal: AbortSignal.timeout(5_000),
    })
      .then(async (response) => {
        if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
        return response.text();
      })
      .then((text) => {
        const mb = (name: string): number => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]) / 1e6;
        heap.push({
          slice: ofSlice,
          at,
          total: mb('nodejs_heap_size_total_bytes'),
          used: mb('nodejs_heap_size_used_bytes'),
          newSpace: mb('nodejs_heap_space_size_total_bytes\\{space="new"\\}'),
          external: mb('nodejs_external_memory_bytes'),
        });
      })
      .catch((error: unknown) => {
        const text = error instanceof Error ? error.message : String(error);
        if (text !== heapFailure) log(`memory sampler: ${(heapFailure = text)}`);
      });
  }, 10_000);

  const brokerRestart = async (): Promise<void> => {
    log('Kafka broker stopped');
    await broker!.stop({ keepData: true });
    await sleep(BROKER_OUTAGE_MS);
    await broker!.start();
    log('Kafka broker started again');
  };
  let storm: { ok: number; failed: number; seconds: number } | undefined;
  const reconnectStorm = (): Promise<void> =>
    new Promise((resolve, reject) => {
      log(`${STORM.count} TLS reconnects`);
      const child = track(
        execFile(
          process.execPath,
          [
            '--import',
            'tsx',
            'bench/soak/reconnect-storm.ts',
            String(ports.intake),
            tlsFiles.cert,
            tlsFiles.key,
            String(STORM.count),
            String(STORM.concurrency),
          ],
          (error, stdout) => {
            if (error) reject(new Error(`reconnect burst: ${error.message}`));
            else {
              storm = JSON.parse(stdout) as typeof storm;
              log(`reconnects done: ${stdout.trim()}`);
              resolve();
            }
          },
        ),
      );
      void child;
    });
  let squeeze:
    | { cap: number; before: number; after: number; trimmed: Record<string, number>; oldest: [number, number] }
    | undefined;
  /** Started with a cap below the store's size; the trim is awaited; then killed and started without it. */
  let beforeSqueeze: StorageView | undefined;
  const budgetSqueeze = async (): Promise<void> => {
    const before = beforeSqueeze!;
    const used = before.disk.usedBytes;
    // With the capacities given, phase 0 wrote next to nothing: the cap is then a fifth below the store.
    const cap = Math.max(1, Math.floor(preBytes > used * 0.1 ? used - preBytes / 2 : used * 0.8));
    await startEngine({ RAMPART_LOG_MAX_BYTES: String(cap) });
    log(`disk budget squeeze: store ${Math.round(used / 1e6)} MB, cap ${Math.round(cap / 1e6)} MB`);
    // One budget check (30 s after the start, or sooner after cap/4 written) trims in up to four
    // rounds at once; it has run when the oldest record held moved. The store need not reach the
    // cap: LevelDB's write-ahead log and memtable are counted and cannot be trimmed.
    const oldest = (view: StorageView): number => Math.min(...view.logs.map((l) => l.oldest));
    let now = await storage();
    const deadline = Date.now() + 120_000;
    while (now.disk.usedBytes > cap && oldest(now) <= oldest(before) && Date.now() < deadline) {
      await sleep(2000);
      now = await storage();
    }
    await sleep(3000);
    const squeezed = await storage();
    const trimmedTo = squeezed.disk.usedBytes;
    await killEngine();
    await startEngine();
    // Read once the cap is gone: no trim can follow, so these are the soak logs' oldest for good.
    const after = await storage();
    const trimmed: Record<string, number> = {};
    for (const covered of [`custom:${tlsConfig}`, `custom:${kafkaConfig}`]) {
      const was = before.logs.find((l) => l.log === covered)?.oldest;
      const is = after.logs.find((l) => l.log === covered)?.oldest;
      if (was !== undefined && is !== undefined && is > was) trimmed[covered] = is;
    }
    squeeze = { cap, before: used, after: trimmedTo, trimmed, oldest: [oldest(before), oldest(squeezed)] };
    log(`squeeze done: store ${Math.round(trimmedTo / 1e6)} MB; soak logs trimmed: ${Object.keys(trimmed).length}`);
  };

  // -------------------------------------------------------------------------------------------
  // The slices.
  const sliceResults: { p99: number; answered: number; errors: number; rssMb: number; anonMb: number }[] = [];
  const extras: Promise<void>[] = [];
  for (slice = 1; slice <= SLICES; slice++) {
    sliceStart = Date.now();
    log(`slice ${slice}`);
    const hey = p99AtRateAsync(verdictUrl, headers, {
      rate: rates.verdict,
      seconds: Math.max(1, Math.round(SLICE_MS / 1000)),
    }).catch((error: unknown) => ({ p99ms: Number.NaN, report: String(error) }));
    if (!engineUp) {
      if (slice === 4) await budgetSqueeze();
      else await startEngine();
    }
    if (slice === 2) extras.push(sleep(SLICE_MS / 3).then(brokerRestart));
    // A third into the slice, or at once when the squeeze took longer.
    if (slice === 4) extras.push(sleep(Math.max(0, sliceStart + SLICE_MS / 3 - Date.now())).then(reconnectStorm));
    const { p99ms, report } = await hey;
    const answered = [...report.matchAll(/\[(\d{3})\]\s+(\d+) responses/g)].reduce((n, m) => n + Number(m[2]), 0);
    const errorPart = report.split('Error distribution:')[1] ?? '';
    const errors = [...errorPart.matchAll(/\[(\d+)\]/g)].reduce((n, m) => n + Number(m[1]), 0);
    const wrong = [...report.matchAll(/\[(\d{3})\]\s+(\d+) responses/g)].filter((m) => m[1] !== '204');
    if (wrong.length > 0) log(`verdicts other than 204 in slice ${slice}: ${wrong.map((m) => m[0]).join(', ')}`);
    const late = rss.filter((r) => r.slice === slice && r.at >= SLICE_MS / 2);
    const rssMb = median(late.map((r) => r.mb));
    const anonMb = median(late.map((r) => r.anonMb));
    const lateHeap = heap.filter((h) => h.slice === slice && h.at >= SLICE_MS / 2);
    const heapTotal = median(lateHeap.map((h) => h.total));
    const heapUsed = median(lateHeap.map((h) => h.used));
    const newSpace = median(lateHeap.map((h) => h.newSpace));
    const external = median(lateHeap.map((h) => h.external));
    const lateTables = tableSamples.filter((h) => h.slice === slice && h.at >= SLICE_MS / 2);
    const tablesMb = median(lateTables.map((h) => h.tablesMb));
    const tablesMapped = median(lateTables.map((h) => h.tables));
    sliceResults.push({ p99: p99ms, answered, errors, rssMb, anonMb });
    console.log(`soak_slice: ${slice}`);
    line('soak_verdict_p99_ms', p99ms, 'ms', 2);
    line('soak_rss_mb', rssMb, 'MB');
    line('soak_rss_anon_mb', anonMb, 'MB');
    console.log(
      `# slice ${slice}: ${answered} verdicts answered, ${errors} refused or failed (engine restarting); TLS sender backlog up to ${backlog} lines, ${backlogNow} at the end; V8 heap ${heapTotal.toFixed(0)} MB (${heapUsed.toFixed(0)} MB used, young generation ${newSpace.toFixed(0)} MB), external ${external.toFixed(0)} MB; ${tablesMapped.toFixed(0)} table files mapped, ${tablesMb.toFixed(0)} MB of them resident`,
    );
    backlog = 0;
    // The squeeze's "before": the soak logs' oldest records while the engine still runs.
    if (slice === 3) beforeSqueeze = await storage();
    if (slice < SLICES) {
      log('SIGKILL engine');
      await killEngine();
    }
  }
  await Promise.all(extras);
  clearInterval(sampler);
  clearInterval(heapSampler);

  // -------------------------------------------------------------------------------------------
  // Drain: every resend out, the sender stopped cleanly, the topic read to its end.
  const drainDeadline = Date.now() + 180_000;
  while ((drops.length > 0 || checksPending > 0) && Date.now() < drainDeadline) await sleep(500);
  checking = false;
  await Promise.race([checker, sleep(DRAIN_MS)]);
  if (drops.length > 0) throw new Error(`${drops.length} dropped TLS connections could not be checked`);
  toSender({ type: 'stop' });
  producing = false;
  await producerLoop;
  // The sender writes what it still holds before it stops; an engine that cannot keep up with the
  // load never lets it (the rates are too high for this machine: lower RAMPART_SOAK_LOAD).
  const last = await Promise.race([senderStopped, sleep(DRAIN_MS).then(() => undefined)]);
  if (last === undefined) {
    throw new Error(
      `the TLS sender still held lines ${DRAIN_MS / 1000} s after the last slice: the engine did not keep up with the load (RAMPART_SOAK_LOAD=${LOAD})`,
    );
  }
  let tlsStatus = await status(tlsConfig);
  for (let stable = 0; stable < 5 && Date.now() < drainDeadline;) {
    await sleep(1000);
    const next = await status(tlsConfig);
    stable = next.received === tlsStatus.received ? stable + 1 : 0;
    tlsStatus = next;
  }
  let kafkaStatus = await status(kafkaConfig);
  while (kafkaStatus.kafka?.lag !== 0 && Date.now() < drainDeadline + 120_000) {
    await sleep(1000);
    kafkaStatus = await status(kafkaConfig);
  }
  const eventList = await api<{ items: { id: string; stats: { firings: number } | null }[] }>('GET', '/events');
  const firings = events.map((e) => `${e.name} ${eventList.items.find((i) => i.id === e.id)?.stats?.firings ?? '?'}`);
  await engine.stop();
  engineUp = false;

  const kafkaAdmin = kafkaClient([broker.address]).admin();
  await kafkaAdmin.connect();
  const offsets = await kafkaAdmin.fetchTopicOffsets('soak');
  await kafkaAdmin.disconnect();
  const highWatermarks = Array.from({ length: PARTITIONS }, (_, p) =>
    Number(offsets.find((o) => o.partition === p)?.high ?? 0),
  );
  await producer.disconnect();
  producer = undefined;
  await broker.stop();
  broker = undefined;

  // -------------------------------------------------------------------------------------------
  // The check.
  const tally = await tallyStore(
    dataDir,
    { tls: `custom:${tlsConfig}`, kafka: `custom:${kafkaConfig}` },
    last.lastSeq,
    { topic: 'soak', highWatermarks },
  );
  const trimmedTls = squeeze?.trimmed[`custom:${tlsConfig}`];
  const removableSeq = trimmedTls === undefined ? -1 : seqMadeBy(trimmedTls);
  let tlsLost = 0;
  let tlsDuplicated = 0;
  let removed = 0;
  const lostSample: number[] = [];
  for (let seq = 0; seq <= last.lastSeq; seq++) {
    const n = tally.tls.counts[seq]!;
    if (n === 0) {
      if (seq <= removableSeq) removed++;
      else {
        tlsLost++;
        if (lostSample.length < 10) lostSample.push(seq);
      }
    } else if (n > 1) tlsDuplicated += n - 1;
  }
  const kafkaTrimmed = squeeze?.trimmed[`custom:${kafkaConfig}`] !== undefined;
  let kafkaLost = 0;
  let kafkaDuplicated = 0;
  // Copies of each producer seq in the topic (a Map holds at most 2^24 entries: a 30-minute run has more).
  const producerCopies = new Uint8Array(produced);
  tally.kafka.counts.forEach((counts, partition) => {
    const lowestStored = counts.findIndex((n) => n > 0);
    for (let offset = 0; offset < counts.length; offset++) {
      const n = counts[offset]!;
      if (n === 0) {
        if (kafkaTrimmed && (lowestStored === -1 || offset < lowestStored)) removed++;
        else kafkaLost++;
      } else if (n > 1) kafkaDuplicated += n - 1;
      const seq = tally.kafka.seqs[partition]![offset]!;
      if (seq >= 0 && seq < produced && producerCopies[seq]! < 255) producerCopies[seq]!++;
    }
  });
  // The producer's view (diagnostic): seqs it was told are written but no stored record holds. A
  // squeeze that reached the Kafka log makes this meaningless, so it is then not counted.
  let confirmedMissing = 0;
  if (!kafkaTrimmed) for (let seq = 0; seq < produced; seq++) if (producerCopies[seq] === 0) confirmedMissing++;
  const producerDuplicates = producerCopies.filter((n) => n > 1).length;

  console.log(`# engine SIGKILLs: ${kills}; TLS connections dropped: ${tlsDrops}; events fired: ${firings.join(', ')}`);
  if (storm)
    console.log(`# reconnect burst: ${storm.ok} handshakes, ${storm.failed} failed, ${storm.seconds.toFixed(1)} s`);
  if (squeeze) {
    console.log(
      `# budget squeeze: store ${Math.round(squeeze.before / 1e6)} MB, cap ${Math.round(squeeze.cap / 1e6)} MB, after ${Math.round(squeeze.after / 1e6)} MB; oldest record held ${clock(squeeze.oldest[0])} -> ${clock(squeeze.oldest[1])}; soak logs reached: ${Object.keys(squeeze.trimmed).length === 0 ? 'none' : Object.keys(squeeze.trimmed).join(', ')}`,
    );
  }
  console.log(
    `# TLS: ${last.lastSeq + 1} lines made, ${tlsLost} lost${lostSample.length ? ` (first: ${lostSample.join(', ')})` : ''}, ${tlsDuplicated} duplicated, ${tally.tls.foreign} foreign; Kafka: ${highWatermarks.reduce((a, b) => a + b, 0)} offsets (${produced} confirmed to the producer, ${produceRetries} retried sends, ${producerDuplicates} seqs in the topic twice), ${kafkaLost} lost, ${kafkaDuplicated} duplicated, ${confirmedMissing} confirmed seqs not stored, ${tally.kafka.foreign} foreign`,
  );
  const spread = (values: number[]): number => (Math.max(...values) / Math.min(...values) - 1) * 100;
  line('soak_rss_spread_pct', spread(sliceResults.map((s) => s.rssMb)), '%', 1);
  line('soak_rss_anon_spread_pct', spread(sliceResults.map((s) => s.anonMb)), '%', 1);
  line('soak_tls_records_sent', last.lastSeq + 1, 'records');
  line('soak_tls_in_flight_at_kill', inFlight, 'records');
  line(
    'soak_kafka_records_produced',
    highWatermarks.reduce((a, b) => a + b, 0),
    'records',
  );
  line('soak_records_removed_by_budget', removed, 'records');
  line('soak_records_lost', tlsLost + kafkaLost, 'records');
  line('soak_records_duplicated', tlsDuplicated + kafkaDuplicated, 'records');
  failed = tlsLost + kafkaLost + tlsDuplicated + kafkaDuplicated > 0;
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  if (engine && engine.child.exitCode === null && engine.child.signalCode === null) await engine.stop();
  await producer?.disconnect().catch(() => undefined);
  await broker?.stop().catch(() => undefined);
  for (const child of children) child.kill('SIGKILL');
  closeSync(engineLog);
  if (failed || process.env.RAMPART_SOAK_KEEP) console.log(`# work folder kept: ${work} (engine.log, data)`);
  else await rm(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
