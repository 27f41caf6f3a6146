/**
 * The engine's Kafka path alone, as a process a test can SIGKILL: opens the log store in
 * `<dataDir>` and a KafkaIntake with one configuration, then prints one JSON line every 50 ms
 * (`stored` this run, `offsets` the sum of the stored next offsets, `state`). SIGTERM closes both.
 *
 * usage: consumer-process.ts DATA_DIR BROKER TOPIC CONFIG_ID PARTITIONS
 */
import { LogStore } from '#engine/log-store';
import { KafkaIntake, offsetMetaName } from '../../../engine/intake/kafka-intake.ts';
import { testParseConfig } from './support.ts';

const [dataDir, broker, topic, configId, partitions] = process.argv.slice(2);
if (dataDir === undefined || broker === undefined || topic === undefined || configId === undefined) {
  console.error('usage: consumer-process.ts DATA_DIR BROKER TOPIC CONFIG_ID PARTITIONS');
  process.exit(2);
}

const store = await LogStore.open(dataDir);
const intake = new KafkaIntake({ store, sessionTimeoutMs: 6000, rebalanceTimeoutMs: 10_000 });
await intake.apply([{ id: configId, brokers: [broker], topic, parse: testParseConfig(configId) }]);

const report = async (): Promise<void> => {
  let offsets = 0;
  for (let partition = 0; partition < Number(partitions ?? 1); partition++) {
    offsets += Number((await store.getMeta(offsetMetaName(configId, topic, partition))) ?? 0);
  }
  const counts = intake.counts()[configId];
  const line = { offsets, stored: counts?.stored, replaySkipped: counts?.replaySkipped, state: counts?.state };
  process.stdout.write(`${JSON.stringify(line)}\n`);
};
const timer = setInterval(() => void report(), 50);

process.once('SIGTERM', () => {
  clearInterval(timer);
  void report()
    .then(() => intake.close())
    .then(() => store.close())
    .then(() => process.exit(0));
});
