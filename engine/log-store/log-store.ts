import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { silentLogger, systemClock, type Clock, type Logger } from '#engine/shared';
import {
  blockPosition,
  HOUR,
  indexFieldPrefix,
  indexLogPrefix,
  IndexKeys,
  indexValueBytes,
  indexedForm,
  indexValuePrefix,
  MINUTE,
  prefixEnd,
  rangeBounds,
  recordKey,
  RECORDS_END,
  coverRange,
  rollupKey,
  rollupPrefix,
  rollupRange,
  rollupTime,
  SPAN,
  timeKey,
  type Granularity,
} from './keys.ts';
import { INDEXED_FIELDS, kindOfLog, LIST_FIELDS, RollupDimsKeys, valuesOf, type LogKind } from './fields.ts';
import { DistinctSketch } from './distinct-sketch.ts';
import {
  addStoredDistinct,
  addStoredTally,
  addTally,
  encodeTally,
  FieldTally,
  KEPT,
  ValueRollups,
  ValueTotals,
  rolledUp,
  valueKey,
  valueKeyTime,
  valueLogPrefix,
  valueRange,
  rankingValues,
  VALUE_FIELDS,
  VALUE_SPACE,
  type ValueCounts,
  type ValueField,
  type ValuePut,
  type ValuesMarker,
} from './value-rollups.ts';
import { decodeRows, encodeRows } from './rows.ts';
import {
  decodePosting,
  Gatherer,
  GATHER_MS,
  markerHolds,
  NewestFirst,
  POSTING_MARK,
  SLOT,
  encodePosting,
  type GatherMarker,
  type Position,
} from './postings.ts';
import { decodeBlock, RowEncoder, type BlockRows, type EncodedValues } from './block-format.ts';
import {
  DEFAULT_BUDGET_CHECK_MS,
  OldestFirstTrimmer,
  folderBytes,
  checkAfterBytes,
  enforceBudget,
  statVolume,
  type BudgetCheck,
  type DiskBudget,
  type DiskUsage,
  type VolumeProbe,
} from './disk-budget.ts';

/** Records buffered before a flush is forced without waiting for the timer. */
const FLUSH_AT = 2000;
/**
 * Appends are written at most this long after they were made: one LevelDB batch per interval
 * instead of one per event-loop turn keeps the write path's fixed costs off the verdict hot path.
 */
const FLUSH_AFTER_MS = 20;
/**
 * Records are encoded straight into blocks of this size, reused from a small pool: no per-record
 * string is kept until the flush, and no block is large enough for the allocator to map fresh pages.
 */
const BLOCK_BYTES = 64 * 1024;
const INITIAL_BLOCK_BYTES = 2 * 1024;
/** Blocks a log appends to at once (one per second). */
const OPEN_SECONDS = 8;
const POOLED_BLOCKS = 32;
const NEWLINE = 0x0a;
/** 0xFF never starts a UTF-8 log name, so meta keys cannot collide with records. */
const BOOT_KEY = Buffer.from([0xff, 0x62, 0x6f, 0x6f, 0x74]);
/** `0xFF m <name>`: values a writer keeps with its records (putMeta), such as a Kafka partition's next offset. */
const META_SPACE = Buffer.from([0xff, 0x6d]);
const metaKey = (name: string): Buffer => Buffer.concat([META_SPACE, Buffer.from(name, 'utf8')]);
const indexedSinceName = (log: string, field: string): string => `indexed-since\u0000${log}\u0000${field}`;
/** The meta value naming a log's blocks whose index entries are gathered, not yet written (postings.ts). */
const GATHERING = 'index-gathering\u0000';
const gatheringName = (log: string): string => `${GATHERING}${log}`;
/** Meta `values-open\0<log>`: the log's open value roll-ups (value-rollups.ts), '' when none. */
const VALUES_OPEN = 'values-open\u0000';
const valuesName = (log: string): string => `${VALUES_OPEN}${log}`;
/** Meta `rollups-format`: the roll-ups' layout. A store of an older one has them derived again when opened. */
const ROLLUPS_FORMAT_NAME = 'rollups-format';
/** 2: hour and day dimension roll-ups, value roll-ups per field with days and sketches. */
const ROLLUPS_FORMAT = '2';
/**
 * What a roll-up read fetches from LevelDB per round trip (its default, 16 KB, is one or two of a
 * busy day's value roll-ups: a 30-day read waited on a thread hand-off per entry).
 */
const ROLLUP_READ_BYTES = 1024 * 1024;
/** Records counted between two writes while value roll-ups are derived again. */
const RECOUNT_BATCH = 100_000;
const STANDARD_INDEXED: ReadonlySet<string> = new Set(INDEXED_FIELDS);
/** Buckets of roll-up counts kept in memory per log and granularity (older ones are written and dropped). */
const ROLLUP_KEPT: Readonly<Record<Granularity, number>> = { m: 4, h: 2, d: 2 };
const DAY = SPAN.d;
/** A derived day's value roll-ups: one key per field and day, rewritten whole when it is summed again. */
const DAY_BOOT = 0;
const DAY_PART = 0;
/** A newest-first read shorter than this is not split in two. */
const PARALLEL_MIN_SPAN = 10 * 60_000;
/** Blocks read before the older half starts being read too. */
const PREFETCH_AFTER_BLOCKS = 256;
/** Text of the older half held ahead of the reader. */
const PREFETCH_BYTES = 64 * 1024 * 1024;
const SECOND = 1000;

const defaultOnError = (error: unknown): void => {
  process.emitWarning(`log store write failed: ${error instanceof Error ? error.message : String(error)}`);
};

/** Notes that `row` of a block holds `field = value`. */
function indexValue(index: Map<string, Map<string, number[]>>, field: string, value: string, row: number): void {
  let byValue = index.get(field);
  if (byValue === undefined) index.set(field, (byValue = new Map<string, number[]>()));
  const rows = byValue.get(value);
  if (rows === undefined) byValue.set(value, [row]);
  else if (rows[rows.length - 1] !== row) rows.push(row);
}

/** Notes the values of `fields` that row `row` holds. */
function indexRecord(
  index: Map<string, Map<string, number[]>>,
  fields: readonly string[],
  record: Readonly<Record<string, unknown>>,
  row: number,
): void {
  for (const field of fields) {
    const value = record[field];
    if (value === undefined || value === null || value === '') continue;
    // One scalar (the common case) without the array valuesOf would build.
    if (typeof value === 'string' && !LIST_FIELDS.has(field)) indexValue(index, field, value, row);
    else if (typeof value === 'number') indexValue(index, field, String(value), row);
    else for (const item of valuesOf(field, value)) indexValue(index, field, item, row);
  }
}

/** Whether a row (and its newline) still fits in a block, with room left for the block's header. */
function fits(block: Block, json: string): boolean {
  const room = block.buf.length - block.used - block.encoder.headerBytes - 1;
  // A UTF-16 code unit takes at most 3 bytes in UTF-8; only when that bound does not fit is the
  // exact length worth measuring.
  return json.length * 3 + 1 <= room || Buffer.byteLength(json) + 1 <= room;
}

/**
 * Reads a generator ahead of its consumer, holding up to `limit` bytes of block text: its LevelDB
 * reads overlap with the consumer's work on the other half of a range.
 */
class Prefetch {
  readonly #queue: StoredBlock[] = [];
  #head = 0;
  #bytes = 0;
  #done = false;
  #error: Error | undefined = undefined;
  #stopped = false;
  #wake: (() => void) | null = null;
  #space: (() => void) | null = null;
  readonly #finished: Promise<void>;

  constructor(
    private readonly source: AsyncGenerator<StoredBlock>,
    private readonly limit: number,
  ) {
    this.#finished = this.#run();
  }

