/**
 * Engine metrics and health (issue 19, item 6): one prom-client registry per engine (never the
 * global one) with verdicts by site and guard status, WAF time, intake totals, Kafka lag, the log
 * store's size, event-loop delay and Node's default metrics, rendered in Prometheus's text format;
 * and the health parts (gateway, intake, Kafka consumers, store, disk budget). Counting a verdict
 * allocates nothing; everything read from elsewhere is read on a scrape, through ports.
 */
export { allocatorInUse, type Allocator } from './allocator.ts';
export { EngineMetrics } from './engine-metrics.ts';
export type { HeadlineMetrics, IngestTotals, KafkaPartitionLag, MetricsSources } from './engine-metrics.ts';
export { healthParts } from './health.ts';
export type { HealthParts, HealthSources } from './health.ts';
