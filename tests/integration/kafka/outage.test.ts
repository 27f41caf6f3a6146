import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogStore } from '#engine/log-store';
import { KafkaIntake } from '../../../engine/intake/kafka-intake.ts';
import { kafkaMissing, startKafkaBroker, type KafkaBroker } from '../../support/kafka-broker.ts';
import { skipAllWithout } from '../../support/skip.ts';
import {
  connectProducer,
  createTopic,
  produceRange,
  readAll,
  sleep,
  summarise,
  testParseConfig,
  until,
} from './support.ts';

// The broker goes away for 30 s while a configuration consumes, and comes back with its data:
// the intake reports the outage, does not crash, and stores every message exactly once.

const OUTAGE_MS = 30_000;
const BEFORE = 20_000;
const AFTER = 20_000;
const reason = kafkaMissing();

describe('Kafka intake while the 4.1.0 broker is stopped for 30 s', () => {
  skipAllWithout(reason);

  let broker: KafkaBroker | undefined;
  let dir = '';
  let store: LogStore | undefined;
  let intake: KafkaIntake | undefined;

  beforeAll(async () => {
    if (reason !== undefined) return;
    broker = await startKafkaBroker('4.1.0');
    dir = mkdtempSync(join(tmpdir(), 'rampart-kafka-outage-'));
    store = await LogStore.open(dir);
  }, 600_000);

  afterAll(async () => {
    await intake?.close();
    await store?.close();
    await broker?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('loses nothing and duplicates nothing across the outage', { timeout: 240_000 }, async () => {
    const topic = 'outage';
    await createTopic([broker!.address], topic);
    let producer = await connectProducer([broker!.address]);
    await produceRange(producer, topic, 0, BEFORE);
    await producer.disconnect();

    intake = new KafkaIntake({
      store: store!,
      sessionTimeoutMs: 6000,
      lagRefreshMs: 1000,
      restartDelayMs: { initial: 500, max: 5000 },
    });
    await intake.apply([{ id: 'cfg_outage', brokers: [broker!.address], topic, parse: testParseConfig('cfg_outage') }]);
    const counts = () => intake!.counts().cfg_outage!;
    await until(
      () => counts().stored >= BEFORE,
      60_000,
      () => JSON.stringify(counts()),
    );

    await broker!.stop({ keepData: true });
    await until(
      () => counts().state === 'retrying',
      20_000,
      () => JSON.stringify(counts()),
    );
    await sleep(OUTAGE_MS);
    const during = counts();
    expect(during.state).toBe('retrying');
    expect(during.lastError).not.toBeNull();
    expect(during.stored).toBe(BEFORE);
    await broker!.start();

    producer = await connectProducer([broker!.address]);
    await produceRange(producer, topic, BEFORE, BEFORE + AFTER);
    await producer.disconnect();
    await until(
      () => counts().stored >= BEFORE + AFTER,
      120_000,
      () => JSON.stringify(counts()),
    );
    await until(
      () => counts().state === 'connected',
      30_000,
      () => JSON.stringify(counts()),
    );

    const total = BEFORE + AFTER;
    expect(summarise(await readAll(store!, 'custom:cfg_outage'))).toEqual({
      records: total,
      logIds: total,
      seqs: total,
    });
    expect(counts()).toMatchObject({ received: total, stored: total, discarded: 0 });
    console.log(`kafka outage: ${JSON.stringify({ ...counts(), recentFailures: undefined })}`);
  });
});
