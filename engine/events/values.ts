import { hash53 } from '#engine/shared';

type LogRecord = Readonly<Record<string, unknown>>;

/**
 * A field of a record: `record[field]`, or when absent the intelligence sub-field of the same name
 * (`_intelligence_result.intel.ip_country`), so conditions on intelligence fields work on access
 * records, which keep only `_intelligence_result`.
 */
export function fieldValue(record: LogRecord, field: string): unknown {
  const value = record[field];
  if (value !== undefined) return value;
  const intel = intelOf(record);
  return intel === null ? undefined : intel[field];
}

/** A record's `_intelligence_result.intel` object, or null. */
export function intelOf(record: LogRecord): Readonly<Record<string, unknown>> | null {
  const result = record._intelligence_result;
  if (typeof result !== 'object' || result === null) return null;
  const intel = (result as { intel?: unknown }).intel;
  return typeof intel === 'object' && intel !== null ? (intel as Record<string, unknown>) : null;
}

/** A value as text for string matching: strings as they are, numbers and booleans written out, anything else null. */
export function asText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return null;
}

/** A value as a finite number: numbers, and strings `Number` reads (blank is not a number); else NaN. */
export function asNumber(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : NaN;
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) return NaN;
  const n = +value;
  if (!Number.isFinite(n)) return NaN;
  return n === 0 && value.trim() === '' ? NaN : n;
}

/** Longer trigger-object values are kept as a prefix and a hash, so a key's memory stays bounded. */
const MAX_KEY_LENGTH = 256;

/** A trigger-object value as a key: non-empty text or a finite number; null when the record has none. */
export function keyOf(record: LogRecord, field: string): string | null {
  const value = record[field];
  if (typeof value === 'string') {
    if (value.length === 0) return null;
    return value.length <= MAX_KEY_LENGTH ? value : longKey(value);
  }
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  return null;
}

function longKey(value: string): string {
  return `${value.slice(0, MAX_KEY_LENGTH - 16)}#${hash53(value).toString(16).padStart(14, '0')}`;
}

/** A value for a firing's meta: numbers as they are, text capped. */
export function metaValue(value: unknown): string | number {
  if (typeof value === 'number') return value;
  const text = asText(value);
  if (text === null) return '';
  return text.length <= 256 ? text : `${text.slice(0, 255)}…`;
}
