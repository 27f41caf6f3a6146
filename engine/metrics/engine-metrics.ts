import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Allocator } from './allocator.ts';

/** Records received by the intakes since start, and records discarded per configuration. */
export interface IngestTotals {
  tcp: number;
  kafka: number;
  discarded: readonly { config: string; count: number }[];
}

export interface KafkaPartitionLag {
  config: string;
  partition: number;
  lag: number;
}

/** What the metrics read on a scrape (the intakes' own counters, the store's size). */
export interface MetricsSources {
  ingest(): IngestTotals;
  kafkaLag(): readonly KafkaPartitionLag[];
  /** The log store's size on disk, bytes (LevelDB's estimate over its table files). */
  storeBytes(): Promise<number>;
  /** The malloc the process runs with, read once at start (default: not reported). */
  allocator?: Allocator;
  /** Monotonic milliseconds (default: performance.now). */
  monotonicNow?: () => number;
}

/** The figures the console's System page shows. */
export interface HeadlineMetrics {
  verdicts: { guardStatus: string; count: number }[];
  ingest: { tcp: number; kafka: number; gateway: number };
  storeBytes: number | null;
  eventLoopDelayP99Seconds: number;
}

/** One (site, guard status) pair's verdicts: a plain number, so that counting allocates nothing. */
interface VerdictCell {
  site: string;
  guardStatus: string;
  count: number;
}

/** The store's size is read from LevelDB at most this often. */
const STORE_BYTES_CACHE_MS = 5_000;
/** Event-loop delay is reported over the last whole window of this length. */
const LOOP_WINDOW_MS = 30_000;
/** WAF time per verdict: a site without rules takes microseconds, CRS on a large body milliseconds. */
const WAF_BUCKETS = [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1];

export class EngineMetrics {
  /** This engine's registry (not prom-client's global one: several engines may share a test process). */
  readonly registry = new Registry();
  readonly #sources: MetricsSources;
  readonly #now: () => number;
  readonly #cells = new Map<string, Map<string, VerdictCell>>();
  readonly #waf: Histogram;
  readonly #loop: IntervalHistogram;
  #loopWindowStart: number;
  #loopLast = { p50: 0, p99: 0, max: 0 };
  #storeBytes: { at: number; value: Promise<number> } | undefined;
  #lastStoreBytes: number | null = null;