  async #run(): Promise<void> {
    try {
      for await (const block of this.source) {
        if (this.#stopped) break;
        this.#queue.push(block);
        this.#bytes += block.text.length;
        this.#wake?.();
        while (this.#bytes > this.limit && !this.#stopped) await new Promise<void>((r) => (this.#space = r));
      }
    } catch (error) {
      this.#error = error instanceof Error ? error : new Error('the log store read failed', { cause: error });
    } finally {
      this.#done = true;
      this.#wake?.();
    }
  }

  async *drain(): AsyncGenerator<StoredBlock> {
    for (;;) {
      if (this.#head < this.#queue.length) {
        const block = this.#queue[this.#head]!;
        this.#queue[this.#head++] = undefined as unknown as StoredBlock;
        if (this.#head > 1024) {
          this.#queue.splice(0, this.#head);
          this.#head = 0;
        }
        this.#bytes -= block.text.length;
        const space = this.#space;
        this.#space = null;
        space?.();
        yield block;
        continue;
      }
      if (this.#error !== undefined) throw this.#error;
      if (this.#done) return;
      await new Promise<void>((r) => (this.#wake = r));
      this.#wake = null;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const space = this.#space;
    this.#space = null;
    space?.();
    await this.#finished;
  }
}

/** classic-level's chained batch below its public checks (see LogStore #writeBatch). */
interface NativeChainedBatch {
  _put(key: Buffer, value: Buffer): void;
  _write(options: object): Promise<void>;
}

/** Why the store would not open, and what the operator can do about it. */
function openFailure(dir: string, error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
  if (/lock/i.test(cause)) {
    return `the log store at ${dir} is in use by another process (${cause}): stop the other Rampart engine using this data folder, or give this one another RAMPART_DATA`;
  }
  return `the log store at ${dir} cannot be opened (${cause}): if its files are damaged, stop the engine and move the folder aside (the engine then starts with an empty log store; the configuration is kept elsewhere), or free disk space if the volume is full`;
}

export type LogRecord = Readonly<Record<string, unknown>> & { _timestamp: number };

export interface ReadOptions {
  from: number;
  to: number;
  limit?: number;
}

/** Retention by age: how many days each kind of log keeps (default 30). */
export interface Retention {
  /** Read at each check, so a change in the console applies at the next one. */
  days(): Readonly<Partial<Record<LogKind, number>>>;
  /** How often expired records are deleted, ms; default one hour. */
  checkEveryMs?: number;
}

export const DEFAULT_RETENTION_DAYS = 30;

/**
 * One block as a reader sees it: where it is, its text, each row's line (split on first use) and
 * each row's record (block-format.ts).
 */
export interface StoredBlock extends BlockRows {
  log: string;
  second: number;
  seq: number;
  /** The whole block: a filter can test it before splitting it into rows (its header holds key names only). */
  text: string;
}

function storedBlock(log: string, second: number, seq: number, text: string): StoredBlock {
  let rows: BlockRows | undefined;
  return {
    log,
    second,
    seq,
    text,
    get lines() {
      return (rows ??= decodeBlock(text)).lines;
    },
    record: (row) => (rows ??= decodeBlock(text)).record(row),
  };
}

/** The rows of a block that an index entry names. */
export interface IndexedBlock {
  second: number;
  seq: number;
  rows: number[];
}

/** One bucket's roll-up counts. */
export interface BucketCounts {
  /** The bucket's start (a minute, an hour or a UTC day). */
  at: number;
  /** Dimension key (fields.ts rollupDimsKey) -> records. */
  counts: Readonly<Record<string, number>>;
}

export interface LogSpanInfo {
  log: string;
  oldest: number;
  newest: number;
  /** Approximate bytes on disk of its records (LevelDB's table sizes; the memtable not counted). */
  approxBytes: number;
}

export interface LogStoreOptions {
  /** Disk budget with oldest-first deletion; none when absent. */
  budget?: DiskBudget;
  /** Retention by age; none when absent (the engine passes its settings). */
  retention?: Retention;
  /** What retention measures age against (default the system clock). */
  clock?: Clock;
  /** Fields indexed for one log besides INDEXED_FIELDS (a log configuration's key fields). */
  extraIndexedFields?: (log: string) => readonly string[];
  /** Hears what the budget check deleted. */
  logger?: Logger;
  /** Free and total space of the data volume (default fs.statfs). */
  volume?: VolumeProbe;
  /** How long index entries gather before they are written, ms (postings.ts; default GATHER_MS). */
  indexGatherMs?: number;
}

/** A block of one log's records of one second, its rows (block-format.ts) in `buf[0, used)`. */
interface Block {
  readonly log: string;
  readonly second: number;
  /** Starts small and doubles up to BLOCK_BYTES (a quiet log's block of one record is not 64 KB). */
  buf: Buffer;
  used: number;
  /** Records in it so far. */
  rows: number;
  /** Its rows' shapes: the header written after them. */
  readonly encoder: RowEncoder;
  /** field -> value -> rows holding it. */
  readonly fields: readonly string[];
  readonly index: Map<string, Map<string, number[]>>;
}

/** Where a read of value roll-ups puts what it reads: a stored bucket's text (false when unreadable) or an open bucket's tally. */
interface TallySink {
  stored(text: string): boolean;
  open(tally: FieldTally): void;
}

/** One log's roll-up counts of one bucket, as this boot has written them. */
interface BucketRollup {
  readonly part: number;
  readonly counts: Map<string, number>;
  dirty: boolean;
}

/**
 * The log store over LevelDB. Records are stored in blocks: one LevelDB value per log and second
 * holding that flush's records of that second, a JSON array of values per record and the block's
 * key lists once (block-format.ts). Time precision of logs is the
 * second (spec 8), so a range read scans the blocks of its seconds and filters the edges, and a burst
 * of thousands of requests costs a handful of puts instead of one per record.
 *
 * Appends are buffered and flushed every FLUSH_AFTER_MS (or sooner when the buffer is large).
 */
export class LogStore {
  readonly #db: ClassicLevel<Buffer, string>;
  /**
   * The blocks each log is appending to, one per second, oldest first: lines of a few senders whose
   * clocks differ by a second or two interleave without starting a new block at every switch.
   */
  readonly #open = new Map<string, Block[]>();
  #sealed: Block[] = [];
  #pendingRecords = 0;
  /** Records and bytes of the batch being written. */
  #inFlight = { records: 0, bytes: 0 };
  /** Meta values staged for the next batch. */
  #meta = new Map<string, string>();
  #observer: ((log: string, record: Readonly<LogRecord>) => void) | null = null;
  readonly #values = new ValueRollups();
  /** Per log name: whether it has value roll-ups (kindOfLog once per log, not per record). */
  readonly #rolledUp = new Map<string, boolean>();
  #observing = false;
  /** `<log>\0<field>` -> the second from which an extra field's index entries are complete. */
  readonly #indexedSince = new Map<string, number>();
  readonly #pool: Buffer[] = [];
  /** Key builders by log and field. */
  readonly #keyBuilders = new Map<string, Map<string, IndexKeys>>();
  readonly #dimsKeys = new RollupDimsKeys();
  /** Logs whose last block filled up. */
  readonly #busy = new Set<string>();
  #seq = 0;
  #tail: Promise<void> = Promise.resolve();
  #queued = false;
  #timer: NodeJS.Timeout | null = null;
  readonly #onError: (error: unknown) => void;
  readonly #dir: string;
  readonly #budget: DiskBudget | undefined;
  readonly #logger: Logger;
  readonly #volume: VolumeProbe;
  readonly #trimmer: OldestFirstTrimmer;
  #budgetTimer: NodeJS.Timeout | null = null;
  #retentionTimer: NodeJS.Timeout | null = null;
  readonly #retention: Retention | undefined;
  readonly #extraFields: (log: string) => readonly string[];
  readonly #boot: number;
  readonly #clock: Clock;
  /** granularity -> log -> bucket start -> counts. */
  readonly #rollups: Readonly<Record<Granularity, Map<string, Map<number, BucketRollup>>>> = {
    m: new Map(),
    h: new Map(),
    d: new Map(),
  };
  #rollupParts = 0;
  readonly #listeners = new Set<(block: StoredBlock) => void>();
  /** log -> its oldest and newest second, once span() has read them (appends keep them current). */
  readonly #spans = new Map<string, { oldest: number; newest: number }>();
  /** Appends and deletions so far: a span() whose seeks saw this change keeps nothing. */
  #changes = 0;
  #closing = false;
  /** Index entries gathered over GATHER_MS before they are written (postings.ts). */
  readonly #gatherer: Gatherer;
  readonly #gatherMs: number;
  #gatherTimer: NodeJS.Timeout | null = null;
  /** Write every gathered entry with the next batch (closing). */
  #writeAllGathered = false;
  #checking: Promise<BudgetCheck | null> | null = null;
  #writtenSinceCheck = 0;

  private constructor(
    db: ClassicLevel<Buffer, string>,
    dir: string,
    boot: number,
    onError: (error: unknown) => void,
    options: LogStoreOptions,
  ) {
    this.#db = db;
    this.#dir = dir;
    this.#seq = (boot & 0xfff) << 20;
    this.#boot = boot;
    this.#clock = options.clock ?? systemClock;
    this.#retention = options.retention;
    this.#extraFields = options.extraIndexedFields ?? (() => []);
    this.#onError = onError;
    this.#gatherMs = options.indexGatherMs ?? GATHER_MS;
    this.#gatherer = new Gatherer(this.#gatherMs);
    this.#budget = options.budget;
    this.#logger = options.logger ?? silentLogger;
    this.#volume = options.volume ?? statVolume;
    this.#trimmer = new OldestFirstTrimmer(db, RECORDS_END, (log, before) => this.#removeBefore(log, before));
    if (this.#budget) {
      this.#budgetTimer = setInterval(
        () => void this.checkBudget(),
        this.#budget.checkEveryMs ?? DEFAULT_BUDGET_CHECK_MS,
      );
      this.#budgetTimer.unref();
    }
    if (this.#retention) {
      this.#retentionTimer = setInterval(() => void this.applyRetention(), this.#retention.checkEveryMs ?? HOUR);
      this.#retentionTimer.unref();
    }
  }

  /**
   * `onError` hears of a background write (or budget check) that failed: its records are lost, the
   * store goes on. With `options.budget` the store checks its size every 30 s and after write bursts.
   */
  static async open(
    dataDir: string,
    onError: (error: unknown) => void = defaultOnError,
    options: LogStoreOptions = {},
  ): Promise<LogStore> {
    const dir = join(dataDir, 'logs');
    const db = new ClassicLevel<Buffer, string>(dir, {
      keyEncoding: 'buffer',
      valueEncoding: 'utf8',
      // A larger memtable means fewer level-0 files and compactions under a steady log stream: at
      // 64 MB an intake's stream is stored about 13 % faster than at 16 MB (bench:ingest), for up
      // to two memtables' memory.
      writeBufferSize: 64 * 1024 * 1024,
      // LevelDB maps each open table file, and every page a read touches stays in the engine's
      // resident memory while the file stays open. At the default 1,000 open files a full scan of a
      // 10 M-record store left 1,121 MB of file pages resident, so RSS grew with the store. LevelDB
      // 1.20 raises any lower setting to 74, which keeps 64 tables open: the floor, set as is.
      maxOpenFiles: 74,
      // What bounds those pages, then, is the size of a table: LevelDB 1.20 makes tables of at least
      // 1 MB (it raises a lower max_file_size), so the 64 open ones hold at most 64 MB, against 128 MB
      // at the default 2 MB (the soak's file pages went from 56 to 152 MB at 2 MB, to 105 MB at 1 MB).
      // The memtable's level-0 tables are larger, but compactions soon replace them.
      // bench:log-store and bench:search did not move (docs/DESIGN.md 2a).
      maxFileSize: 1024 * 1024,
    });
    try {
      await db.open();
    } catch (error) {
      throw new Error(openFailure(dir, error), { cause: error });
    }
    // Each opening gets a boot number kept in the high bits of the sequence, so blocks written
    // after a restart never take the key of an earlier block of the same second.
    const stored = await db.get(BOOT_KEY);
    const boot = stored === undefined ? 1 : Number(stored) + 1;
    await db.put(BOOT_KEY, String(boot));
    const store = new LogStore(db, dir, boot, onError, options);
    try {
      await store.#recoverGathered();
      if (!(await store.#upgradeRollups())) await store.#recoverValues();
    } catch (error) {
      await store.close();
      throw new Error(openFailure(dir, error), { cause: error });
    }
    return store;
  }

  /**
   * After a crash: the blocks whose index entries were still gathering (each log's marker names
   * them) are indexed again from their records, and the entries written.
   */
  async #recoverGathered(): Promise<void> {
    const start = metaKey(GATHERING);
    const markers: [string, GatherMarker][] = [];
    for await (const [key, value] of this.#db.iterator({ gte: start, lt: prefixEnd(start) })) {
      if (value === '') continue;
      const log = key.subarray(start.length).toString('utf8');
      try {
        markers.push([log, JSON.parse(value) as GatherMarker]);
      } catch {
        this.#logger.warn(
          { log },
          'log store: an unreadable index marker was skipped; searches by field may miss records of its last seconds',
        );
      }
    }
    if (markers.length === 0) return;
    const now = performance.now();
    const batch: { type: 'put'; key: Buffer; value: Buffer }[] = [];
    for (const [log, marker] of markers) {
      const blocks = this.#db.iterator({
        gte: recordKey(log, marker.second, 0),
        lt: recordKey(log, Number.MAX_SAFE_INTEGER, 0),
      });
      for await (const [key, text] of blocks) {
        const { second, seq } = blockPosition(key);
        if (!markerHolds(marker, seq)) continue;
        const rows = decodeBlock(text);
        const index = new Map<string, Map<string, number[]>>();
        for (let row = 0; row < rows.lines.length; row++) {
          const record = rows.record(row);
          if (record !== undefined) indexRecord(index, marker.fields, record, row);
        }
        this.#gatherer.add(log, marker.fields, { second, seq, rows: rows.lines.length, index }, now);
      }
      this.#postingPuts(log, batch);
      batch.push({ type: 'put', key: metaKey(gatheringName(log)), value: Buffer.alloc(0) });
    }
    await this.#writeBatch(batch);
  }

  /**
   * After a crash: the value roll-ups that were open (each log's marker says from which minute and
   * hour) are counted again from their records; they are written by the next flush or at close.
   */
  async #recoverValues(): Promise<void> {
    const start = metaKey(VALUES_OPEN);
    const markers: [string, ValuesMarker][] = [];
    for await (const [key, value] of this.#db.iterator({ gte: start, lt: prefixEnd(start) })) {
      if (value === '') continue;
      try {
        const marker = JSON.parse(value) as ValuesMarker;
        if (Number.isFinite(marker.minute) && Number.isFinite(marker.hour))
          markers.push([key.subarray(start.length).toString('utf8'), marker]);
      } catch {
        // An unreadable marker: those buckets stay as written; the overview may undercount them.
      }
    }
    for (const [log, marker] of markers) {
      this.#values.recovering(log, marker);
      let from = Math.min(marker.minute, marker.hour);
      // The open hour's minutes that were written are summed into it, and only the records from the
      // oldest open minute are read again: reading the hour's from its start made a restart late in
      // an hour read up to an hour of a busy site's records (the soak's restarts grew 13 s -> 27 s).
      if (marker.hour < marker.minute) {
        for (const field of VALUE_FIELDS) {
          for await (const [key, value] of this.#db.iterator({
            ...valueRange(log, 'm', field, marker.hour, marker.minute),
            highWaterMarkBytes: ROLLUP_READ_BYTES,
          })) {
            const minute = valueKeyTime(key);
            if (minute >= marker.hour && minute < marker.minute)
              this.#values.restoreIntoHour(log, minute, field, value);
          }
        }
        from = marker.minute;
      }
      for await (const [, text] of this.#db.iterator({
        gte: recordKey(log, Math.floor(from / SECOND) * SECOND, 0),
        lt: recordKey(log, Number.MAX_SAFE_INTEGER, 0),
      })) {
        const rows = decodeBlock(text);
        for (let row = 0; row < rows.lines.length; row++) {
          const record = rows.record(row);
          if (record === undefined || typeof record._timestamp !== 'number' || record._timestamp < from) continue;
          this.#values.add(log, record._timestamp, record, marker);
        }
      }
    }
  }

  /**
   * How many records of a log hold each value of the ranking fields (`fields`, default all) in
   * [from, to) (access and detection logs): whole days, hours and minutes from the value roll-ups
   * (a day not summed yet from its hours), the partial minutes at the edges from their records, so
   * the counts are what a search of the range finds. `approximate` names the fields a bucket of
   * which kept only its most frequent values (DESIGN 2d).
   */
  async valueCounts(
    log: string,
    range: { from: number; to: number },
    fields: readonly ValueField[] = VALUE_FIELDS,
  ): Promise<ValueCounts> {
    const totals = new ValueTotals();
    const cover = await this.#valueCover(log, range);
    if (cover === null) return totals.result();
    const sinks = new Map<string, TallySink>();
    for (const field of fields) {
      const tally = totals.tally(field);
      sinks.set(field, { stored: (text) => addStoredTally(tally, text), open: (open) => addTally(tally, open) });
    }
    await this.#readCover(log, cover, sinks, (field, value) => totals.add(field, value, 1));
    return totals.result();
  }

  /**
   * The distinct values of one ranking field in [from, to), read like valueCounts but without
   * their counts: `values` exactly while no bucket of the range overflowed (`sketch` null), else
   * `sketch` holds the overflowed buckets' values and `values` the others' (add them to it).
   */
  async distinctValues(
    log: string,
    range: { from: number; to: number },
    field: ValueField,
  ): Promise<{ values: Set<string>; sketch: DistinctSketch | null }> {
    const out: { values: Set<string>; sketch: DistinctSketch | null } = { values: new Set(), sketch: null };
    const cover = await this.#valueCover(log, range);
    if (cover === null) return out;
    const merge = (sketch: DistinctSketch): void => {
      if (out.sketch === null) out.sketch = new DistinctSketch();
      out.sketch.merge(sketch);
    };
    const sink: TallySink = {
      stored: (text) => addStoredDistinct(out.values, merge, text),
      open: (open) => {
        for (const value of open.counts.keys()) out.values.add(value);
        if (open.sketch !== null) merge(open.sketch);
      },
    };
    await this.#readCover(log, cover, new Map([[field, sink]]), (_field, value) => out.values.add(value));
    return out;
  }

  /** How a range of a rolled-up log is read (keys.ts coverRange), from its oldest record; null when it has none. */
  async #valueCover(log: string, range: { from: number; to: number }): Promise<ReturnType<typeof coverRange> | null> {
    if (!rolledUp(log)) return null;
    const span = await this.span(log);
    if (span === null) return null;
    // Deletion keeps the bucket holding its cutoff: a range starts at the oldest record left.
    const from = Math.max(0, range.from, span.oldest);
    return coverRange(from, Math.max(from, range.to));
  }

  /**
   * Reads a cover's value roll-ups into one sink per field, and the records of its edges into
   * `edge`. Every field and part is its own iterator: they run at once, so their reads overlap.
   */
  async #readCover(
    log: string,
    cover: ReturnType<typeof coverRange>,
    sinks: ReadonlyMap<string, TallySink>,
    edge: (field: ValueField, value: string) => void,
  ): Promise<void> {
    await Promise.all([
      ...[...sinks].flatMap(([field, sink]) =>
        cover.whole.map((part) =>
          part.granularity === 'd'
            ? this.#readDays(log, field, part.from, part.to, sink)
            : this.#readValues(log, part.granularity, field, part.from, part.to, sink),
        ),
      ),
      ...cover.edges.map(([from, to]) => this.#countEdge(log, from, to, sinks, edge)),
    ]);
  }

  async #readValues(
    log: string,
    granularity: 'm' | 'h',
    field: string,
    from: number,
    to: number,
    sink: TallySink,
  ): Promise<void> {
    if (from >= to) return;
    for await (const [key, value] of this.#db.iterator({
      ...valueRange(log, granularity, field, from, to),
      highWaterMarkBytes: ROLLUP_READ_BYTES,
    })) {
      const time = valueKeyTime(key);
      if (time >= from && time < to) sink.stored(value);
    }
    for (const bucket of this.#values.open(log, granularity, from, to)) {
      const open = bucket.fields.get(field);
      if (open !== undefined) sink.open(open);
    }
  }

  /** Whole days: each from its summed roll-up, or from its hours while it has none. */
  async #readDays(log: string, field: string, from: number, to: number, sink: TallySink): Promise<void> {
    const summed = new Set<number>();
    for await (const [key, value] of this.#db.iterator({
      ...valueRange(log, 'd', field, from, to),
      highWaterMarkBytes: ROLLUP_READ_BYTES,
    })) {
      const day = valueKeyTime(key);
      if (day >= from && day < to && sink.stored(value)) summed.add(day);
    }
    for (let day = from; day < to; day += DAY)
      if (!summed.has(day)) await this.#readValues(log, 'h', field, day, day + DAY, sink);
  }

  /** The ranking values of the records in [from, to) (a partial minute), read from the records. */
  async #countEdge(
    log: string,
    from: number,
    to: number,
    fields: ReadonlyMap<string, unknown>,
    visit: (field: ValueField, value: string) => void,
  ): Promise<void> {
    if (from >= to) return;
    for await (const block of this.#scan(log, Math.floor(from / SECOND) * SECOND, to, false)) {
      for (let row = 0; row < block.lines.length; row++) {
        const record = block.record(row);
        if (record === undefined || typeof record._timestamp !== 'number') continue;
        if (record._timestamp < from || record._timestamp >= to) continue;
        rankingValues(log, record, (field: ValueField, value) => {
          if (fields.has(field)) visit(field, value);
        });
      }
    }
  }

  /** The value roll-ups a take hands over, as puts: each bucket's fields, and the days it ends. */
  async #valuePuts(
    values: { puts: readonly ValuePut[]; days: ReadonlyMap<string, ReadonlySet<number>> },
    batch: { type: 'put'; key: Buffer; value: Buffer }[],
  ): Promise<void> {
    for (const put of values.puts)
      for (const [field, text] of put.bucket.encode())
        batch.push({
          type: 'put',
          key: valueKey(put.log, put.granularity, field, put.time, this.#boot, put.bucket.part),
          value: Buffer.from(text, 'utf8'),
        });
    for (const [log, days] of values.days) for (const day of days) await this.#dayPuts(log, day, values.puts, batch);
  }

  /**
   * A store written before hour and day roll-ups (no `rollups-format`): each log's hour and day
   * dimension roll-ups are summed from its minutes, and the value roll-ups are counted again from
   * the records (one pass, logged with its duration). Returns whether it ran. A crash during it
   * leaves the format unset, so the next opening runs it again from the start.
   */
  async #upgradeRollups(): Promise<boolean> {
    if ((await this.#db.get(metaKey(ROLLUPS_FORMAT_NAME))) === ROLLUPS_FORMAT) return false;
    const started = performance.now();
    const spans = await this.spans();
    await this.#db.clear({ gte: VALUE_SPACE, lt: prefixEnd(VALUE_SPACE) });
    let records = 0;
    const batch: { type: 'put'; key: Buffer; value: Buffer }[] = [];
    for (const { log } of spans) {
      await this.#sumDimensions(log);
      if (rolledUp(log)) records += await this.#recountValues(log);
      batch.push({ type: 'put', key: metaKey(valuesName(log)), value: Buffer.alloc(0) });
    }
    batch.push({ type: 'put', key: metaKey(ROLLUPS_FORMAT_NAME), value: Buffer.from(ROLLUPS_FORMAT) });
    await this.#writeBatch(batch);
    if (spans.length > 0)
      this.#logger.info(
        { logs: spans.length, records, ms: Math.round(performance.now() - started) },
        'log store: roll-ups upgraded to hours and days',
      );
    return true;
  }

  /** A log's hour and day dimension roll-ups, summed from its minute ones (written again whole). */
  async #sumDimensions(log: string): Promise<void> {
    for (const granularity of ['h', 'd'] as const)
      await this.#db.clear(rollupRange(log, granularity, 0, Number.MAX_SAFE_INTEGER));
    const sums: Record<'h' | 'd', Map<number, Map<string, number>>> = { h: new Map(), d: new Map() };
    for await (const [key, value] of this.#db.iterator(rollupRange(log, 'm', 0, Number.MAX_SAFE_INTEGER))) {
      let counts: Record<string, unknown>;
      try {
        counts = JSON.parse(value) as Record<string, unknown>;
      } catch {
        continue;
      }
      const minute = rollupTime(key);
      for (const granularity of ['h', 'd'] as const) {
        const start = Math.floor(minute / SPAN[granularity]) * SPAN[granularity];
        let sum = sums[granularity].get(start);
        if (sum === undefined) sums[granularity].set(start, (sum = new Map<string, number>()));
        for (const [dims, n] of Object.entries(counts))
          if (typeof n === 'number') sum.set(dims, (sum.get(dims) ?? 0) + n);
      }
    }
    let batch: { type: 'put'; key: Buffer; value: Buffer }[] = [];
    for (const granularity of ['h', 'd'] as const)
      for (const [start, sum] of sums[granularity]) {
        batch.push({
          type: 'put',
          key: rollupKey(log, granularity, start, this.#boot, this.#rollupParts++ & 0xffff),
          value: Buffer.from(JSON.stringify(Object.fromEntries(sum))),
        });
        if (batch.length >= 1_000) {
          await this.#writeBatch(batch);
          batch = [];
        }
      }
    if (batch.length > 0) await this.#writeBatch(batch);
  }

  /** A log's value roll-ups counted again from its records, oldest first; returns the records read. */
  async #recountValues(log: string): Promise<number> {
    let records = 0;
    let next = RECOUNT_BATCH;
    const write = async (all: boolean): Promise<void> => {
      const batch: { type: 'put'; key: Buffer; value: Buffer }[] = [];
      await this.#valuePuts(this.#values.take(this.#clock.now(), all), batch);
      if (batch.length > 0) await this.#writeBatch(batch);
    };
    for await (const [, text] of this.#db.iterator(rangeBounds(log, 0, Number.MAX_SAFE_INTEGER))) {
      const rows = decodeBlock(text);
      for (let row = 0; row < rows.lines.length; row++) {
        const record = rows.record(row);
        if (record === undefined || typeof record._timestamp !== 'number') continue;
        this.#values.add(log, record._timestamp, record);
        records++;
      }
      if (records >= next) {
        next = records + RECOUNT_BATCH;
        await write(false);
      }
    }
    await write(true);
    return records;
  }

  /** A day's value roll-ups summed from its hours, those stored and those this batch writes. */
  async #dayPuts(
    log: string,
    day: number,
    puts: readonly ValuePut[],
    batch: { type: 'put'; key: Buffer; value: Buffer }[],
  ): Promise<void> {
    const tallies = new Map<string, FieldTally>();
    const tally = (field: string): FieldTally => {
      let t = tallies.get(field);
      if (t === undefined) tallies.set(field, (t = new FieldTally()));
      return t;
    };
    for (const field of VALUE_FIELDS)
      for await (const [, text] of this.#db.iterator(valueRange(log, 'h', field, day, day + DAY)))
        addStoredTally(tally(field), text, true);
    for (const put of puts)
      if (put.log === log && put.granularity === 'h' && put.time >= day && put.time < day + DAY)
        for (const [field, t] of put.bucket.fields) addTally(tally(field), t);
    for (const [field, t] of tallies)
      batch.push({
        type: 'put',
        key: valueKey(log, 'd', field, day, DAY_BOOT, DAY_PART),
        value: Buffer.from(encodeTally(field, t, KEPT.d), 'utf8'),
      });
  }

  /**
   * Appends a record, stored under its `_timestamp`. It is serialised now (later changes to the
   * object are not stored); a frozen object as its last field is serialised once for every record
   * that shares it. `encoded`, when given, holds the record's values encoded ahead (`encodeValues`).
   */
  append(log: string, record: LogRecord, encoded?: EncodedValues): void {
    const timestamp = record._timestamp;
    const second = Math.floor(timestamp / SECOND) * SECOND;
    this.#changes++;
    const span = this.#spans.get(log);
    if (span !== undefined) {
      if (second < span.oldest) span.oldest = second;
      if (second > span.newest) span.newest = second;
    }
    let open = this.#open.get(log);
    if (open === undefined) this.#open.set(log, (open = []));
    let at = open.length - 1;
    while (at >= 0 && open[at]!.second !== second) at--;
    let block = at >= 0 ? open[at] : undefined;
    let json: string;
    if (block !== undefined) {
      json = block.encoder.encode(record, encoded);
      if (!fits(block, json)) {
        const need = Buffer.byteLength(json) + 1 + block.encoder.headerBytes + 1;
        if (block.buf.length < BLOCK_BYTES) this.#grow(block, need);
        else {
          // The row was encoded with this block's shapes: the next block encodes it again with its own.
          this.#seal(block);
          block = undefined;
        }
      }
    }
    if (block === undefined) {
      const encoder = new RowEncoder();
      json = encoder.encode(record, encoded);
      const need = Buffer.byteLength(json) + 1 + encoder.headerBytes + 1;
      const extra = this.#extraFields(log);
      block = {
        log,
        second,
        buf: this.#buffer(need, this.#busy.has(log)),
        used: 0,
        rows: 0,
        encoder,
        // The fields to index, worked out once per block rather than once per record.
        fields: extra.length === 0 ? INDEXED_FIELDS : [...new Set([...INDEXED_FIELDS, ...extra])],
        index: new Map(),
      };
      // At most OPEN_SECONDS blocks per log: a new second seals the oldest.
      if (open.length >= OPEN_SECONDS) this.#seal(open[0]!);
      open.push(block);
    }
    if (block.used > 0) block.buf[block.used++] = NEWLINE;
    block.used += block.buf.write(json!, block.used);
    this.#indexRow(block, record);
    this.#count(log, timestamp, record);
    let rolled = this.#rolledUp.get(log);
    if (rolled === undefined) this.#rolledUp.set(log, (rolled = rolledUp(log)));
    if (rolled) this.#values.add(log, timestamp, record);
    // The one funnel of live records (verdicts, intakes, Kafka): the event engine sees each once,
    // after it is staged; stored history never passes here.
    if (this.#observer !== null) this.#observe(log, record);
    if (++this.#pendingRecords >= FLUSH_AT) void this.#schedule().catch(this.#onError);
    else this.#timer ??= setTimeout(this.#tick, FLUSH_AFTER_MS);
  }

  /**
   * Sets the one observer of appended records (the event engine). It runs synchronously inside
   * `append`, so it must be quick; it may append records itself (the trigger log) but is not called
   * again for those. What it throws is reported to the store's error handler, never to the appender.
   */
  observe(observer: ((log: string, record: Readonly<LogRecord>) => void) | null): void {
    this.#observer = observer;
  }

  #observe(log: string, record: Readonly<LogRecord>): void {
    if (this.#observing) return;
    this.#observing = true;
    try {
      this.#observer!(log, record);
    } catch (error) {
      this.#onError(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.#observing = false;
    }
  }

  /**
   * Stages a value to be written in the same atomic batch as the records appended before it in the
   * same synchronous run (no await in between): a Kafka consumer puts each partition's next offset
   * after its records, so records and offset are stored together or not at all.
   */
  putMeta(name: string, value: string): void {
    this.#meta.set(name, value);
    this.#timer ??= setTimeout(this.#tick, FLUSH_AFTER_MS);
  }

  /**
   * The fields a search may find through this log's index entries: INDEXED_FIELDS, and each extra
   * field (a configuration's key field) whose entries cover the whole log, that is, indexed since
   * before its oldest record. A key field added later is searched by scanning until then.
   */
  async indexedFields(log: string): Promise<ReadonlySet<string>> {
    const extra = this.#extraFields(log).filter((f) => !(INDEXED_FIELDS as readonly string[]).includes(f));
    if (extra.length === 0) return STANDARD_INDEXED;
    const span = await this.span(log);
    const fields = new Set<string>(INDEXED_FIELDS);
    for (const field of extra) {
      const name = indexedSinceName(log, field);
      let since = this.#indexedSince.get(name);
      if (since === undefined) {
        const stored = await this.#db.get(metaKey(name));
        if (stored !== undefined) this.#indexedSince.set(name, (since = Number(stored)));
      }
      if (span === null || (since !== undefined && since <= span.oldest)) fields.add(field);
    }
    return fields;
  }

  /** A value put with putMeta (the written one, or the one staged for the next batch). */
  async getMeta(name: string): Promise<string | undefined> {
    return this.#meta.get(name) ?? (await this.#db.get(metaKey(name)));
  }

  /**
   * What has been appended and is not written yet (records and bytes, the batch in flight
   * included): an intake pauses its senders while this is high.
   */
  backlog(): { records: number; bytes: number } {
    let bytes = this.#inFlight.bytes;
    for (const block of this.#sealed) bytes += block.used;
    for (const open of this.#open.values()) for (const block of open) bytes += block.used;
    return { records: this.#pendingRecords + this.#inFlight.records, bytes };
  }

  /** Writes everything appended so far (after the batch in flight, if any). */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    return this.#schedule();
  }

  readonly #tick = (): void => {
    this.#timer = null;
    void this.#schedule().catch(this.#onError);
  };

  /**
   * Queues one write of whatever is pending when it runs. Writes run one at a time; appends made
   * while a write is in flight wait for the timer (or the size trigger) instead of following it at
   * once, so a steady stream costs one LevelDB batch per interval, not one per write completion.
   */
  #schedule(): Promise<void> {
    if (!this.#queued) {
      this.#queued = true;
      this.#tail = this.#tail
        .catch(() => undefined)
        .then(() => {
          this.#queued = false;
          return this.#write();
        });
    }
    return this.#tail;
  }

  #indexKeys(log: string, field: string): IndexKeys {
    let ofLog = this.#keyBuilders.get(log);
    if (ofLog === undefined) {
      if (this.#keyBuilders.size > 10_000) this.#keyBuilders.clear();
      this.#keyBuilders.set(log, (ofLog = new Map<string, IndexKeys>()));
    }
    let keys = ofLog.get(field);
    if (keys === undefined) ofLog.set(field, (keys = new IndexKeys(log, field)));
    return keys;
  }

  #indexRow(block: Block, record: Readonly<Record<string, unknown>>): void {
    indexRecord(block.index, block.fields, record, block.rows++);
  }

  #count(log: string, timestamp: number, record: Readonly<Record<string, unknown>>): void {
    const dims = this.#dimsKeys.of(log, record);
    this.#countIn('m', log, Math.floor(timestamp / MINUTE) * MINUTE, dims);
    this.#countIn('h', log, Math.floor(timestamp / HOUR) * HOUR, dims);
    this.#countIn('d', log, Math.floor(timestamp / DAY) * DAY, dims);
  }

  #countIn(granularity: Granularity, log: string, time: number, dims: string): void {
    const logs = this.#rollups[granularity];
    let buckets = logs.get(log);
    if (buckets === undefined) logs.set(log, (buckets = new Map<number, BucketRollup>()));
    let rollup = buckets.get(time);
    if (rollup === undefined) {
      rollup = { part: this.#rollupParts++ & 0xffff, counts: new Map(), dirty: true };
      buckets.set(time, rollup);
    }
    rollup.counts.set(dims, (rollup.counts.get(dims) ?? 0) + 1);
    rollup.dirty = true;
  }

  /**
   * The roll-up puts of this flush: each bucket touched since the last one, whole (a minute, hour
   * and day rewritten under the same key). Old buckets are dropped from memory after.
   */
  #rollupPuts(): { type: 'put'; key: Buffer; value: Buffer }[] {
    const puts: { type: 'put'; key: Buffer; value: Buffer }[] = [];
    for (const granularity of ['m', 'h', 'd'] as const) {
      for (const [log, buckets] of this.#rollups[granularity]) {
        for (const [time, rollup] of buckets) {
          if (!rollup.dirty) continue;
          rollup.dirty = false;
          puts.push({
            type: 'put',
            key: rollupKey(log, granularity, time, this.#boot, rollup.part),
            value: Buffer.from(JSON.stringify(Object.fromEntries(rollup.counts))),
          });
        }
        const kept = ROLLUP_KEPT[granularity];
        if (buckets.size > kept) {
          const keep = [...buckets.keys()].sort((x, y) => y - x).slice(0, kept);
          for (const time of buckets.keys()) if (!keep.includes(time)) buckets.delete(time);
        }
      }
    }
    return puts;
  }

  /**
   * A block's first buffer: a pooled full-size one for a log whose last block filled up (a busy
   * stream), a small one otherwise.
   */
  #buffer(need: number, busy: boolean): Buffer {
    if (need > BLOCK_BYTES) return Buffer.allocUnsafeSlow(need);
    if (busy) return this.#pool.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES);
    return Buffer.allocUnsafe(Math.min(BLOCK_BYTES, Math.max(INITIAL_BLOCK_BYTES, 2 * need)));
  }

  #grow(block: Block, need: number): void {
    let size = block.buf.length * 2;
    while (size < block.used + need && size < BLOCK_BYTES) size *= 2;
    const bigger =
      size >= BLOCK_BYTES ? (this.#pool.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES)) : Buffer.allocUnsafe(size);
    block.buf.copy(bigger, 0, 0, block.used);
    block.buf = bigger.length >= block.used + need ? bigger : Buffer.allocUnsafeSlow(block.used + need);
    if (block.buf !== bigger) bigger.copy(block.buf, 0, 0, block.used);
  }

  #seal(block: Block): void {
    const open = this.#open.get(block.log);
    const at = open?.indexOf(block) ?? -1;
    if (at >= 0) open!.splice(at, 1);
    this.#retire(block);
  }

  /** A block that takes no more rows waits for the next write. */
  #retire(block: Block): void {
    // A block sealed full marks a busy log: its next block starts at full size.
    if (block.buf.length >= BLOCK_BYTES) this.#busy.add(block.log);
    else this.#busy.delete(block.log);
    this.#sealed.push(block);
  }

  async #write(): Promise<void> {
    for (const open of this.#open.values()) for (const block of open) this.#retire(block);
    this.#open.clear();
    const blocks = this.#sealed;
    this.#sealed = [];
    const records = this.#pendingRecords;
    this.#pendingRecords = 0;
    const meta = this.#meta;
    const now = performance.now();
    const due = this.#gatherer.due(now, this.#writeAllGathered);
    // Value roll-ups of closed minutes and hours (all of them at close), and of late records.
    const values = this.#values.take(this.#clock.now(), this.#writeAllGathered);
    if (
      blocks.length === 0 &&
      meta.size === 0 &&
      due.length === 0 &&
      values.puts.length === 0 &&
      values.markers.size === 0
    )
      return;
    this.#meta = new Map();
    let bytes = 0;
    const batch: { type: 'put'; key: Buffer; value: Buffer }[] = [];
    // Listeners (a live tail) hear of each block once it is written; its lines are copied now, as
    // the block's buffer goes back to the pool.
    const heard: StoredBlock[] = [];
    const touched = new Set<string>();
    // The first block of a log indexed on an extra field says from when that field's index is whole.
    for (const block of blocks) {
      for (let f = INDEXED_FIELDS.length; f < block.fields.length; f++) {
        const name = indexedSinceName(block.log, block.fields[f]!);
        if (this.#indexedSince.has(name)) continue;
        const stored = await this.#db.get(metaKey(name));
        const since = stored === undefined ? block.second : Number(stored);
        this.#indexedSince.set(name, since);
        if (stored === undefined) meta.set(name, String(since));
      }
    }
    for (const block of blocks) {
      // The header goes after the rows (appends reserved its room).
      block.buf[block.used++] = NEWLINE;
      block.used += block.buf.write(block.encoder.header(), block.used);
      bytes += block.used;
      this.#seq = (this.#seq & 0xfff00000) | ((this.#seq + 1) & 0xfffff);
      if (this.#listeners.size > 0) {
        heard.push(storedBlock(block.log, block.second, this.#seq, block.buf.toString('utf8', 0, block.used)));
      }
      batch.push({
        type: 'put',
        key: recordKey(block.log, block.second, this.#seq),
        value: block.buf.subarray(0, block.used),
      });
      // Its index entries gather (the log's marker, written with the block, says where they
      // start), but for fields whose values hardly repeat: theirs go in this batch, one per value.
      this.#gatherer.add(
        block.log,
        block.fields,
        { second: block.second, seq: this.#seq >>> 0, rows: block.rows, index: block.index },
        now,
      );
      touched.add(block.log);
      for (const [field, byValue] of block.index) {
        if (!this.#gatherer.direct(block.log, field, now)) continue;
        const keys = this.#indexKeys(block.log, field);
        for (const [value, rows] of byValue) {
          batch.push({ type: 'put', key: keys.key(value, block.second, this.#seq), value: encodeRows(rows) });
        }
      }
    }
    for (const log of touched) {
      const marker = this.#gatherer.marker(log);
      if (marker !== undefined) meta.set(gatheringName(log), JSON.stringify(marker));
    }
    for (const log of blocks.length === 0 ? due : this.#gatherer.due(now, this.#writeAllGathered)) {
      this.#postingPuts(log, batch);
      meta.set(gatheringName(log), '');
    }
    // Records, the index entries due, the roll-ups counting them and the meta values put with them
    // go in one atomic batch.
    batch.push(...this.#rollupPuts());
    await this.#valuePuts(values, batch);
    for (const [log, marker] of values.markers) meta.set(valuesName(log), marker);
    // A log whose records this batch writes: where its open buckets start, should it crash.
    for (const log of touched)
      if (this.#rolledUp.get(log) === true) meta.set(valuesName(log), this.#values.markerOf(log));
    for (const [name, value] of meta)
      batch.push({ type: 'put', key: metaKey(name), value: Buffer.from(value, 'utf8') });
    this.#inFlight = { records, bytes };
    const written = this.#writeBatch(batch);
    // An open LevelDB copies the batch before batch() returns, so the blocks can be reused at once.
    if (this.#db.status === 'open') {
      for (const block of blocks)
        if (block.buf.length === BLOCK_BYTES && this.#pool.length < POOLED_BLOCKS) this.#pool.push(block.buf);
    }
    try {
      await written;
    } finally {
      this.#inFlight = { records: 0, bytes: 0 };
    }
    // Gathered entries of a log that has gone quiet are written when due, without a new record.
    if (this.#gatherer.size > 0 && this.#gatherTimer === null && !this.#closing) {
      this.#gatherTimer = setTimeout(() => {
        this.#gatherTimer = null;
        void this.#schedule().catch(this.#onError);
      }, this.#gatherMs);
      this.#gatherTimer.unref();
    }
    for (const block of heard) {
      for (const listener of this.#listeners) {
        try {
          listener(block);
        } catch (error) {
          this.#onError(error);
        }
      }
    }
    if (this.#budget && (this.#writtenSinceCheck += bytes) >= checkAfterBytes(this.#budget)) void this.checkBudget();
  }

  /** A log's gathered index entries as puts: one per field, value and slot. */
  #postingPuts(log: string, batch: { type: 'put'; key: Buffer; value: Buffer }[]): void {
    const byField = this.#gatherer.take(log, performance.now());
    if (byField === undefined) return;
    for (const [field, values] of byField) {
      const keys = this.#indexKeys(log, field);
      for (const [value, positions] of values) {
        // Positions by 30 s slot, in one pass (a bulk load of old records spreads one value over
        // thousands of slots: a filter per slot was quadratic there).
        let slots: Map<number, Position[]> | undefined;
        const first = Math.floor(positions[0]!.second / SLOT) * SLOT;
        for (let i = 0; i < positions.length; i++) {
          const position = positions[i]!;
          const slot = Math.floor(position.second / SLOT) * SLOT;
          if (slots === undefined) {
            if (slot === first) continue;
            slots = new Map([[first, positions.slice(0, i)]]);
          }
          const inSlot = slots.get(slot);
          if (inSlot === undefined) slots.set(slot, [position]);
          else inSlot.push(position);
        }
        for (const [slotStart, inSlot] of slots ?? [[first, positions] as const]) {
          let newest = inSlot[0]!.seq;
          for (const p of inSlot) if (p.seq > newest) newest = p.seq;
          batch.push({
            type: 'put',
            key: keys.postingKey(value, slotStart, newest, POSTING_MARK),
            value: encodePosting(slotStart, inSlot),
          });
        }
      }
    }
  }

  /**
   * Writes one atomic batch of buffers. The public batch APIs check and encode every operation in
   * JavaScript (key and value validation, encodings, hooks, events), which here cost more than
   * LevelDB's own write: with two or three index entries per record that was half of the write
   * path (36,000 records/s against 68,000 this way). The keys and values are buffers this store
   * built itself, so they go straight into classic-level's native write batch (its `_put` and
   * `_write`); should those internals be missing, the public batch() takes them.
   */
  async #writeBatch(batch: { type: 'put'; key: Buffer; value: Buffer }[]): Promise<void> {
    const chained = this.#db.batch() as unknown as Partial<NativeChainedBatch> & { close(): Promise<void> };
    if (typeof chained._put !== 'function' || typeof chained._write !== 'function') {
      await chained.close();
      await this.#db.batch<Buffer, Buffer>(batch, { valueEncoding: 'buffer' });
      return;
    }
    try {
      for (const op of batch) chained._put(op.key, op.value);
      await chained._write({});
    } finally {
      await chained.close();
    }
  }

  /**
   * Checks the disk budget and deletes the oldest records (whole seconds, across logs) until the
   * store is within it. One check runs at a time; a call during a check gets that check's outcome.
   * Null without a budget, or when the check failed (reported to `onError`).
   */
  checkBudget(): Promise<BudgetCheck | null> {
    const budget = this.#budget;
    if (!budget || this.#closing || this.#db.status !== 'open') return Promise.resolve(null);
    this.#writtenSinceCheck = 0;
    this.#checking ??= enforceBudget(this.#trimmer, this.#dir, budget, this.#volume)
      .then(
        (check) => {
          for (const range of check.removed) {
            this.#logger.warn(
              { logs: range.logs, before: new Date(range.before).toISOString(), approxBytes: range.bytes },
              'log store over its disk budget: deleted the oldest records',
            );
          }
          if (!check.withinBudget) {
            this.#logger.error(
              {
                usedBytes: check.after.usedBytes,
                freeBytes: check.after.freeBytes,
                totalBytes: check.after.totalBytes,
              },
              'log store cannot get within its disk budget: other data fills the volume',
            );
          }
          return check;
        },
        (error: unknown) => {
          this.#onError(error);
          return null;
        },
      )
      .finally(() => {
        this.#checking = null;
      });
    return this.#checking;
  }

  /** Records of one log with from <= _timestamp < to, in time order (append order within a time). */
  async read(log: string, options: ReadOptions): Promise<LogRecord[]> {
    await this.flush();
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const out: LogRecord[] = [];
    // Blocks come in key order (second, then sequence); one second may span several blocks, so
    // its records are gathered and put in time order together (a stable sort keeps append order).
    let second = Number.NaN;
    let group: LogRecord[] = [];
    const emit = (): boolean => {
      group.sort((a, b) => a._timestamp - b._timestamp);
      for (const record of group) {
        if (out.length >= limit) return false;
        out.push(record);
      }
      group = [];
      return out.length < limit;
    };
    const first = Math.floor(options.from / SECOND) * SECOND;
    for await (const value of this.#db.values(rangeBounds(log, first, options.to))) {
      const rows = decodeBlock(value);
      for (let row = 0; row < rows.lines.length; row++) {
        const record = rows.record(row) as LogRecord | undefined;
        if (record === undefined) continue;
        if (record._timestamp < options.from || record._timestamp >= options.to) continue;
        const recordSecond = Math.floor(record._timestamp / SECOND);
        if (recordSecond !== second) {
          if (!emit()) return out;
          second = recordSecond;
        }
        group.push(record);
      }
    }
    emit();
    return out;
  }

  /**
   * One log's blocks from `to` back to `from` (newest first; oldest first with `oldestFirst`), each
   * with its records' JSON lines. Flushes first, so every acknowledged append is seen.
   *
   * Newest first over a long range, the newer half is read as it is consumed; once the reader has
   * gone on past its first blocks (a scan, not a first page), the older half is read at the same
   * time on LevelDB's worker thread, buffered up to PREFETCH_BYTES: on two cores a long scan takes
   * about half as long as reading one block after the other.
   */
  async *blocks(log: string, range: { from: number; to: number; oldestFirst?: boolean }): AsyncGenerator<StoredBlock> {
    await this.flush();
    const first = Math.floor(range.from / SECOND) * SECOND;
    if (range.oldestFirst || range.to - first < PARALLEL_MIN_SPAN) {
      yield* this.#scan(log, first, range.to, !range.oldestFirst);
      return;
    }
    const middle = first + Math.floor((range.to - first) / 2 / SECOND) * SECOND;
    let older: Prefetch | undefined;
    try {
      let seen = 0;
      for await (const block of this.#scan(log, middle, range.to, true)) {
        if (++seen === PREFETCH_AFTER_BLOCKS)
          older = new Prefetch(this.#scan(log, first, middle, true), PREFETCH_BYTES);
        yield block;
      }
      yield* older ? older.drain() : this.#scan(log, first, middle, true);
    } finally {
      await older?.stop();
    }
  }

  async *#scan(log: string, from: number, to: number, newestFirst: boolean): AsyncGenerator<StoredBlock> {
    const iterator = this.#db.iterator({ ...rangeBounds(log, from, to), reverse: newestFirst });
    try {
      // Entries are fetched a batch at a time (one call into LevelDB per batch, not per block),
      // starting small: a first page usually needs only the newest few blocks.
      for (let size = 16; ; size = Math.min(size * 4, 1024)) {
        const entries = await iterator.nextv(size);
        for (const [key, value] of entries) {
          const { second, seq } = blockPosition(key);
          yield storedBlock(log, second, seq, value);
        }
        if (entries.length === 0) return;
      }
    } finally {
      await iterator.close();
    }
  }

  /** The store's size on disk and the space of its volume. */
  async usage(): Promise<DiskUsage> {
    const space = await this.#volume(this.#dir);
    return { ...space, usedBytes: await folderBytes(this.#dir) };
  }

  /** The disk budget the store keeps, if any. */
  get budget(): DiskBudget | undefined {
    return this.#budget;
  }

  /** Hears of every block as soon as it is written (a live tail); returns the way to stop. */
  subscribe(listener: (block: StoredBlock) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * The time of a log's oldest and newest block (whole seconds), or null when it has none: two
   * seeks the first time, then kept up to date by appends (a deletion forgets it).
   */
  async span(log: string): Promise<{ oldest: number; newest: number } | null> {
    // What was appended counts: a search right after an intake's lines must see them.
    await this.flush();
    const known = this.#spans.get(log);
    if (known !== undefined) return { ...known };
    const changes = this.#changes;
    const bounds = rangeBounds(log, 0, Number.MAX_SAFE_INTEGER);
    const [first] = await this.#db.keys({ ...bounds, limit: 1 }).all();
    if (first === undefined) return null;
    const [last] = await this.#db.keys({ ...bounds, limit: 1, reverse: true }).all();
    const span = { oldest: blockPosition(first).second, newest: blockPosition(last ?? first).second };
    // Nothing was appended or deleted while the seeks ran (they might have missed it): keep it.
    if (this.#changes === changes) this.#spans.set(log, { ...span });
    return span;
  }

  /** One block's rows, or undefined when it is gone (retention) or never was. */
  async block(log: string, second: number, seq: number): Promise<BlockRows | undefined> {
    await this.flush();
    const value = await this.#db.get(recordKey(log, second, seq));
    return value === undefined ? undefined : decodeBlock(value);
  }

  /**
   * The blocks holding `field = value` between `from` and `to`, newest first, with the rows that hold
   * it: one seek per hour of the range. A value longer than the indexed prefix matches every value
   * with that prefix; the caller checks the records.
   */
  async *indexed(
    log: string,
    field: string,
    value: string,
    range: { from: number; to: number },
  ): AsyncGenerator<IndexedBlock> {
    await this.flush();
    const bytes = indexValueBytes(value);
    // Only the hours the log has records in are sought (a range of `all` would be ~500,000 hours).
    const span = await this.span(log);
    if (span === null) return;
    const from = Math.max(Math.floor(range.from / SECOND) * SECOND, span.oldest);
    const to = Math.min(range.to, span.newest + SECOND);
    if (to <= from) return;
    // Entries still gathering are read from memory; should they be written while this reads, their
    // stored copy is skipped.
    const gathered = this.#gatherer.positions(log, field, indexedForm(value));
    const inMemory = new Set(gathered.map((p) => `${p.second}/${p.seq}`));
    for (let hour = Math.floor((to - 1) / HOUR) * HOUR; hour >= Math.floor(from / HOUR) * HOUR; hour -= HOUR) {
      // Postings overlap in time (a late block joins a later entry of its slot): blocks go through
      // a heap and leave it newest first once no entry still to be read can hold a newer one.
      const heap = new NewestFirst<{ second: number; seq: number; rows: () => number[] }>();
      const within = (second: number): boolean =>
        second >= from && second < to && second >= hour && second < hour + HOUR;
      for (const p of gathered)
        if (within(p.second)) heap.push({ second: p.second, seq: p.seq, rows: () => [...p.rows] });
      const prefix = indexValuePrefix(log, field, hour, bytes);
      // A posting's key holds its slot's first second, earlier than its blocks' by up to SLOT.
      const lower = Buffer.concat([prefix, timeKey(Math.max(Math.floor(from / SLOT) * SLOT, hour))]);
      const upper = Buffer.concat([prefix, timeKey(Math.min(to, hour + HOUR))]);
      const iterator = this.#db.iterator<Buffer, Buffer>({
        gte: lower,
        lt: upper,
        reverse: true,
        valueEncoding: 'buffer',
      });
      try {
        for await (const [key, entry] of iterator) {
          const tail = key.length - prefix.length;
          let keyTime: number;
          if (tail === 13 && key[key.length - 1] === POSTING_MARK) {
            keyTime = Number(key.readBigUInt64BE(prefix.length));
            for (const block of decodePosting(keyTime, entry)) {
              if (within(block.second) && !inMemory.has(`${block.second}/${block.seq}`)) heap.push(block);
            }
          } else {
            // An entry of one block (stores written before postings).
            const { second, seq } = blockPosition(key);
            keyTime = second;
            if (within(second)) heap.push({ second, seq, rows: () => decodeRows(entry) });
          }
          // Every entry after this one starts at or before keyTime: blocks from keyTime + SLOT on are final.
          for (let top = heap.peek(); top !== undefined && top.second >= keyTime + SLOT; top = heap.peek()) {
            heap.pop();
            yield { second: top.second, seq: top.seq, rows: top.rows() };
          }
        }
      } finally {
        await iterator.close();
      }
      for (let top = heap.pop(); top !== undefined; top = heap.pop()) {
        yield { second: top.second, seq: top.seq, rows: top.rows() };
      }
    }
  }

  /** The approximate bytes of index entries for `field = value` in a range: how selective a term is. */
  async indexedBytes(log: string, field: string, value: string, range: { from: number; to: number }): Promise<number> {
    const bytes = indexValueBytes(value);
    const span = await this.span(log);
    if (span === null) return 0;
    const to = Math.min(range.to, span.newest + SECOND);
    let total = 0;
    for (let hour = Math.floor(Math.max(range.from, span.oldest) / HOUR) * HOUR; hour < to; hour += HOUR) {
      const prefix = indexValuePrefix(log, field, hour, bytes);
      total += await this.#db.approximateSize(prefix, prefixEnd(prefix));
    }
    return total;
  }

  /**
   * One log's roll-up counts of one granularity (default minutes) for the buckets starting in
   * [from, to), oldest first; a bucket may come in several parts (one per boot, late records).
   */
  async *rollups(
    log: string,
    range: { from: number; to: number },
    granularity: Granularity = 'm',
  ): AsyncGenerator<BucketCounts> {
    await this.flush();
    const span = SPAN[granularity];
    const iterator = this.#db.iterator({
      ...rollupRange(log, granularity, Math.ceil(range.from / span) * span, range.to),
      highWaterMarkBytes: ROLLUP_READ_BYTES,
    });
    try {
      for await (const [key, value] of iterator) {
        yield { at: rollupTime(key), counts: JSON.parse(value) as Record<string, number> };
      }
    } finally {
      await iterator.close();
    }
  }

  /** Every log with records, with its oldest and newest second (two seeks per log). */
  async spans(): Promise<{ log: string; oldest: number; newest: number }[]> {
    await this.flush();
    return (await this.#trimmer.spans()).map(({ log, oldest, newest }) => ({ log, oldest, newest }));
  }

  /**
   * The store's approximate size in its table files (LevelDB's estimate over every key; the
   * memtable not counted): one call, with no flush and no read, for a metrics scrape.
   */
  approximateBytes(): Promise<number> {
    return this.#db.approximateSize(Buffer.alloc(1, 0), Buffer.alloc(16, 0xff));
  }

  /** Every log with records: its oldest and newest second and its approximate size. */
  async logs(): Promise<LogSpanInfo[]> {
    const spans = await this.spans();
    return Promise.all(
      spans.map(async (span) => ({
        log: span.log,
        oldest: span.oldest,
        newest: span.newest,
        approxBytes:
          (await this.#db.approximateSize(recordKey(span.log, 0, 0), recordKey(span.log, Number.MAX_SAFE_INTEGER, 0))) +
          (await this.#db.approximateSize(indexLogPrefix(span.log), prefixEnd(indexLogPrefix(span.log)))) +
          (await this.#db.approximateSize(rollupPrefix(span.log), prefixEnd(rollupPrefix(span.log)))) +
          (await this.#db.approximateSize(valueLogPrefix(span.log), prefixEnd(valueLogPrefix(span.log)))),
      })),
    );
  }

  /** Deletes one log's records before `before` (whole seconds), with their index entries and roll-ups. */
  async deleteBefore(log: string, before: number): Promise<void> {
    await this.flush();
    await this.#removeBefore(log, before);
  }

  /** Deletes every record of one log, its index entries and roll-ups. */
  async purge(log: string): Promise<void> {
    await this.deleteBefore(log, Number.MAX_SAFE_INTEGER);
    await this.#db.clear({ gte: valueLogPrefix(log), lt: prefixEnd(valueLogPrefix(log)) });
  }

  async #removeBefore(log: string, before: number): Promise<void> {
    this.#spans.delete(log);
    this.#changes++;
    const cutoff = Math.floor(before / SECOND) * SECOND;
    const records = { gte: recordKey(log, 0, 0), lt: recordKey(log, cutoff, 0) };
    await this.#db.clear(records);
    // Index entries sit under (log, field, hour): whole hours before the cutoff go; the cutoff's own
    // hour keeps its entries until it is over (a reader skips entries whose block is gone).
    const lastHour = Math.floor(cutoff / HOUR) * HOUR;
    for (const field of await this.#indexedFieldsOf(log)) {
      const prefix = indexFieldPrefix(log, field);
      await this.#db.clear({ gte: prefix, lt: Buffer.concat([prefix, timeKey(lastHour)]) });
    }
    // Roll-ups: the whole buckets before the cutoff (the cutoff's own bucket keeps counting records
    // it no longer holds; readers start a range at the log's oldest record, so they never read it).
    for (const granularity of ['m', 'h', 'd'] as const) {
      const span = SPAN[granularity];
      const end = Math.floor(cutoff / span) * span;
      await this.#db.clear(rollupRange(log, granularity, 0, end));
      const held = this.#rollups[granularity].get(log);
      if (held) for (const time of held.keys()) if (time + span <= cutoff) held.delete(time);
      if (granularity === 'd' && !rolledUp(log)) continue;
      for (const field of VALUE_FIELDS) await this.#db.clear(valueRange(log, granularity, field, 0, end));
    }
    this.#values.dropBefore(log, cutoff);
    this.#gatherer.dropBefore(log, cutoff);
    await this.#db.compactRange(records.gte, records.lt);
  }

  /** The fields one log has index entries for (a skip-scan: one seek per field). */
  async #indexedFieldsOf(log: string): Promise<string[]> {
    const fields: string[] = [];
    const logPrefix = indexLogPrefix(log);
    let from: Buffer = logPrefix;
    for (;;) {
      const [key] = await this.#db.keys({ gte: from, lt: prefixEnd(logPrefix), limit: 1 }).all();
      if (key === undefined) return fields;
      const end = key.indexOf(0, logPrefix.length);
      if (end < 0) return fields;
      const field = key.subarray(logPrefix.length, end).toString('utf8');
      fields.push(field);
      from = prefixEnd(indexFieldPrefix(log, field));
    }
  }

  /**
   * Deletes what is older than its kind's retention (default 30 days), in every log. Runs every
   * hour with `options.retention`; returns the logs it cut and their cutoffs.
   */
  async applyRetention(now = this.#clock.now()): Promise<{ log: string; before: number }[]> {
    const retention = this.#retention;
    if (!retention || this.#closing || this.#db.status !== 'open') return [];
    const cut: { log: string; before: number }[] = [];
    try {
      for (const span of await this.#trimmer.spans()) {
        const days = retention.days()[kindOfLog(span.log)] ?? DEFAULT_RETENTION_DAYS;
        const before = now - days * DAY;
        if (span.oldest >= before) continue;
        await this.#removeBefore(span.log, before);
        cut.push({ log: span.log, before });
        this.#logger.info(
          { log: span.log, before: new Date(before).toISOString(), days },
          'log retention: deleted records older than the retention',
        );
      }
    } catch (error) {
      this.#onError(error);
    }
    return cut;
  }

  /**
   * Every stored entry (records, index postings, roll-ups, meta) as LevelDB holds it, from one
   * snapshot (a LevelDB iterator reads a consistent view while writes go on): a backup copies the
   * store this way instead of copying its files under a running engine. What was appended before
   * the call is written first. Index entries still gathering in memory are not entries yet: the
   * marker that says so is, and the store a backup is restored into indexes them again on open.
   */
  async *entries(): AsyncGenerator<[Buffer, string]> {
    await this.flush();
    for await (const [key, value] of this.#db.iterator()) yield [key, value];
  }

  /**
   * Writes entries (from `entries()`) into the log store of a data directory that has none yet,
   * in batches; returns how many. The restore of a backup; the engine opens the store afterwards.
   */
  static async writeEntries(dataDir: string, entries: AsyncIterable<[Buffer, string]>): Promise<number> {
    const db = new ClassicLevel<Buffer, string>(join(dataDir, 'logs'), {
      keyEncoding: 'buffer',
      valueEncoding: 'utf8',
      errorIfExists: true,
    });
    await db.open();
    let count = 0;
    try {
      let batch = db.batch();
      for await (const [key, value] of entries) {
        batch.put(key, value);
        if (++count % 1000 === 0) {
          await batch.write();
          batch = db.batch();
        }
      }
      await batch.write();
    } finally {
      await db.close();
    }
    return count;
  }

  async close(): Promise<void> {
    // No new check starts (the last flush may cross the burst threshold); one under way finishes first.
    this.#closing = true;
    if (this.#budgetTimer) clearInterval(this.#budgetTimer);
    this.#budgetTimer = null;
    if (this.#retentionTimer) clearInterval(this.#retentionTimer);
    this.#retentionTimer = null;
    if (this.#gatherTimer) clearTimeout(this.#gatherTimer);
    this.#gatherTimer = null;
    await this.#checking;
    // Gathered index entries are written now: a clean stop leaves nothing to index again at the next start.
    this.#writeAllGathered = true;
    await this.flush();
    await this.#db.close();
  }
}
