/** How a log record's values read in the table, the detail and the surrounding records. */
import { formatTime } from '$lib/format.ts';

export type LogRecord = Readonly<Record<string, unknown>>;

/** A record in the results table. */
export interface ResultRow {
  id: string;
  record: LogRecord;
  /** Arrived by the live tail. */
  fresh?: boolean;
}

/** A field's value, also for dotted names of nested objects (`_intelligence_result.intel.ua_family`). */
export function valueOf(record: LogRecord, field: string): unknown {
  if (Object.hasOwn(record, field)) return record[field];
  let current: unknown = record;
  for (const part of field.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A value as one line of text: the time for `_timestamp`, JSON for objects, empty for nothing. */
export function displayValue(field: string, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (field === '_timestamp' && typeof value === 'number') return formatTime(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The value as a filter pill compares it (the engine compares the text of scalars). */
export function filterValue(value: unknown): string | null {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** Records whose parse failed (spec 7): parsed = 0, with the cause in `reason`. */
export function unparsedReason(record: LogRecord): string | null {
  if (record.parsed !== 0 && record.parsed !== '0') return null;
  return typeof record.reason === 'string' ? record.reason : '';
}

/** Whether Core Rule Set rules fired on an access record (`waf_triggered_rules`: `942100,941100` or a list). */
export function wafRulesFired(record: LogRecord): boolean {
  const rules = record.waf_triggered_rules;
  if (typeof rules === 'string') return rules.trim() !== '';
  return Array.isArray(rules) && rules.length > 0;
}
