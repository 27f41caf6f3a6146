/**
 * Log search over the store (docs/DESIGN.md 2a): a page of matching records newest first with a
 * cursor, a histogram, field statistics, one record with its neighbours, a live tail and exports.
 * Every query runs within a budget of time and records examined and says when it stopped early.
 */
import { RampartError, type Clock, type Filter, type TimeRange } from '#engine/shared';
import { INDEXED_FIELDS, parseDimsKey, rowCount, type BlockRows, type LogStore } from '#engine/log-store';
import { QuerySyntaxError, parseQuery } from './query-language.ts';
import { FilterError, compileFilter, scalarText, type CompiledFilter, type Row } from './evaluate.ts';
import {
  decodeCursor,
  encodeCursor,
  newestFirst,
  parseRecordId,
  queryHash,
  recordId,
  type Position,
} from './positions.ts';
import { storedSource, viewSource, type LogView, type Source } from './sources.ts';

export interface SearchBudget {
  /** Wall-clock time a query may take, ms. */
  ms: number;
  /** Records it may examine (read from a block and tested). */
  records: number;
}

export const DEFAULT_BUDGET: SearchBudget = { ms: 5_000, records: 5_000_000 };
export const MAX_PAGE = 500;
/** The longest a search reads records before it lets the engine's other work run (verdicts first). */
const BREATH_MS = 4;
const BREATHE = Symbol('breathe');
const SECOND = 1000;
const MINUTE = 60_000;
const RELATIVE_MS: Record<string, number> = {
  '15m': 15 * MINUTE,
  '1h': 60 * MINUTE,
  '4h': 240 * MINUTE,
  '24h': 1440 * MINUTE,
  '7d': 7 * 1440 * MINUTE,
  '30d': 30 * 1440 * MINUTE,
  '90d': 90 * 1440 * MINUTE,
  '1y': 365 * 1440 * MINUTE,
};
/** Histogram intervals, shortest first; the first that gives at most MAX_BUCKETS buckets is used. */
const INTERVALS = [
  SECOND,
  5 * SECOND,
  10 * SECOND,
  30 * SECOND,
  MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  60 * MINUTE,
  3 * 60 * MINUTE,
  12 * 60 * MINUTE,
  1440 * MINUTE,
  7 * 1440 * MINUTE,
  30 * 1440 * MINUTE,
];
const MAX_BUCKETS = 120;

export interface QueryInput {
  log: string;
  range: TimeRange;
  /** The query box's text (query-language.ts). */
  query?: string | undefined;
  /** Filter pills, ANDed with the query. */
  filter?: Filter | undefined;
}

export interface SearchPage {
  records: { id: string; record: Row }[];
  /** Continues after the last record returned (or examined, when the budget ran out); null at the end. */
  nextCursor: string | null;
  /** The budget ran out before the page was full: more may match further back. */
  partial: boolean;
  examined: number;
  elapsedMs: number;
  plan: 'index' | 'scan';
  range: { from: number; to: number };
}

export interface Histogram {
  interval: number;
  buckets: { start: number; count: number }[];
  total: number;
  partial: boolean;
  source: 'rollups' | 'index' | 'scan';
  range: { from: number; to: number };
}

export interface FieldStat {
  field: string;
  /** Records of the sample that have it. */
  present: number;
  top: { value: string; count: number }[];
}

export interface FieldStats {
  sampled: number;
  fields: FieldStat[];
  partial: boolean;
}

export interface RecordView {
  id: string;
  log: string;
  record: Row;
  /** Records written just after it (oldest first) and just before it (newest first). */
  newer: { id: string; record: Row }[];
  older: { id: string; record: Row }[];
}

interface Resolved {
  log: string;
  source: Source;
  from: number;
  to: number;
  filter: CompiledFilter;
  hash: string;
}

interface Match {
  /** The stored log the record is in (a view's records are in several). */
  log: string;
  position: Position;
  record: Row;
}

const refused = (field: string, message: string, params: Record<string, string | number> = {}): RampartError =>
  new RampartError('VALIDATION_FAILED', `${field}: ${message}`, { field, params });

export class SearchService {
  constructor(
    private readonly deps: {
      store: LogStore;
      clock: Clock;
      /** Logs that are views over stored logs (the raw log), by name. */
      views?: ReadonlyMap<string, LogView>;
    },
  ) {}

