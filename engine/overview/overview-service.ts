import {
  coverRange,
  DistinctSketch,
  parseDimsKey,
  rollupDimsKey,
  type BucketCounts,
  type Granularity,
  type RollupDims,
  type StoredBlock,
  type ValueCounts,
  type ValueField,
} from '#engine/log-store';
import type { Edition } from '#engine/shared';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** What the overview reads from the log store: roll-ups, value roll-ups and (for edges) records. */
export interface OverviewStore {
  rollups(log: string, range: { from: number; to: number }, granularity: Granularity): AsyncIterable<BucketCounts>;
  valueCounts(log: string, range: { from: number; to: number }, fields: readonly ValueField[]): Promise<ValueCounts>;
  distinctValues(
    log: string,
    range: { from: number; to: number },
    field: ValueField,
  ): Promise<{ values: Set<string>; sketch: DistinctSketch | null }>;
  blocks(log: string, range: { from: number; to: number; oldestFirst?: boolean }): AsyncIterable<StoredBlock>;
  span(log: string): Promise<{ oldest: number; newest: number } | null>;
}

export interface OverviewSite {
  id: string;
  name: string;
  domain: string;
  runMode: 'pass' | 'monitor' | 'block';
}

export interface OverviewDeps {
  store: OverviewStore;
  sites: () => readonly OverviewSite[];
  /** Whether a site's plugin is connected (heartbeats within the window). */
  connected: (siteId: string) => boolean;
  /** Basic rules a site has enabled (its groups' levels, and its custom rules). */
  enabledBasicRules: (siteId: string) => number;
  edition: Edition;
}

export interface OverviewRange {
  from: number;
  to: number;
  /** One site, or all. */
  siteId?: string;
}

/** Verdicts that mean the request was not normal traffic. */
const NORMAL_GUARDS: ReadonlySet<string> = new Set(['PASS', 'IGNORE', '']);
const TOKEN_GUARDS: ReadonlySet<string> = new Set(['TOKEN_MISS', 'TOKEN_INVALID', 'TOKEN_EXPIRED']);

export interface Summary {
  requests: number;
  /** Distinct client addresses (exact unless `approximate`). */
  ips: number;
  /** Probe downloads and reports: every detection-related request received. */
  detections: number;
  /** Reports the probe sent back (detection log records). */
  probeReports: number;
  probeDownloads: number;
  /** Reports that judged the client an automation tool. */
  bots: number;
  /** Requests a basic rule matched (in any run mode). */
  webAttacks: number;
  /** Of those, the ones of the Core Rule Set's groups (not custom rules). */
  owaspAttacks: number;
  /** Requests judged BOT. */
  botAttacks: number;
  /** Requests whose verdict was not PASS / IGNORE. */
  abnormal: number;
  approximate: boolean;
}

/**
 * Every count of a log over a range by dimension tuple, each with its time: whole days, hours and
 * minutes from the roll-ups (no coarser than `coarsest`; at the bucket's start), the partial
 * minutes at the edges from their records (at the record's time), so the sum is what a search of
 * the range finds. The range starts at the log's oldest record (deletion keeps the bucket holding
 * its cutoff).
 */
async function overRange(
  store: OverviewStore,
  log: string,
  range: { from: number; to: number },
  visit: (time: number, dimsKey: string, n: number) => void,
  coarsest: Granularity = 'd',
): Promise<void> {
  const span = await store.span(log);
  if (span === null) return;
  const cover = coverRange(Math.max(range.from, span.oldest), range.to, coarsest);
  for (const part of cover.whole) {
    for await (const bucket of store.rollups(log, part, part.granularity)) {
      if (bucket.at < part.from || bucket.at >= part.to) continue;
      for (const [key, n] of Object.entries(bucket.counts)) visit(bucket.at, key, n);
    }
  }
  for (const [from, to] of cover.edges) {
    for await (const block of store.blocks(log, { from, to, oldestFirst: true })) {
      for (let row = 0; row < block.lines.length; row++) {
        const record = block.record(row);
        if (record === undefined || typeof record._timestamp !== 'number') continue;
        if (record._timestamp < from || record._timestamp >= to) continue;
        visit(record._timestamp, rollupDimsKey(log, record), 1);
      }
    }
  }
}

/** Counts by dimension tuple over a range. */
async function dimsCounts(
  store: OverviewStore,
  log: string,
  range: { from: number; to: number },
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  await overRange(store, log, range, (_time, key, n) => counts.set(key, (counts.get(key) ?? 0) + n));
  return counts;
}

