import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../support/api-client.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { kafkaMissing, startKafkaBroker, type KafkaBroker } from '../../support/kafka-broker.ts';
import { skipAllWithout } from '../../support/skip.ts';
import { connectProducer, createTopic, until } from './support.ts';

// A BROKER configuration made in the console API reads its topic as soon as it is saved (SASL
// SCRAM-SHA-256 here): parsed records in its log, every message in the raw log with whether it
// parsed, state and lag and the failures in its status; deleting it stops the consumer.

const reason = kafkaMissing();

describe('a BROKER log configuration in a running engine', () => {
  skipAllWithout(reason);

  let broker: KafkaBroker | undefined;
  let engine: TestEngine | undefined;
  let admin: ApiClient;

  beforeAll(async () => {
    if (reason !== undefined) return;
    broker = await startKafkaBroker('4.1.0');
    engine = await startTestEngine({}, { ruleSetLocations: [] });
    admin = new ApiClient(engine.url);
    await admin.setup('root@example.com', 'Kettle#Blue7');
  }, 600_000);

  afterAll(async () => {
    await engine?.dispose();
    await broker?.stop();
  }, 120_000);

  it(
    'consumes its topic once saved, parses into its log and the raw log, and reports state and lag',
    { timeout: 180_000 },
    async () => {
      const topic = 'app-events';
      await createTopic([broker!.address], topic);
      const producer = await connectProducer([broker!.address]);
      await producer.send({
        topic,
        messages: [
          ...Array.from({ length: 500 }, (_, i) => ({
            value: JSON.stringify({ ts: '2026-11-20 10:00:00', ip: `10.0.0.${i % 250}`, user: `u${i}`, status: 200 }),
          })),
          { value: JSON.stringify({ ts: '2026-11-20 10:00:01', user: 'no-ip' }) },
          { value: '{not json' },
        ],
      });
      await producer.disconnect();

      const created = await admin.request<{ id: string; broker: { passwordSet: boolean } }>('POST', '/log-configs', {
        name: 'app events',
        method: 'broker',
        broker: {
          address: broker!.saslAddress,
          topic,
          account: 'alice',
          password: 'alice-secret',
          mechanism: 'scram-sha-256',
        },
        templateType: 'json',
        time: { mode: 'extract', format: 'YYYY-MM-DD hh:mm:ss', field: 'ts' },
        timezone: 'UTC',
        fields: [
          { kind: 'json', name: 'src_ip', source: 'ip', type: 'string', required: true },
          { kind: 'json', name: 'user', source: 'user', type: 'string', required: false },
          { kind: 'json', name: 'status', source: 'status', type: 'integer', required: false },
        ],
        keyFields: { ip: 'src_ip', user: 'user' },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id;
      expect(created.body.broker.passwordSet).toBe(true);
      expect(created.text).not.toContain('alice-secret');

      type Status = {
        received: number;
        parsed: number;
        discarded: number;
        kafka: { state: string; lag: number | null };
        failed: { code: string; logId: string | null }[];
      };
      let last: Status | undefined;
      const status = async (): Promise<Status> =>
        (last = (await admin.request<Status>('GET', `/log-configs/${id}/status`)).body);
      await until(
        async () => (await status()).received >= 502,
        90_000,
        () => JSON.stringify(last),
      );
      const done = await status();
      expect(done).toMatchObject({ received: 502, parsed: 500, discarded: 2, kafka: { state: 'connected' } });
      expect(done.failed.map((f) => f.code).sort()).toEqual(['json_malformed', 'required_field_missing']);
      expect(done.failed[0]?.logId).toMatch(new RegExp(`^${topic}-\\d-\\d+$`));

      const search = async (log: string, query: string): Promise<Record<string, unknown>[]> => {
        const found = await admin.request<{ records: { record: Record<string, unknown> }[] }>('POST', '/logs/search', {
          log,
          range: { all: true },
          query,
          limit: 500,
        });
        expect(found.status, found.text).toBe(200);
        return found.body.records.map((r) => r.record);
      };
      const byUser = await search(`custom:${id}`, 'user:u7');
      expect(byUser).toHaveLength(1);
      expect(byUser[0]).toMatchObject({ src_ip: '10.0.0.7', user: 'u7', status: 200, parsed: 1 });
      expect(String(byUser[0]?.log_id)).toMatch(/^app-events-\d-\d+$/);
      expect(await search('raw', `log_setting_id:${id} AND parsed:0`)).toHaveLength(2);
      await until(
        async () => (await status()).kafka.lag === 0,
        30_000,
        () => JSON.stringify(last?.kafka),
      );

      expect((await admin.request('DELETE', `/log-configs/${id}`)).status).toBe(204);
      expect((await search(`custom:${id}`, 'user:u7')).length).toBe(1);
    },
  );
});