  /** What a query on `log` reads: the stored log, or the view of that name. */
  async #source(log: string): Promise<Source> {
    const view = this.deps.views?.get(log);
    return view === undefined ? storedSource(this.deps.store, log) : viewSource(this.deps.store, log, view);
  }

  /** Parses and checks a query: a 400 naming `query` (with the position) or `filter` when it is wrong. */
  async resolve(input: QueryInput): Promise<Resolved> {
    let parsed: Filter | null;
    try {
      parsed = parseQuery(input.query ?? '');
    } catch (error) {
      if (error instanceof QuerySyntaxError) {
        throw refused('query', error.message, {
          reason: 'query_syntax',
          position: error.position,
          expected: error.expected,
        });
      }
      throw error;
    }
    const parts = [parsed, input.filter ?? null].filter((f): f is Filter => f !== null);
    const filter: Filter | null =
      parts.length === 0 ? null : parts.length === 1 ? parts[0]! : { op: 'and', filters: parts };
    const source = await this.#source(input.log);
    let compiled: CompiledFilter;
    try {
      compiled = compileFilter(filter, await source.indexedFields());
    } catch (error) {
      if (error instanceof FilterError)
        throw refused(parsed ? 'query' : 'filter', error.message, { reason: error.reason, ...error.params });
      throw error;
    }
    const now = this.deps.clock.now();
    let from: number;
    let to: number;
    if ('all' in input.range) {
      const span = await source.span();
      from = span?.oldest ?? 0;
      to = Math.max(now, (span?.newest ?? 0) + SECOND) + SECOND;
    } else if ('last' in input.range) {
      to = now + 1;
      from = to - RELATIVE_MS[input.range.last]!;
    } else {
      ({ from, to } = input.range);
    }
    return {
      log: input.log,
      source,
      from,
      to,
      filter: compiled,
      hash: queryHash([input.log, input.range, input.query ?? '', input.filter ?? null]),
    };
  }

  async search(
    input: QueryInput & { cursor?: string | undefined; limit?: number; budget?: Partial<SearchBudget> },
  ): Promise<SearchPage> {
    const q = await this.resolve(input);
    let after: Position | undefined;
    if (input.cursor) {
      const decoded = decodeCursor(input.cursor, q.hash);
      if (decoded === 'malformed')
        throw refused('cursor', 'is not a cursor this engine gave out', { reason: 'cursor_malformed' });
      if (decoded === 'other_query') {
        throw refused('cursor', 'belongs to another query: search again from the first page', {
          reason: 'cursor_other_query',
        });
      }
      after = decoded;
    }
    const limit = Math.min(Math.max(1, input.limit ?? 50), MAX_PAGE);
    const budget = { ...DEFAULT_BUDGET, ...input.budget };
    const started = performance.now();
    const run = this.#matches(q, after, budget, started);
    const records: SearchPage['records'] = [];
    let last: Position | undefined;
    for await (const match of run.matches) {
      records.push({ id: recordId(match.log, match.position), record: match.record });
      last = match.position;
      if (records.length >= limit) break;
    }
    await run.matches.return(undefined);
    const partial = run.state.exhausted;
    const resume = partial ? run.state.lastExamined : records.length >= limit ? last : undefined;
    return {
      records,
      nextCursor: resume ? encodeCursor(q.hash, resume) : null,
      partial,
      examined: run.state.examined,
      elapsedMs: Math.round(performance.now() - started),
      plan: run.plan,
      range: { from: q.from, to: q.to },
    };
  }

  /**
   * The matches newest first, after `after`: driven by the most selective indexed equality term when
   * there is one, by scanning the blocks otherwise. Stops (state.exhausted) when the budget is spent.
   */
  #matches(
    q: Resolved,
    after: Position | undefined,
    budget: SearchBudget,
    started: number,
  ): {
    plan: 'index' | 'scan';
    state: { examined: number; exhausted: boolean; lastExamined: Position | undefined };
    matches: AsyncGenerator<Match>;
  } {
    const state = { examined: 0, exhausted: false, lastExamined: undefined as Position | undefined };
    const source = q.source;
    const plan: 'index' | 'scan' = q.filter.indexTerms.length > 0 ? 'index' : 'scan';
    const overBudget = (): boolean =>
      state.examined >= budget.records || (state.examined % 256 === 0 && performance.now() - started > budget.ms);
    const firstSecond = Math.floor(q.from / SECOND) * SECOND;
    const to = after ? Math.min(q.to, after.second + SECOND) : q.to;

    let breathed = performance.now();
    function* rows(
      log: string,
      second: number,
      seq: number,
      block: BlockRows,
      wanted: readonly number[] | null,
    ): Generator<Match | typeof BREATHE> {
      const lines = block.lines;
      const order = wanted ?? lines.map((_, i) => i);
      for (let i = order.length - 1; i >= 0; i--) {
        if (i % 512 === 0 && performance.now() - breathed > BREATH_MS) yield BREATHE;
        const row = order[i]!;
        const position = { second, seq, row };
        if (after && newestFirst(position, after) <= 0) continue;
        if (overBudget()) {
          state.exhausted = true;
          return;
        }
        state.examined++;
        state.lastExamined = position;
        const line = lines[row];
        if (line === undefined || !q.filter.mayMatch(line)) continue;
        const stored = block.record(row);
        // A row a damaged block cannot give back is skipped; the rest of the block is read.
        if (stored === undefined) continue;
        const record = source.project(log, stored);
        const time = record._timestamp as number;
        if (time < q.from || time >= q.to) continue;
        if (q.filter.matches(record)) yield { log, position, record };
        if (state.exhausted) return;
      }
    }

    async function* scan(): AsyncGenerator<Match> {
      for await (const block of source.blocks({ from: firstSecond, to })) {
        // What no line can match, the whole block cannot contain: one test skips all its rows.
        if (!q.filter.mayMatch(block.text)) {
          if (!skipBlock(block)) return;
          continue;
        }
        yield* breathing(rows(block.log, block.second, block.seq, block, null));
        if (state.exhausted) return;
      }
    }

    /**
     * The matches of `found`, letting the engine's other work run between stretches of at most
     * about BREATH_MS: a search over millions of records must not hold verdicts up for its length.
     */
    async function* breathing(found: Generator<Match | typeof BREATHE>): AsyncGenerator<Match> {
      for (const m of found) {
        if (m !== BREATHE) yield m;
        else {
          await new Promise<void>((resolve) => setImmediate(resolve));
          breathed = performance.now();
        }
      }
    }

    /** Counts a block's rows as examined without reading them; false when the budget ran out first. */
    function skipBlock(block: { second: number; seq: number; text: string }): boolean {
      const count = rowCount(block.text);
      if (after && (block.second > after.second || (block.second === after.second && block.seq >= after.seq))) {
        // The cursor's own block (or a newer one): rows are skipped one by one in rows().
        return true;
      }
      if (state.examined + count > budget.records || performance.now() - started > budget.ms) {
        state.exhausted = true;
        return false;
      }
      state.examined += count;
      state.lastExamined = { second: block.second, seq: block.seq, row: 0 };
      return true;
    }

    async function* indexed(): AsyncGenerator<Match> {
      // The rarest term drives: the fewest index bytes in the range.
      let driver = q.filter.indexTerms[0]!;
      let least = Number.POSITIVE_INFINITY;
      for (const term of q.filter.indexTerms) {
        const bytes = await source.indexedBytes(term.field, term.value, { from: firstSecond, to });
        if (bytes < least) {
          least = bytes;
          driver = term;
        }
      }
      for await (const entry of source.indexed(driver.field, driver.value, { from: firstSecond, to })) {
        if (after && (entry.second > after.second || (entry.second === after.second && entry.seq > after.seq)))
          continue;
        const block = await source.block(entry.log, entry.second, entry.seq);
        if (block === undefined) continue; // deleted by retention since
        yield* breathing(rows(entry.log, entry.second, entry.seq, block, entry.rows));
        if (state.exhausted) return;
      }
    }

    return { plan, state, matches: plan === 'index' ? indexed() : scan() };
  }

  async histogram(input: QueryInput & { interval?: number; budget?: Partial<SearchBudget> }): Promise<Histogram> {
    const q = await this.resolve(input);
    const span = q.to - q.from;
    const interval =
      input.interval ?? INTERVALS.find((i) => Math.ceil(span / i) <= MAX_BUCKETS) ?? INTERVALS[INTERVALS.length - 1]!;
    if (Math.ceil(span / interval) > 10_000)
      throw refused('interval', 'gives more than 10,000 buckets: choose a longer one');
    const start = Math.floor(q.from / interval) * interval;
    const counts = new Map<number, number>();
    const add = (time: number, n: number): void => {
      const bucket = Math.floor(time / interval) * interval;
      counts.set(bucket, (counts.get(bucket) ?? 0) + n);
    };
    const budget = { ...DEFAULT_BUDGET, ...input.budget };
    const started = performance.now();
    let partial = false;
    let source: Histogram['source'];

    const scanRange = async (from: number, to: number): Promise<void> => {
      if (from >= to) return;
      const run = this.#matches({ ...q, from, to }, undefined, budget, started);
      for await (const m of run.matches) add(m.record._timestamp as number, 1);
      if (run.state.exhausted) partial = true;
    };

    if (q.filter.rollupFields && interval >= MINUTE && interval % MINUTE === 0) {
      // Whole minutes from the roll-ups, the partial minutes at the edges by scanning.
      source = 'rollups';
      const first = Math.ceil(q.from / MINUTE) * MINUTE;
      const last = Math.max(first, Math.floor(q.to / MINUTE) * MINUTE);
      for await (const m of q.source.rollups({ from: first, to: last })) {
        for (const [key, n] of Object.entries(m.counts)) {
          const dims = parseDimsKey(key);
          // What a record counted under these dimensions shows of them (a view may show fewer).
          const pseudo = q.source.project(m.log, {
            site_id: dims.site,
            guard_status: dims.guard_status,
            client_bot_type: dims.bot_type,
            log_setting_id: dims.log_setting,
          });
          if (q.filter.matches(pseudo)) add(m.at, n);
        }
      }
      await scanRange(q.from, Math.min(first, q.to));
      if (last > first) await scanRange(Math.max(last, q.from), q.to);
    } else if (q.filter.exactIndexTerm) {
      // Counting index entries' rows: no block is read, but for the seconds the range cuts through.
      source = 'index';
      const term = q.filter.exactIndexTerm;
      const firstSecond = Math.floor(q.from / SECOND) * SECOND;
      const lastSecond = Math.floor((q.to - 1) / SECOND) * SECOND;
      for await (const entry of q.source.indexed(term.field, term.value, { from: q.from, to: q.to })) {
        const cut =
          (entry.second === firstSecond && q.from > firstSecond) ||
          (entry.second === lastSecond && q.to < lastSecond + SECOND);
        if (!cut) {
          add(entry.second, entry.rows.length);
          continue;
        }
        const block = await q.source.block(entry.log, entry.second, entry.seq);
        for (const row of entry.rows) {
          const record = block?.record(row);
          if (record === undefined) continue;
          const time = record._timestamp as number;
          if (time >= q.from && time < q.to) add(time, 1);
        }
      }
    } else {
      source = 'scan';
      await scanRange(q.from, q.to);
    }
    const buckets: Histogram['buckets'] = [];
    for (let t = start; t < q.to; t += interval) buckets.push({ start: t, count: counts.get(t) ?? 0 });
    return {
      interval,
      buckets,
      total: buckets.reduce((sum, b) => sum + b.count, 0),
      partial,
      source,
      range: { from: q.from, to: q.to },
    };
  }

  /** Each field's presence and top values in the first `sample` matches (default 500). */
  async fields(input: QueryInput & { sample?: number; budget?: Partial<SearchBudget> }): Promise<FieldStats> {
    const q = await this.resolve(input);
    const sample = Math.min(Math.max(1, input.sample ?? 500), 5_000);
    const run = this.#matches(q, undefined, { ...DEFAULT_BUDGET, ...input.budget }, performance.now());
    const stats = new Map<string, { present: number; values: Map<string, number> }>();
    let sampled = 0;
    for await (const m of run.matches) {
      sampled++;
      flatten(m.record, '', (field, value) => {
        let stat = stats.get(field);
        if (stat === undefined) stats.set(field, (stat = { present: 0, values: new Map() }));
        stat.present++;
        if (stat.values.size < 1000 || stat.values.has(value))
          stat.values.set(value, (stat.values.get(value) ?? 0) + 1);
      });
      if (sampled >= sample) break;
    }
    await run.matches.return(undefined);
    return {
      sampled,
      partial: run.state.exhausted,
      fields: [...stats]
        .map(([field, s]) => ({
          field,
          present: s.present,
          top: [...s.values]
            .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
            .slice(0, 10)
            .map(([value, count]) => ({ value, count })),
        }))
        .sort((a, b) => (a.field < b.field ? -1 : 1)),
    };
  }

  /** One record by id, with up to `around` records written just after and just before it in its log. */
  async record(id: string, around = 5): Promise<RecordView> {
    const parsed = parseRecordId(id);
    if (!parsed) throw refused('id', 'is not a record id', { reason: 'record_id_malformed' });
    const { log, position } = parsed;
    const block = await this.deps.store.block(log, position.second, position.seq);
    const record = block?.record(position.row);
    if (record === undefined)
      throw new RampartError('NOT_FOUND', 'record not found (it may have been deleted by retention)');
    const n = Math.min(Math.max(0, around), 50);
    const older: RecordView['older'] = [];
    for await (const block of this.deps.store.blocks(log, { from: 0, to: position.second + SECOND })) {
      for (let row = block.lines.length - 1; row >= 0 && older.length < n; row--) {
        const p = { second: block.second, seq: block.seq, row };
        if (newestFirst(p, position) <= 0) continue;
        const record = block.record(row);
        if (record !== undefined) older.push({ id: recordId(log, p), record });
      }
      if (older.length >= n) break;
    }
    const newer: RecordView['newer'] = [];
    for await (const block of this.deps.store.blocks(log, {
      from: position.second,
      to: Number.MAX_SAFE_INTEGER,
      oldestFirst: true,
    })) {
      for (let row = 0; row < block.lines.length && newer.length < n; row++) {
        const p = { second: block.second, seq: block.seq, row };
        if (newestFirst(p, position) >= 0) continue;
        const record = block.record(row);
        if (record !== undefined) newer.push({ id: recordId(log, p), record });
      }
      if (newer.length >= n) break;
    }
    return { id, log, record, newer, older };
  }

  /** Hears each new record of `input.log` that matches, as it is written; returns the way to stop. */
  async tail(input: Omit<QueryInput, 'range'>, onRecord: (id: string, record: Row) => void): Promise<() => void> {
    const q = await this.resolve({ ...input, range: { all: true } });
    return this.deps.store.subscribe((block) => {
      if (!q.source.holds(block.log)) return;
      block.lines.forEach((line, row) => {
        if (!q.filter.mayMatch(line)) return;
        const stored = block.record(row);
        if (stored === undefined) return;
        const record = q.source.project(block.log, stored);
        if (q.filter.matches(record))
          onRecord(recordId(block.log, { second: block.second, seq: block.seq, row }), record);
      });
    });
  }

  /**
   * Every match newest first (up to `max`), for an export. The whole range is read, however long
   * it takes (the scan lets verdicts run between its stretches): an export cut short by a budget
   * would look complete, and a loss check built on it resent records the store had.
   */
  async *each(input: QueryInput & { max: number; budget?: Partial<SearchBudget> }): AsyncGenerator<Row> {
    const q = await this.resolve(input);
    const unbounded = { ms: Number.POSITIVE_INFINITY, records: Number.POSITIVE_INFINITY };
    const run = this.#matches(q, undefined, { ...unbounded, ...input.budget }, performance.now());
    let n = 0;
    for await (const m of run.matches) {
      yield m.record;
      if (++n >= input.max) break;
    }
    await run.matches.return(undefined);
  }
}

/** Calls `visit` with each scalar of a record by its dotted path (arrays and list fields item by item). */
function flatten(value: unknown, path: string, visit: (field: string, value: string) => void): void {
  if (value === null || value === undefined || value === '') return;
  if (Array.isArray(value)) {
    for (const item of value) flatten(item, path, visit);
    return;
  }
  if (typeof value === 'object') {
    for (const [key, inner] of Object.entries(value as Row)) flatten(inner, path ? `${path}.${key}` : key, visit);
    return;
  }
  visit(path, scalarText(value));
}

export { INDEXED_FIELDS };
