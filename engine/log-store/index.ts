/**
 * Log store: access, detection and other logs in LevelDB under `<data>/logs` (docs/DESIGN.md 2a).
 * Records are kept in blocks by log, second and sequence, so a time range is one scan; per-minute
 * roll-up counts are written in the records' atomic batch, index entries (INDEXED_FIELDS and a log's
 * extra fields) gather for a few seconds and are written as postings (a crash re-indexes them). Retention by age per log kind and a disk budget delete the oldest
 * records together with their index entries and roll-ups.
 */
export { LogStore, DEFAULT_RETENTION_DAYS } from './log-store.ts';
export type {
  LogRecord,
  ReadOptions,
  LogStoreOptions,
  Retention,
  StoredBlock,
  IndexedBlock,
  BucketCounts,
  LogSpanInfo,
} from './log-store.ts';
export { recordKey, MAX_INDEXED_VALUE } from './keys.ts';
export { VALUE_FIELDS, OPEN_CAP, KEPT, DISTINCT_FIELDS, pathOf } from './value-rollups.ts';
export type { ValueField, ValueCounts } from './value-rollups.ts';
export { DistinctSketch } from './distinct-sketch.ts';
export { coverRange, SPAN } from './keys.ts';
export type { Granularity } from './keys.ts';
export { decodeBlock, encodeValues, rowCount } from './block-format.ts';
export type { BlockRows, EncodedValues } from './block-format.ts';
export {
  INDEXED_FIELDS,
  LIST_FIELDS,
  LOG_KINDS,
  ROLLUP_DIMENSIONS,
  kindOfLog,
  parseDimsKey,
  rollupDimsKey,
  statusClass,
  valuesOf,
} from './fields.ts';
export type { IndexedField, LogKind, RollupDimension, RollupDims } from './fields.ts';
export { bytesOverBudget, enforceBudget, DEFAULT_MIN_FREE_RATIO, DEFAULT_BUDGET_CHECK_MS } from './disk-budget.ts';
export type { DiskBudget, DiskUsage, VolumeSpace, VolumeProbe, BudgetCheck, TrimmedRange } from './disk-budget.ts';