/** Counts in buckets of `size` ms by dimensions. */
async function bucketed(
  store: OverviewStore,
  log: string,
  range: { from: number; to: number },
  size: number,
  visit: (bucket: number, dims: RollupDims, n: number) => void,
): Promise<void> {
  const parsed = new Map<string, RollupDims>();
  await overRange(
    store,
    log,
    range,
    (time, key, n) => {
      let dims = parsed.get(key);
      if (dims === undefined) parsed.set(key, (dims = parseDimsKey(key)));
      // Buckets sit on the size's grid (whole minutes, hours...) and roll-ups no longer than the
      // size are read, so each falls in one bucket; the first and last may be partial.
      visit(Math.floor(time / size) * size, dims, n);
    },
    size >= DAY ? 'd' : size >= HOUR ? 'h' : 'm',
  );
}

/** The trend's bucket size for a range: at most a few hundred points whatever its length. */
export function bucketSize(span: number): number {
  if (span <= 2 * HOUR) return MINUTE;
  if (span <= 12 * HOUR) return 5 * MINUTE;
  if (span <= 7 * DAY) return HOUR;
  return 6 * HOUR;
}

const before = (a: { value: string; count: number }, b: { value: string; count: number }): number =>
  b.count - a.count || (a.value < b.value ? -1 : 1);

const sortCounts = (counts: Map<string, number>): { value: string; count: number }[] =>
  [...counts].map(([value, count]) => ({ value, count })).sort(before);

/** The `limit` largest counts, largest first (ties by value): one pass, not a sort of every value. */
function topCounts(counts: Map<string, number>, limit: number): { value: string; count: number }[] {
  const top: { value: string; count: number }[] = [];
  for (const [value, count] of counts) {
    if (top.length === limit) {
      const last = top[limit - 1]!;
      if (count < last.count || (count === last.count && value > last.value)) continue;
      top.pop();
    }
    const item = { value, count };
    let at = top.length;
    while (at > 0 && before(item, top[at - 1]!) < 0) at--;
    top.splice(at, 0, item);
  }
  return top;
}

/**
 * The Security Overview's data (spec 1.1, DESIGN 2d): every number from the minute roll-ups and
 * value roll-ups of the log store, with the partial minutes at a range's edges read from their
 * records, so each equals what a log search of the same range and filter finds.
 */
export class OverviewService {
  readonly #deps: OverviewDeps;

  constructor(deps: OverviewDeps) {
    this.#deps = deps;
  }

