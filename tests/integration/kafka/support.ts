import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import type { LogRecord, LogStore } from '#engine/log-store';
import { compileParser, type LogParseConfig } from '#engine/parse';

/** Every message is `{"seq":<n>,"msg":"..."}`; seq is required, so a line without it is discarded. */
export const PARSE_CONFIG: LogParseConfig = {
  id: 'cfg_kafka',
  name: 'kafka test',
  templateType: 'json',
  time: { mode: 'current' },
  timezone: 'UTC',
  fields: [
    { kind: 'json', name: 'seq', source: 'seq', type: 'integer', required: true },
    { kind: 'json', name: 'msg', source: 'msg', type: 'string', required: false },
  ],
  keyFields: {},
  intelligence: false,
};

/** The test configuration's parsing under another id (it compiles: checked here, as the engine does). */
export function testParseConfig(id = PARSE_CONFIG.id): LogParseConfig {
  const config = { ...PARSE_CONFIG, id };
  const compiled = compileParser(config);
  if (!compiled.ok) throw new Error(`test parser does not compile: ${JSON.stringify(compiled.error)}`);
  return config;
}

export const PARTITIONS = 3;

export const client = (brokers: string[]): Kafka =>
  new Kafka({ clientId: 'rampart-test', brokers, logLevel: logLevel.NOTHING });

export async function createTopic(brokers: string[], topic: string, partitions = PARTITIONS): Promise<void> {
  const admin = client(brokers).admin();
  await admin.connect();
  try {
    await admin.createTopics({
      topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }],
      waitForLeaders: true,
    });
  } finally {
    await admin.disconnect();
  }
}

export async function connectProducer(brokers: string[]): Promise<Producer> {
  const producer = client(brokers).producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  return producer;
}

export const messageValue = (seq: number): string => JSON.stringify({ seq, msg: `message ${seq} ${'x'.repeat(60)}` });

/** Sends seq `from` to `to - 1`, spread round-robin over the partitions, in chunks. */
export async function produceRange(
  producer: Producer,
  topic: string,
  from: number,
  to: number,
  chunk = 5000,
): Promise<void> {
  for (let start = from; start < to; start += chunk) {
    const messages = [];
    for (let seq = start; seq < Math.min(to, start + chunk); seq++) {
      messages.push({ partition: seq % PARTITIONS, value: messageValue(seq) });
    }
    await producer.send({ topic, acks: -1, messages });
  }
}

/** Sends [from, to) at about `perSecond`, in small chunks, so a consumer sees a stream. */
export async function produceSteadily(
  producer: Producer,
  topic: string,
  from: number,
  to: number,
  perSecond: number,
  chunk = 500,
): Promise<void> {
  const started = Date.now();
  for (let start = from; start < to; start += chunk) {
    await produceRange(producer, topic, start, Math.min(to, start + chunk), chunk);
    const due = started + ((start + chunk - from) / perSecond) * 1000;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Polls `check` until it is true, or fails after `timeoutMs` with `describe()` in the message. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  describe: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${describe()}`);
    await sleep(100);
  }
}

export async function readAll(store: LogStore, log: string): Promise<LogRecord[]> {
  await store.flush();
  return store.read(log, { from: 0, to: Date.now() + 60_000 });
}

/** What a run must show: every seq once, every log_id distinct. */
export function summarise(records: readonly LogRecord[]): { records: number; logIds: number; seqs: number } {
  return {
    records: records.length,
    logIds: new Set(records.map((record) => record.log_id)).size,
    seqs: new Set(records.map((record) => record.seq)).size,
  };
}
