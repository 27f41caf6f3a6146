/**
 * What the store indexes and rolls up, read from a record as it is appended (docs/DESIGN.md 2a).
 */

/** Fields with a secondary index: the ones people filter on most (spec 2.3 names). */
export const INDEXED_FIELDS = [
  'src_ip',
  'hostname',
  'site_id',
  'guard_status',
  'status',
  'fingerprint',
  'account',
  'triggered_events',
  'triggered_rules',
  'waf_triggered_rules',
  'client_bot_type',
  'log_setting_id',
  'event_configure_id',
] as const;
export type IndexedField = (typeof INDEXED_FIELDS)[number];

/** Fields that hold several ids: each item gets its own index entry (`942100,949110` or an array). */
export const LIST_FIELDS: ReadonlySet<string> = new Set([
  'triggered_events',
  'triggered_rules',
  'waf_triggered_rules',
  'waf_triggered_categories',
]);

/** The items of a field's value as index values: strings, numbers as decimals; nothing for empty or objects. */
export function valuesOf(field: string, value: unknown): string[] {
  if (value === undefined || value === null || value === '') return [];
  if (Array.isArray(value)) return value.flatMap((item) => valuesOf(field, item));
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (typeof value !== 'string') return [];
  if (!LIST_FIELDS.has(field)) return [value];
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** The roll-up dimensions, in the order of a dimension key's parts. */
export const ROLLUP_DIMENSIONS = [
  'site',
  'guard_status',
  'bot_type',
  'status_class',
  'attack_group',
  'log_setting',
] as const;
export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];
export type RollupDims = Record<RollupDimension, string>;

const DIM_SEPARATOR = '\u0001';

const text = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';

const STATUS_CLASSES = ['', '1xx', '2xx', '3xx', '4xx', '5xx'];

/** The status class of a status code: `2xx` .. `5xx`, or '' when there is none. */
export function statusClass(status: unknown): string {
  const code = typeof status === 'number' ? status : typeof status === 'string' ? Number(status) : NaN;
  return Number.isInteger(code) && code >= 100 && code < 600 ? STATUS_CLASSES[Math.floor(code / 100)]! : '';
}

/** The attack group of a record: its first WAF category (`sqli`, `xss`, ...), or ''. */
function attackGroup(record: Readonly<Record<string, unknown>>): string {
  const categories = valuesOf('waf_triggered_categories', record.waf_triggered_categories);
  return categories[0] ?? '';
}

/** A record's roll-up key: its dimension values joined (no value holds the separator). */
export function rollupDimsKey(log: string, record: Readonly<Record<string, unknown>>): string {
  const site = text(record.site_id) || siteOfLog(log);
  return [
    site,
    text(record.guard_status),
    text(record.client_bot_type),
    statusClass(record.status),
    attackGroup(record),
    text(record.log_setting_id),
  ]
    .map((part) => part.replaceAll(DIM_SEPARATOR, ''))
    .join(DIM_SEPARATOR);
}

type DimsTree = Map<string, DimsTree | string>;

function step(node: DimsTree, part: string): DimsTree {
  let next = node.get(part);
  if (next === undefined) node.set(part, (next = new Map()));
  return next as DimsTree;
}

/**
 * rollupDimsKey, with the keys already made looked up by the values they were made from (seven map
 * lookups, no string built per record): the write path counts every record. Holds at most `limit`
 * keys, then starts over.
 */
export class RollupDimsKeys {
  #root: DimsTree = new Map();
  #size = 0;
  constructor(private readonly limit = 10_000) {}

  of(log: string, record: Readonly<Record<string, unknown>>): string {
    const attack = record.waf_triggered_categories;
    // Categories as an array (not what the engine writes): the general path.
    if (attack !== undefined && attack !== null && typeof attack !== 'string') return rollupDimsKey(log, record);
    let node = step(this.#root, log);
    node = step(node, text(record.site_id));
    node = step(node, text(record.guard_status));
    node = step(node, text(record.client_bot_type));
    node = step(node, statusClass(record.status));
    node = step(node, attack ?? '');
    const setting = text(record.log_setting_id);
    const known = node.get(setting);
    if (typeof known === 'string') return known;
    const key = rollupDimsKey(log, record);
    if (++this.#size > this.limit) {
      this.#root = new Map();
      this.#size = 0;
    } else node.set(setting, key);
    return key;
  }
}

export function parseDimsKey(key: string): RollupDims {
  const parts = key.split(DIM_SEPARATOR);
  return Object.fromEntries(ROLLUP_DIMENSIONS.map((dim, i) => [dim, parts[i] ?? ''])) as RollupDims;
}

/** `access:<site>` -> `<site>`; other logs name no site. */
function siteOfLog(log: string): string {
  const colon = log.indexOf(':');
  return colon > 0 ? log.slice(colon + 1) : '';
}

/** The kind of a log by its name: `access:<site>` -> access. Retention is set per kind. */
export const LOG_KINDS = ['access', 'detection', 'probe', 'messaging', 'raw', 'custom', 'trigger', 'audit'] as const;
export type LogKind = (typeof LOG_KINDS)[number];

export function kindOfLog(log: string): LogKind {
  const kind = log.split(':', 1)[0] ?? '';
  return (LOG_KINDS as readonly string[]).includes(kind) ? (kind as LogKind) : 'custom';
}