  #sites(siteId: string | undefined): readonly OverviewSite[] {
    const all = this.#deps.sites();
    return siteId === undefined ? all : all.filter((s) => s.id === siteId);
  }

  async summary(range: OverviewRange): Promise<Summary> {
    const out: Summary = {
      requests: 0,
      ips: 0,
      detections: 0,
      probeReports: 0,
      probeDownloads: 0,
      bots: 0,
      webAttacks: 0,
      owaspAttacks: 0,
      botAttacks: 0,
      abnormal: 0,
      approximate: false,
    };
    const ips = new Set<string>();
    let ipSketch: DistinctSketch | null = null;
    const store = this.#deps.store;
    // Every site's reads at once (their iterators overlap), then summed in site order.
    const perSite = await Promise.all(
      this.#sites(range.siteId).map((site) =>
        Promise.all([
          dimsCounts(store, `access:${site.id}`, range),
          dimsCounts(store, `detection:${site.id}`, range),
          dimsCounts(store, `probe:${site.id}`, range),
          store.distinctValues(`access:${site.id}`, range, 'src_ip'),
        ]),
      ),
    );
    for (const [access, detection, probe, addresses] of perSite) {
      for (const [key, n] of access) {
        const dims = parseDimsKey(key);
        out.requests += n;
        if (dims.attack_group !== '') {
          out.webAttacks += n;
          if (dims.attack_group !== 'custom') out.owaspAttacks += n;
        }
        if (dims.guard_status === 'BOT') out.botAttacks += n;
        if (!NORMAL_GUARDS.has(dims.guard_status)) out.abnormal += n;
      }
      for (const [key, n] of detection) {
        out.probeReports += n;
        if (parseDimsKey(key).bot_type !== '') out.bots += n;
      }
      for (const n of probe.values()) out.probeDownloads += n;
      if (addresses.sketch !== null) (ipSketch ??= new DistinctSketch()).merge(addresses.sketch);
      for (const ip of addresses.values) ips.add(ip);
    }
    // Exact while every site kept all its addresses; a sketch's estimate (1.6 % error) otherwise.
    if (ipSketch === null) out.ips = ips.size;
    else {
      for (const ip of ips) ipSketch.add(ip);
      out.ips = ipSketch.estimate();
      out.approximate = true;
    }
    out.detections = out.probeReports + out.probeDownloads;
    return out;
  }

  /** The pies and bars: verdicts, bot types, browser classes, sites, attack types, bot security, list requests. */
  async distribution(range: OverviewRange): Promise<{
    verdicts: { value: string; count: number }[];
    botTypes: { value: string; count: number }[];
    browserTypes: { value: string; count: number }[];
    sites: { value: string; count: number }[];
    attackTypes: { value: string; count: number }[];
    botSecurity: { normal: number; bot: number; unclassified: number };
    lists: { pass: number; block: number };
    approximate: boolean;
  }> {
    const verdicts = new Map<string, number>();
    const attackTypes = new Map<string, number>();
    const sites = new Map<string, number>();
    const botTypes = new Map<string, number>();
    const browserTypes = new Map<string, number>();
    const botSecurity = { normal: 0, bot: 0, unclassified: 0 };
    const lists = { pass: 0, block: 0 };
    let approximate = false;
    const add = (map: Map<string, number>, key: string, n: number) => map.set(key, (map.get(key) ?? 0) + n);
    const store = this.#deps.store;
    const sitesOf = this.#sites(range.siteId);
    const perSite = await Promise.all(
      sitesOf.map((site) =>
        Promise.all([
          dimsCounts(store, `access:${site.id}`, range),
          store.valueCounts(`access:${site.id}`, range, ['bot_type', 'ua_classification', 'list_result']),
        ]),
      ),
    );
    for (const [index, [access, values]] of perSite.entries()) {
      const site = sitesOf[index]!;
      let requests = 0;
      for (const [key, n] of access) {
        const dims = parseDimsKey(key);
        requests += n;
        add(verdicts, dims.guard_status || 'PASS', n);
        if (dims.attack_group !== '') add(attackTypes, dims.attack_group, n);
        if (dims.guard_status === 'BOT') botSecurity.bot += n;
        else if (TOKEN_GUARDS.has(dims.guard_status)) botSecurity.unclassified += n;
        else botSecurity.normal += n;
      }
      if (requests > 0) add(sites, site.id, requests);
      for (const [value, n] of values.fields.get('bot_type') ?? []) add(botTypes, value, n);
      for (const [value, n] of values.fields.get('ua_classification') ?? []) add(browserTypes, value, n);
      for (const [value, n] of values.fields.get('list_result') ?? []) {
        if (value === 'pass') lists.pass += n;
        else if (value === 'block') lists.block += n;
      }
      if (values.approximate.length > 0) approximate = true;
    }
    return {
      verdicts: sortCounts(verdicts),
      botTypes: sortCounts(botTypes),
      browserTypes: sortCounts(browserTypes),
      sites: sortCounts(sites),
      attackTypes: sortCounts(attackTypes),
      botSecurity,
      lists,
      approximate,
    };
  }

  /** Total, abnormal and web-attack requests per bucket (the bucket size chosen from the range). */
  async trend(range: OverviewRange): Promise<{
    bucketMs: number;
    buckets: { at: number; total: number; abnormal: number; webAttacks: number }[];
  }> {
    const size = bucketSize(range.to - range.from);
    const buckets = new Map<number, { at: number; total: number; abnormal: number; webAttacks: number }>();
    for (let at = Math.floor(range.from / size) * size; at < range.to; at += size)
      buckets.set(at, { at, total: 0, abnormal: 0, webAttacks: 0 });
    await Promise.all(
      this.#sites(range.siteId).map((site) =>
        bucketed(this.#deps.store, `access:${site.id}`, range, size, (at, dims, n) => {
          const bucket = buckets.get(at);
          if (bucket === undefined) return;
          bucket.total += n;
          if (!NORMAL_GUARDS.has(dims.guard_status)) bucket.abnormal += n;
          if (dims.attack_group !== '') bucket.webAttacks += n;
        }),
      ),
    );
    return { bucketMs: size, buckets: [...buckets.values()] };
  }

  /** The top values of a ranking field, most records first. */
  async ranking(
    range: OverviewRange,
    field: ValueField,
    limit: number,
  ): Promise<{ items: { value: string; count: number }[]; approximate: boolean }> {
    const totals = new Map<string, number>();
    let approximate = false;
    const log = field === 'referrer_path' ? 'detection' : 'access';
    const perSite = await Promise.all(
      this.#sites(range.siteId).map((site) => this.#deps.store.valueCounts(`${log}:${site.id}`, range, [field])),
    );
    for (const values of perSite) {
      for (const [value, n] of values.fields.get(field) ?? []) totals.set(value, (totals.get(value) ?? 0) + n);
      if (values.approximate.includes(field)) approximate = true;
    }
    return { items: topCounts(totals, limit), approximate };
  }

  /** Edition B's site counters. */
  sitesStatus(siteId?: string): {
    protected: number;
    connectedOn: number;
    connectedOff: number;
    enabledBasicRules: number;
  } {
    const sites = this.#sites(siteId);
    let connectedOn = 0;
    let connectedOff = 0;
    let enabledBasicRules = 0;
    for (const site of sites) {
      if (this.#deps.connected(site.id)) {
        if (site.runMode === 'pass') connectedOff += 1;
        else connectedOn += 1;
      }
      enabledBasicRules += this.#deps.enabledBasicRules(site.id);
    }
    return { protected: sites.length, connectedOn, connectedOff, enabledBasicRules };
  }
}
