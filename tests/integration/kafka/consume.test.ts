import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  KafkaIntake,
  groupIdOf,
  type BrokerConfig,
  type KafkaConfigCounts,
  type KafkaStore,
} from '../../../engine/intake/kafka-intake.ts';
import { LogStore } from '#engine/log-store';
import { kafkaMissing, startKafkaBroker, type KafkaBroker } from '../../support/kafka-broker.ts';
import { skipAllWithout } from '../../support/skip.ts';
import {
  client,
  connectProducer,
  createTopic,
  produceRange,
  produceSteadily,
  readAll,
  sleep,
  summarise,
  testParseConfig,
  until,
} from './support.ts';

// A real broker of each version: 100,000 messages into a real LogStore, SASL logins, and a
// configuration removed while its messages flow.

const TOTAL = 100_000;
const reason = kafkaMissing();

for (const version of ['4.1.0', '3.9.1']) {
  describe(`Kafka intake against a real ${version} broker`, () => {
    skipAllWithout(reason);

    let broker: KafkaBroker | undefined;
    let dir = '';
    let store: LogStore;
    const intakes: KafkaIntake[] = [];

    const intakeFor = (options: Partial<ConstructorParameters<typeof KafkaIntake>[0]> = {}): KafkaIntake => {
      const intake = new KafkaIntake({ store, lagRefreshMs: 500, sessionTimeoutMs: 6000, ...options });
      intakes.push(intake);
      return intake;
    };
    const config = (id: string, topic: string, extra: Partial<BrokerConfig> = {}): BrokerConfig => ({
      id,
      brokers: [broker!.address],
      topic,
      parse: testParseConfig(id),
      ...extra,
    });

    beforeAll(async () => {
      if (reason !== undefined) return;
      broker = await startKafkaBroker(version);
      dir = mkdtempSync(join(tmpdir(), 'rampart-kafka-'));
      store = await LogStore.open(dir);
    }, 600_000);

    afterEach(async () => {
      await Promise.all(intakes.splice(0).map((intake) => intake.close()));
    });

    afterAll(async () => {
      await store?.close();
      await broker?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 120_000);

    it('stores 100,000 messages exactly once, parsed, with distinct log ids', async () => {
      const topic = 'bulk';
      await createTopic([broker!.address], topic);
      const producer = await connectProducer([broker!.address]);
      await produceRange(producer, topic, 0, TOTAL);
      await producer.disconnect();

      const intake = intakeFor();
      await intake.apply([config('cfg_bulk', topic)]);
      // The console's counts agree at every look: a message is received when it is written.
      const disagreeing: string[] = [];
      await until(
        () => {
          const now = intake.counts().cfg_bulk!;
          if (now.received !== now.stored + now.discarded) disagreeing.push(JSON.stringify(now));
          return now.stored >= TOTAL;
        },
        120_000,
        () => JSON.stringify(intake.counts().cfg_bulk),
      );
      expect(disagreeing.slice(0, 1)).toEqual([]);
      await intake.refreshLag();
      const counts = intake.counts().cfg_bulk!;
      expect(counts).toMatchObject({ state: 'connected', received: TOTAL, stored: TOTAL, discarded: 0, totalLag: 0 });

      const records = await readAll(store, 'custom:cfg_bulk');
      expect(summarise(records)).toEqual({ records: TOTAL, logIds: TOTAL, seqs: TOTAL });
      const first = records.find((record) => record.seq === 4)!;
      expect(first).toMatchObject({ parsed: 1, log_setting_id: 'cfg_bulk', log_id: `${topic}-1-1` });
      expect(first.msg).toMatch(/^message 4 x+$/);

      // Kafka's committed offsets follow the stored ones, so other tools see the group caught up.
      const admin = client([broker!.address]).admin();
      await admin.connect();
      try {
        const high = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p.high]));
        expect([...high.values()].every((offset) => Number(offset) > 0)).toBe(true);
        let committed = new Map<number, string>();
        await until(
          async () => {
            const [entry] = await admin.fetchOffsets({ groupId: groupIdOf('cfg_bulk'), topics: [topic] });
            committed = new Map((entry?.partitions ?? []).map((p) => [p.partition, p.offset]));
            return [...high].every(([partition, offset]) => committed.get(partition) === offset);
          },
          10_000,
          () => `committed ${JSON.stringify([...committed])}, high watermarks ${JSON.stringify([...high])}`,
        );
      } finally {
        await admin.disconnect();
      }
    });

    it('logs in with SASL PLAIN and SCRAM-SHA-256', async () => {
      const topic = 'sasl';
      await createTopic([broker!.address], topic);
      const producer = await connectProducer([broker!.address]);
      await produceRange(producer, topic, 0, 1000);
      await producer.disconnect();

      const intake = intakeFor();
      const login = { brokers: [broker!.saslAddress], username: 'alice', password: 'alice-secret' };
      await intake.apply([
        config('cfg_plain', topic, { ...login, mechanism: 'plain' }),
        config('cfg_scram', topic, { ...login, mechanism: 'scram-sha-256' }),
      ]);
      await until(
        () => intake.counts().cfg_plain!.stored === 1000 && intake.counts().cfg_scram!.stored === 1000,
        60_000,
        () => JSON.stringify(intake.counts()),
      );
      for (const id of ['cfg_plain', 'cfg_scram']) {
        expect(summarise(await readAll(store, `custom:${id}`))).toEqual({ records: 1000, logIds: 1000, seqs: 1000 });
      }
    });

    it('shows a refused password as retrying with its error, without crashing', async () => {
      const intake = intakeFor({ restartDelayMs: { initial: 200, max: 1000 } });
      await intake.apply([
        config('cfg_wrong', 'sasl', {
          brokers: [broker!.saslAddress],
          username: 'alice',
          password: 'not-her-password',
          mechanism: 'scram-sha-256',
        }),
      ]);
      await until(
        () => intake.counts().cfg_wrong!.restarts >= 1,
        30_000,
        () => JSON.stringify(intake.counts().cfg_wrong),
      );
      const counts = intake.counts().cfg_wrong!;
      expect(counts.state).toBe('retrying');
      expect(counts.lastError).toMatch(/auth/i);
      expect(counts.stored).toBe(0);
      await intake.apply([]);
      expect(intake.counts()).toEqual({});
    });

    it('stops a configuration removed while data flows, keeping what it stored, and resumes without duplicates', async () => {
      const topic = 'removed';
      const total = 30_000;
      await createTopic([broker!.address], topic);
      const producer = await connectProducer([broker!.address]);
      const producing = produceSteadily(producer, topic, 0, total, 10_000);

      const intake = intakeFor();
      await intake.apply([config('cfg_removed', topic)]);
      await until(
        () => intake.counts().cfg_removed!.stored >= 5000,
        60_000,
        () => JSON.stringify(intake.counts().cfg_removed),
      );
      const before = intake.counts().cfg_removed!;
      await intake.apply([]);
      const removedAt = summarise(await readAll(store, 'custom:cfg_removed'));
      expect(removedAt.records).toBeGreaterThanOrEqual(before.stored);
      expect(removedAt).toEqual({ records: removedAt.records, logIds: removedAt.records, seqs: removedAt.records });
      expect(removedAt.records).toBeLessThan(total);

      await producing;
      await producer.disconnect();
      await intake.apply([config('cfg_removed', topic)]);
      await until(
        async () => (await readAll(store, 'custom:cfg_removed')).length >= total,
        60_000,
        () => JSON.stringify(intake.counts().cfg_removed),
      );
      expect(summarise(await readAll(store, 'custom:cfg_removed'))).toEqual({
        records: total,
        logIds: total,
        seqs: total,
      });
    });

    it('loses nothing and stores nothing twice when a write fails while later batches are in flight', async () => {
      const topic = 'failing';
      const total = 60_000;
      await createTopic([broker!.address], topic);
      const producer = await connectProducer([broker!.address]);
      await produceRange(producer, topic, 0, total);
      await producer.disconnect();

      // The store's failure as LevelDB's: a failed write loses what it held, offsets included.
      let flushes = 0;
      let failed = 0;
      let held: (() => void)[] = [];
      const failing: KafkaStore = {
        append: (log, record, encoded) => held.push(() => store.append(log, record, encoded)),
        putMeta: (name, value) => held.push(() => store.putMeta(name, value)),
        getMeta: (name) => store.getMeta(name),
        backlog: () => store.backlog(),
        flush: async () => {
          const writing = held;
          held = [];
          if (++flushes === 12) {
            // Slow to fail, as a write to a failing disk is: later batches arrive meanwhile.
            await sleep(500);
            failed += 1;
            throw new Error('disk on fire');
          }
          for (const put of writing) put();
          await store.flush();
        },
      };
      // Small fetches: many batches per partition, so later ones are in flight when the write fails.
      const intake = intakeFor({
        store: failing,
        restartDelayMs: { initial: 100, max: 500 },
        maxBytesPerPartition: 64 * 1024,
      });
      await intake.apply([config('cfg_failing', topic)]);
      await until(
        async () => (await readAll(store, 'custom:cfg_failing')).length >= total,
        60_000,
        () => JSON.stringify(intake.counts().cfg_failing),
      );
      expect(failed).toBe(1);
      // The consumer started again from the stored offsets.
      expect(intake.counts().cfg_failing!.restarts).toBeGreaterThanOrEqual(1);
      expect(summarise(await readAll(store, 'custom:cfg_failing'))).toEqual({
        records: total,
        logIds: total,
        seqs: total,
      });
    });

    it('loses nothing, stores nothing twice and counts everything when its thread dies mid-stream', async () => {
      const topic = 'thread-ends';
      const total = 60_000;
      await createTopic([broker!.address], topic);
      const producer = await connectProducer([broker!.address]);
      await produceRange(producer, topic, 0, total);
      await producer.disconnect();
      // Small fetches: batches are in flight, handed over and not yet written, when the thread ends.
      const intake = intakeFor({ restartDelayMs: { initial: 100, max: 500 }, maxBytesPerPartition: 64 * 1024 });
      await intake.apply([config('cfg_thread', topic)]);
      const counts = (): KafkaConfigCounts => intake.counts().cfg_thread!;
      for (const at of [5_000, 25_000]) {
        await until(
          () => counts().stored >= at,
          60_000,
          () => JSON.stringify(counts()),
        );
        expect(await intake.endThread('cfg_thread')).toBe(true);
      }
      await until(
        () => counts().stored >= total,
        90_000,
        () => JSON.stringify(counts()),
      );
      expect(counts()).toMatchObject({ received: total, stored: total, discarded: 0, restarts: 2 });
      expect(summarise(await readAll(store, 'custom:cfg_thread'))).toEqual({
        records: total,
        logIds: total,
        seqs: total,
      });
    });

    it("resumes from the offsets stored with the records, not from Kafka's committed ones", async () => {
      const topic = 'rewind';
      await createTopic([broker!.address], topic);
      const producer = await connectProducer([broker!.address]);
      await produceRange(producer, topic, 0, 3000);
      const intake = intakeFor();
      await intake.apply([config('cfg_rewind', topic)]);
      await until(
        () => intake.counts().cfg_rewind!.stored === 3000,
        60_000,
        () => JSON.stringify(intake.counts().cfg_rewind),
      );
      await intake.apply([]);

      // As after a crash between the store's write and Kafka's commit, only further behind.
      const admin = client([broker!.address]).admin();
      await admin.connect();
      await admin.resetOffsets({ groupId: groupIdOf('cfg_rewind'), topic, earliest: true });
      await admin.disconnect();
      await produceRange(producer, topic, 3000, 4000);
      await producer.disconnect();

      await intake.apply([config('cfg_rewind', topic)]);
      await until(
        () => intake.counts().cfg_rewind!.stored === 1000,
        60_000,
        () => JSON.stringify(intake.counts().cfg_rewind),
      );
      expect(summarise(await readAll(store, 'custom:cfg_rewind'))).toEqual({ records: 4000, logIds: 4000, seqs: 4000 });
      expect(intake.counts().cfg_rewind).toMatchObject({ received: 1000, stored: 1000 });
    });

    it('pauses while the store is behind and goes on within a second of it catching up', async () => {
      const topic = 'paced';
      await createTopic([broker!.address], topic);
      // The store reports a backlog above the mark until told otherwise: the first batch pauses fetching.
      let behind = true;
      const lagging = {
        append: store.append.bind(store),
        putMeta: store.putMeta.bind(store),
        getMeta: store.getMeta.bind(store),
        flush: store.flush.bind(store),
        backlog: () => (behind ? { records: 1_000_000, bytes: 0 } : store.backlog()),
      };
      const intake = intakeFor({ store: lagging, highWaterMark: 10, lowWaterMark: 5, backlogPollMs: 20 });
      await intake.apply([config('cfg_paced', topic)]);
      const producer = await connectProducer([broker!.address]);
      await produceRange(producer, topic, 0, 300);
      await until(
        () => intake.counts().cfg_paced!.paused && intake.counts().cfg_paced!.stored === 300,
        30_000,
        () => JSON.stringify(intake.counts().cfg_paced),
      );
      // Produced while paused: not read until the store catches up.
      await produceRange(producer, topic, 300, 600);
      await producer.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(intake.counts().cfg_paced!.stored).toBe(300);
      // Caught up: the rest is read about at once, not after kafkajs's wait between looks at paused
      // partitions (5 s by default).
      behind = false;
      const caughtUp = Date.now();
      await until(
        () => intake.counts().cfg_paced!.stored === 600,
        30_000,
        () => JSON.stringify(intake.counts().cfg_paced),
      );
      expect(Date.now() - caughtUp).toBeLessThan(2_000);
      expect(intake.counts().cfg_paced!.paused).toBe(false);
      expect(summarise(await readAll(store, 'custom:cfg_paced'))).toEqual({ records: 600, logIds: 600, seqs: 600 });
    });

    it(
      'stores what the engine adds to each record, and stops adding it when the configuration no longer asks',
      { timeout: 120_000 },
      async () => {
        const topic = 'enriched';
        await createTopic([broker!.address], topic);
        const producer = await connectProducer([broker!.address]);
        await produceRange(producer, topic, 0, 50);
        const intake = intakeFor();
        const enrich = (record: Record<string, unknown>): void => {
          record.country = 'ZZ';
        };
        await intake.apply([config('cfg_enrich', topic, { enrich })]);
        await until(
          () => intake.counts().cfg_enrich!.stored === 50,
          60_000,
          () => JSON.stringify(intake.counts().cfg_enrich),
        );
        // The same connection with the lookup turned off: the parsing is swapped in place.
        await intake.apply([config('cfg_enrich', topic)]);
        await produceRange(producer, topic, 50, 100);
        await producer.disconnect();
        await until(
          () => intake.counts().cfg_enrich!.stored === 100,
          60_000,
          () => JSON.stringify(intake.counts().cfg_enrich),
        );
        const records = await readAll(store, 'custom:cfg_enrich');
        const country = (from: number, to: number): unknown[] => [
          ...new Set(records.filter((r) => (r.seq as number) >= from && (r.seq as number) < to).map((r) => r.country)),
        ];
        expect(summarise(records)).toEqual({ records: 100, logIds: 100, seqs: 100 });
        expect(country(0, 50)).toEqual(['ZZ']);
        expect(country(50, 100)).toEqual([undefined]);
      },
    );

    it('counts a flood of messages without a value, keeping only the last ones', async () => {
      const topic = 'empty-flood';
      const total = 50_000;
      await createTopic([broker!.address], topic, 1);
      const producer = await connectProducer([broker!.address]);
      for (let at = 0; at < total; at += 10_000)
        await producer.send({ topic, messages: Array.from({ length: 10_000 }, () => ({ value: null })) });
      await producer.send({ topic, messages: [{ value: '{"seq":1}' }] });
      await producer.disconnect();
      const intake = intakeFor();
      await intake.apply([config('cfg_flood', topic)]);
      await until(
        () => intake.counts().cfg_flood!.received === total + 1,
        60_000,
        () => JSON.stringify({ ...intake.counts().cfg_flood, recentFailures: undefined }),
      );
      const counts = intake.counts().cfg_flood!;
      expect(counts).toMatchObject({ stored: 1, discarded: total, state: 'connected' });
      expect(counts.recentFailures).toHaveLength(100);
      expect(counts.recentFailures.at(-1)).toMatchObject({ logId: `${topic}-0-${total - 1}`, code: 'empty_message' });
    });

    it('counts messages without a value or that do not parse, keeping the last ones with their reason', async () => {
      const topic = 'bad';
      await createTopic([broker!.address], topic, 1);
      const producer = await connectProducer([broker!.address]);
      await producer.send({
        topic,
        messages: [{ value: '{"seq":1}' }, { value: null }, { value: 'not json' }, { value: '{"msg":"no seq"}' }],
      });
      await producer.disconnect();
      const intake = intakeFor();
      await intake.apply([config('cfg_bad', topic)]);
      await until(
        () => intake.counts().cfg_bad!.received === 4,
        60_000,
        () => JSON.stringify(intake.counts().cfg_bad),
      );
      const counts = intake.counts().cfg_bad!;
      expect(counts).toMatchObject({ stored: 1, discarded: 3 });
      expect(counts.recentFailures.map((failure) => [failure.logId, failure.code])).toEqual([
        [`${topic}-0-1`, 'empty_message'],
        [`${topic}-0-2`, expect.any(String)],
        [`${topic}-0-3`, 'required_field_missing'],
      ]);
    });
  });
}
