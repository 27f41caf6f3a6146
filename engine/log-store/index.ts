/**
 * Log store: access, detection and other logs in LevelDB under `<data>/logs`. Keys order records by
 * log name, then timestamp, then sequence, so a time range is one scan. Appends are batched.
 * A disk budget (keep a share of the volume free, optionally an absolute cap) deletes the oldest
 * records across logs until the store fits; retention by age, indexes, roll-ups and search come with
 * the log-search work.
 */
export { LogStore } from './log-store.ts';
export type { LogRecord, ReadOptions, LogStoreOptions } from './log-store.ts';
export { recordKey } from './keys.ts';
export { bytesOverBudget, DEFAULT_MIN_FREE_RATIO, DEFAULT_BUDGET_CHECK_MS } from './disk-budget.ts';
export type { DiskBudget, DiskUsage, VolumeSpace, VolumeProbe, BudgetCheck, TrimmedRange } from './disk-budget.ts';