  constructor(sources: MetricsSources) {
    this.#sources = sources;
    this.#now = sources.monotonicNow ?? (() => performance.now());
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // Verdicts are counted in plain numbers (see VerdictCell) and handed to prom-client on a scrape.
    const cells = this.#cells;
    new Counter({
      name: 'rampart_verdicts_total',
      help: 'Verdicts given, by site and guard_status',
      labelNames: ['site', 'guard_status'] as const,
      registers,
      collect() {
        this.reset();
        for (const bySite of cells.values())
          for (const cell of bySite.values()) this.inc({ site: cell.site, guard_status: cell.guardStatus }, cell.count);
      },
    });
    this.#waf = new Histogram({
      name: 'rampart_waf_seconds',
      help: 'Time the basic rules (WAF) took per verdict, seconds',
      buckets: WAF_BUCKETS,
      registers,
    });
    const totals = (): { tcp: number; kafka: number; gateway: number } => this.#ingestTotals();
    new Counter({
      name: 'rampart_ingest_records_total',
      help: 'Records received since start, by source (tcp: TLS intake, kafka: BROKER consumers, gateway: access records of verdicts)',
      labelNames: ['source'] as const,
      registers,
      collect() {
        this.reset();
        const t = totals();
        this.inc({ source: 'tcp' }, t.tcp);
        this.inc({ source: 'kafka' }, t.kafka);
        this.inc({ source: 'gateway' }, t.gateway);
      },
    });
    new Counter({
      name: 'rampart_ingest_discarded_total',
      help: 'Records that did not parse since start, by log configuration',
      labelNames: ['config'] as const,
      registers,
      collect() {
        this.reset();
        for (const d of sources.ingest().discarded) this.inc({ config: d.config }, d.count);
      },
    });
    new Gauge({
      name: 'rampart_kafka_consumer_lag',
      help: "Messages behind the partition's high watermark, by BROKER configuration and partition (refreshed by the consumer)",
      labelNames: ['config', 'partition'] as const,
      registers,
      collect() {
        this.reset();
        for (const l of sources.kafkaLag()) this.set({ config: l.config, partition: String(l.partition) }, l.lag);
      },
    });
    if (sources.allocator !== undefined)
      new Gauge({
        name: 'rampart_allocator_info',
        help: 'The malloc the engine runs with (jemalloc when the system has it, else the system one): 1 for the one in use',
        labelNames: ['allocator'] as const,
        registers,
      }).set({ allocator: sources.allocator }, 1);
    const storeBytes = (): Promise<number | null> => this.storeBytes().catch(() => null);
    new Gauge({
      name: 'rampart_log_store_bytes',
      help: 'Approximate size of the log store on disk, bytes',
      registers,
      async collect() {
        const bytes = await storeBytes();
        if (bytes !== null) this.set(bytes);
      },
    });
    this.#loop = monitorEventLoopDelay({ resolution: 10 });
    this.#loop.enable();
    this.#loopWindowStart = this.#now();
    const loop = (): { p50: number; p99: number; max: number } => this.#loopDelay();
    new Gauge({
      name: 'rampart_event_loop_delay_seconds',
      help: 'Event-loop delay over the last 30 s window, by quantile (1: the maximum)',
      labelNames: ['quantile'] as const,
      registers,
      collect() {
        const d = loop();
        this.set({ quantile: '0.5' }, d.p50);
        this.set({ quantile: '0.99' }, d.p99);
        this.set({ quantile: '1' }, d.max);
      },
    });
  }

  /** Counts a verdict (the hot path: two map lookups and an increment once the pair has been seen). */
  verdict(site: string, guardStatus: string): void {
    let bySite = this.#cells.get(site);
    if (bySite === undefined) this.#cells.set(site, (bySite = new Map<string, VerdictCell>()));
    const cell = bySite.get(guardStatus);
    if (cell === undefined) bySite.set(guardStatus, { site, guardStatus, count: 1 });
    else cell.count++;
  }

  /** One verdict's WAF inspection time. */
  wafSeconds(seconds: number): void {
    this.#waf.observe(seconds);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in Prometheus's text format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The log store's size, read at most every few seconds however often it is asked. */
  storeBytes(): Promise<number> {
    const now = this.#now();
    if (this.#storeBytes === undefined || now - this.#storeBytes.at >= STORE_BYTES_CACHE_MS) {
      const value = this.#sources.storeBytes().then((bytes) => (this.#lastStoreBytes = bytes));
      this.#storeBytes = { at: now, value };
      // A failed read is not cached: the next call tries again.
      value.catch(() => (this.#storeBytes = undefined));
    }
    return this.#storeBytes.value;
  }

  async headline(): Promise<HeadlineMetrics> {
    const byGuard = new Map<string, number>();
    for (const bySite of this.#cells.values())
      for (const cell of bySite.values())
        byGuard.set(cell.guardStatus, (byGuard.get(cell.guardStatus) ?? 0) + cell.count);
    const storeBytes = await this.storeBytes().catch(() => this.#lastStoreBytes);
    return {
      verdicts: [...byGuard]
        .map(([guardStatus, count]) => ({ guardStatus, count }))
        .sort((a, b) => b.count - a.count || a.guardStatus.localeCompare(b.guardStatus)),
      ingest: this.#ingestTotals(),
      storeBytes,
      eventLoopDelayP99Seconds: this.#loopDelay().p99,
    };
  }

  /** Stops the event-loop monitor. */
  close(): void {
    this.#loop.disable();
  }

  #ingestTotals(): { tcp: number; kafka: number; gateway: number } {
    const { tcp, kafka } = this.#sources.ingest();
    let gateway = 0;
    for (const bySite of this.#cells.values()) for (const cell of bySite.values()) gateway += cell.count;
    return { tcp, kafka, gateway };
  }

  /** The last whole window's delays, or the current window's until one has passed. */
  #loopDelay(): { p50: number; p99: number; max: number } {
    const now = this.#now();
    const current = (): { p50: number; p99: number; max: number } => ({
      p50: this.#loop.percentile(50) / 1e9,
      p99: this.#loop.percentile(99) / 1e9,
      max: this.#loop.max / 1e9,
    });
    if (now - this.#loopWindowStart >= LOOP_WINDOW_MS) {
      this.#loopLast = current();
      this.#loop.reset();
      this.#loopWindowStart = now;
      return this.#loopLast;
    }
    return this.#loopLast.max > 0 ? this.#loopLast : current();
  }
}
