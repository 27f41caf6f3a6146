import { describe, expect, it } from 'vitest';
import { EngineMetrics, healthParts, type HealthSources, type MetricsSources } from '#engine/metrics';

function metricsWith(overrides: Partial<MetricsSources> = {}): { metrics: EngineMetrics; clock: { ms: number } } {
  const clock = { ms: 0 };
  const metrics = new EngineMetrics({
    ingest: () => ({ tcp: 0, kafka: 0, discarded: [] }),
    kafkaLag: () => [],
    storeBytes: () => Promise.resolve(0),
    monotonicNow: () => clock.ms,
    ...overrides,
  });
  return { metrics, clock };
}

const healthy: HealthSources = {
  gateway: () => ({ listening: true, port: 9081 }),
  intake: () => ({ port: 5514, listening: true }),
  kafka: () => [],
  storeBytes: () => Promise.resolve(1000),
  volume: () => Promise.resolve({ freeBytes: 50, totalBytes: 100 }),
  budget: { minFreeRatio: 0.1, maxBytes: undefined },
};

describe('EngineMetrics', () => {
  it('sums the verdicts of every site per guard status, most first', async () => {
    const { metrics } = metricsWith();
    metrics.verdict('a', 'PASS');
    metrics.verdict('b', 'PASS');
    metrics.verdict('a', 'BLOCKED_BY_WAF');
    const headline = await metrics.headline();
    expect(headline.verdicts).toEqual([
      { guardStatus: 'PASS', count: 2 },
      { guardStatus: 'BLOCKED_BY_WAF', count: 1 },
    ]);
    expect(headline.ingest.gateway).toBe(3);
    metrics.close();
  });

  it('reads the store size at most every 5 s, and reads again after a failure', async () => {
    let reads = 0;
    let fail = false;
    const { metrics, clock } = metricsWith({
      storeBytes: () => {
        reads++;
        return fail ? Promise.reject(new Error('closed')) : Promise.resolve(reads * 100);
      },
    });
    expect(await metrics.storeBytes()).toBe(100);
    clock.ms = 4_999;
    expect(await metrics.storeBytes()).toBe(100);
    clock.ms = 5_000;
    fail = true;
    await expect(metrics.storeBytes()).rejects.toThrow('closed');
    fail = false;
    expect(await metrics.storeBytes()).toBe(300);
    expect(reads).toBe(3);
    metrics.close();
  });

  it('labels the Kafka lag by configuration and partition', async () => {
    const { metrics } = metricsWith({ kafkaLag: () => [{ config: 'k1', partition: 2, lag: 42 }] });
    expect(await metrics.text()).toContain('rampart_kafka_consumer_lag{config="k1",partition="2"} 42\n');
    metrics.close();
  });
  it('names the allocator it was given, and none when it was given none', async () => {
    const told = metricsWith({ allocator: 'jemalloc' }).metrics;
    const untold = metricsWith().metrics;
    expect(await told.text()).toMatch(/^rampart_allocator_info\{allocator="jemalloc"\} 1$/m);
    expect(await untold.text()).not.toContain('rampart_allocator_info');
    told.close();
    untold.close();
  });
});

describe('healthParts', () => {
  it('says every part is up when it is', async () => {
    expect(await healthParts(healthy)).toEqual({
      gateway: { state: 'listening', port: 9081 },
      intake: { state: 'listening', port: 5514 },
      kafka: [],
      store: { state: 'open', bytes: 1000, message: null },
      disk: { state: 'ok', freeRatio: 0.5, minFreeRatio: 0.1, maxBytes: null },
      proxy: [],
    });
  });

  it("lists the reverse proxy's site ports, a port that could not be had as down with the reason", async () => {
    const parts = await healthParts({
      ...healthy,
      proxy: () => [
        { port: 8080, tls: false, listening: true, error: null },
        { port: 443, tls: true, listening: false, error: 'port 443 is in use by another program' },
      ],
    });
    expect(parts.proxy).toEqual([
      { port: 8080, tls: false, state: 'listening', message: null },
      { port: 443, tls: true, state: 'down', message: 'port 443 is in use by another program' },
    ]);
  });

  it('tells an intake turned off from one whose port could not be had', async () => {
    const off = await healthParts({ ...healthy, intake: () => ({ port: 0, listening: false }) });
    const down = await healthParts({ ...healthy, intake: () => ({ port: 5514, listening: false }) });
    expect([off.intake.state, down.intake.state]).toEqual(['off', 'down']);
  });

  it("gives a Kafka consumer that retries, or was refused, as an error with the consumer's message", async () => {
    const parts = await healthParts({
      ...healthy,
      kafka: () => [
        { config: 'a', name: 'A', state: 'connected', lastError: 'an old error' },
        { config: 'b', name: 'B', state: 'retrying', lastError: 'connect ECONNREFUSED' },
        { config: 'c', name: 'C', state: 'stopped', lastError: 'not allowed' },
        { config: 'd', name: 'D', state: 'stopped', lastError: null },
      ],
    });
    expect(parts.kafka.map((k) => [k.state, k.message])).toEqual([
      ['connected', null],
      ['error', 'connect ECONNREFUSED'],
      ['error', 'not allowed'],
      ['stopped', null],
    ]);
  });

  it('is over the disk budget when the volume is short of free space or the store over its cap', async () => {
    const short = await healthParts({ ...healthy, volume: () => Promise.resolve({ freeBytes: 5, totalBytes: 100 }) });
    const capped = await healthParts({ ...healthy, budget: { minFreeRatio: 0.1, maxBytes: 999 } });
    expect([short.disk.state, capped.disk.state]).toEqual(['over', 'over']);
  });

  it('says the store is in error, with the reason, when its size cannot be read', async () => {
    const parts = await healthParts({
      ...healthy,
      storeBytes: () => Promise.reject(new Error('Database is not open')),
    });
    expect(parts.store).toEqual({ state: 'error', bytes: null, message: 'Database is not open' });
  });
});
