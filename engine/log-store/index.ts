/**
 * Log store: access, detection and other logs in LevelDB under `<data>/logs`. Keys order records by
 * log name, then timestamp, then sequence, so a time range is one scan. Appends are batched.
 * Indexes, roll-ups, retention and search come with the log-search work.
 */
export { LogStore } from './log-store.ts';
export type { LogRecord, ReadOptions } from './log-store.ts';
export { recordKey } from './keys.ts';
