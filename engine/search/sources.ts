/**
 * What a search reads: one stored log, or a view that shows the records of several stored logs as
 * one log (the raw log is the lines of every TCP and BROKER configuration: the failed ones stored
 * under its own name, the parsed ones read from their configuration's log). A view's blocks and
 * index entries come newest first across its logs by (second, sequence): the store's sequence is
 * one counter for every log, so positions, cursors and their order hold across the logs as they do
 * within one. Record ids name the stored log a record is in.
 */
import type { BlockRows, BucketCounts, LogStore, StoredBlock } from '#engine/log-store';
import type { Row } from './evaluate.ts';

/** A log that is a view over stored logs. */
export interface LogView {
  /** Whether the stored log's records are in the view (asked of every stored log, and of each block a tail hears). */
  includes(log: string): boolean;
  /** A stored record as the view shows it. */
  project(log: string, record: Row): Row;
  /** The fields the view's records can have: index entries on others would name records without them. */
  fields: ReadonlySet<string>;
}

export interface IndexedEntry {
  log: string;
  second: number;
  seq: number;
  rows: number[];
}

type Range = { from: number; to: number };

/** The store reads a search makes, for one stored log or a view. */
export interface Source {
  /** The name asked for. */
  readonly log: string;
  indexedFields(): Promise<ReadonlySet<string>>;
  span(): Promise<{ oldest: number; newest: number } | null>;
  blocks(range: Range & { oldestFirst?: boolean }): AsyncGenerator<StoredBlock>;
  indexed(field: string, value: string, range: Range): AsyncGenerator<IndexedEntry>;
  indexedBytes(field: string, value: string, range: Range): Promise<number>;
  block(log: string, second: number, seq: number): Promise<BlockRows | undefined>;
  /** Roll-up counts of the stored logs, bucket by bucket (a bucket may come once per stored log). */
  rollups(range: Range): AsyncGenerator<BucketCounts & { log: string }>;
  /** Whether a written block (a tail hears every one) is in this source. */
  holds(log: string): boolean;
  /** A stored record of `log` as this source shows it. */
  project(log: string, record: Row): Row;
}

const same = (_log: string, record: Row): Row => record;

/** One stored log, read as it is. */
export function storedSource(store: LogStore, log: string): Source {
  return {
    log,
    indexedFields: () => store.indexedFields(log),
    span: () => store.span(log),
    blocks: (range) => store.blocks(log, range),
    async *indexed(field, value, range) {
      for await (const entry of store.indexed(log, field, value, range)) yield { log, ...entry };
    },
    indexedBytes: (field, value, range) => store.indexedBytes(log, field, value, range),
    block: (at, second, seq) => store.block(at, second, seq),
    async *rollups(range) {
      for await (const bucket of store.rollups(log, range)) yield { log, ...bucket };
    },
    holds: (at) => at === log,
    project: same,
  };
}

/** A view over the stored logs it includes, as they are when the search starts. */
export async function viewSource(store: LogStore, log: string, view: LogView): Promise<Source> {
  const members = (await store.spans()).map((s) => s.log).filter((name) => view.includes(name));
  return {
    log,
    async indexedFields() {
      const fields = new Set(view.fields);
      for (const member of members) {
        const indexed = await store.indexedFields(member);
        for (const field of fields) if (!indexed.has(field)) fields.delete(field);
      }
      return fields;
    },
    async span() {
      let oldest = Number.POSITIVE_INFINITY;
      let newest = Number.NEGATIVE_INFINITY;
      for (const member of members) {
        const span = await store.span(member);
        if (span === null) continue;
        oldest = Math.min(oldest, span.oldest);
        newest = Math.max(newest, span.newest);
      }
      return oldest <= newest ? { oldest, newest } : null;
    },
    blocks: (range) =>
      merged(
        members.map((member) => store.blocks(member, range)),
        range.oldestFirst === true,
      ),
    indexed: (field, value, range) =>
      merged(
        members.map((member) => storedSource(store, member).indexed(field, value, range)),
        false,
      ),
    async indexedBytes(field, value, range) {
      let total = 0;
      for (const member of members) total += await store.indexedBytes(member, field, value, range);
      return total;
    },
    block: (at, second, seq) => (view.includes(at) ? store.block(at, second, seq) : Promise.resolve(undefined)),
    async *rollups(range) {
      for (const member of members) yield* storedSource(store, member).rollups(range);
    },
    holds: (at) => view.includes(at),
    project: (at, record) => view.project(at, record),
  };
}

/**
 * The items of several sequences each ordered by (second, seq), newest first (or oldest first), as
 * one sequence in that order. Each sequence is read one item ahead; a view has a few logs.
 */
async function* merged<T extends { second: number; seq: number }>(
  sources: AsyncGenerator<T>[],
  oldestFirst: boolean,
): AsyncGenerator<T> {
  const heads: (T | undefined)[] = await Promise.all(sources.map(async (s) => (await s.next()).value as T | undefined));
  const before = (a: T, b: T): boolean => {
    const order = a.second - b.second || a.seq - b.seq;
    return oldestFirst ? order < 0 : order > 0;
  };
  try {
    for (;;) {
      let next = -1;
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i];
        if (head !== undefined && (next < 0 || before(head, heads[next]!))) next = i;
      }
      if (next < 0) return;
      yield heads[next]!;
      heads[next] = (await sources[next]!.next()).value as T | undefined;
    }
  } finally {
    await Promise.all(sources.map((s) => s.return(undefined)));
  }
}
