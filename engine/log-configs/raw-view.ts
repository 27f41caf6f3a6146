import { customLogName, RAW_LOG } from './log-configs-service.ts';

type Row = Readonly<Record<string, unknown>>;

const CUSTOM_PREFIX = customLogName('');

/** The fields of a raw log record (spec 1.2, 3): the line, whether it parsed and, when not, why. */
export const RAW_FIELDS: ReadonlySet<string> = new Set([
  '_timestamp',
  'log_id',
  'log_setting_id',
  'parsed',
  'reason',
  'raw_data',
]);

/**
 * The raw log (spec 1.2: every line of the TCP and BROKER configurations) as a view, so that a line
 * is stored once: a line that parsed is read from its configuration's log (`custom:<id>`, which
 * holds it as `raw_data` with `log_id`, `log_setting_id` and `parsed` 1), shown with the raw log's
 * fields only; a line that did not parse is stored under `raw` itself, with `parsed` 0 and the
 * reason. A parsed line sits at its record's time (the time the configuration extracts), a failed
 * one at its arrival. The search module reads it (its LogView).
 */
export const rawLogView = {
  fields: RAW_FIELDS,
  includes: (log: string): boolean => log === RAW_LOG || log.startsWith(CUSTOM_PREFIX),
  project(log: string, record: Row): Row {
    if (log === RAW_LOG) return record;
    const shown: Record<string, unknown> = {};
    for (const field of RAW_FIELDS) if (record[field] !== undefined) shown[field] = record[field];
    return shown;
  },
};
