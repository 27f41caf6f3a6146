/**
 * The log search page's state as the URL holds it (log, time range, query, filter pills, columns,
 * the expanded record), so a reload or a shared link shows the same view; the filter pills as the
 * engine's filter JSON (searchLogs `filter`) and as query text (the live tail takes only a query).
 * Pure: the page reads and writes the router's query string with these.
 */
import type { z } from 'zod';
import type { LogView, searchLogs } from './contracts.ts';

/** The search body as the engine reads it (its filter tree typed, not the schema's `unknown` input). */
type SearchBody = z.output<typeof searchLogs.body>;
export type TimeRange = SearchBody['range'];
export type Filter = NonNullable<SearchBody['filter']>;
export type RelativeRange = Extract<TimeRange, { last: unknown }>['last'];
export type LogKind = LogView['kind'];

/** The quick-select choices of the time picker, shortest first (`all` is offered beside them). */
export const QUICK_RANGES: readonly RelativeRange[] = ['15m', '1h', '4h', '24h', '7d', '30d', '90d', '1y'];
export const DEFAULT_RANGE: TimeRange = { last: '24h' };

/** A filter pill: one condition on a field, for or (negated) against it, and switched off without being lost. */
export type PillOp = 'is' | 'exists' | 'contains' | 'between' | 'matches';
export const PILL_OPS: readonly PillOp[] = ['is', 'exists', 'contains', 'between', 'matches'];
export interface Pill {
  field: string;
  op: PillOp;
  /** is, contains: the text; matches: the regular expression. */
  value?: string;
  /** between: the inclusive bounds (either may be left open). */
  gte?: number;
  lte?: number;
  negate: boolean;
  disabled: boolean;
}

export interface SearchState {
  log: string;
  range: TimeRange;
  query: string;
  pills: Pill[];
  /** Null: the log kind's default columns. */
  columns: string[] | null;
  /** The record whose detail is open. */
  expanded: string | null;
}

export const EMPTY_STATE: SearchState = {
  log: '',
  range: DEFAULT_RANGE,
  query: '',
  pills: [],
  columns: null,
  expanded: null,
};

/** Columns worth seeing first, per log kind (spec 2.3 names). */
const DEFAULT_COLUMNS: Readonly<Record<LogKind, readonly string[]>> = {
  access: ['_timestamp', 'src_ip', 'request', 'status', 'guard_status'],
  detection: ['_timestamp', 'src_ip', 'detection_result', 'client_bot_type', 'user_agent'],
  probe: ['_timestamp', 'src_ip', 'referrer', 'mode', 'user_agent'],
  messaging: ['_timestamp', 'src_ip', 'request', 'guard_status'],
  trigger: ['_timestamp', 'event_name', 'triggered_events', 'triggered_rules'],
  raw: ['_timestamp', 'raw_data', 'parsed', 'reason'],
  custom: ['_timestamp', 'raw_data', 'parsed', 'reason'],
  audit: ['_timestamp', 'account', 'src_ip', 'action', 'resource_id', 'status'],
};

export function defaultColumns(kind: LogKind | undefined): string[] {
  return [...(DEFAULT_COLUMNS[kind ?? 'access'] ?? DEFAULT_COLUMNS.access)];
}

/** The kind a log name starts with (`access:<site id>`), as the engine names them. */
export function kindOf(log: string): LogKind {
  const head = log.split(':')[0] ?? '';
  return (head in DEFAULT_COLUMNS ? head : 'custom') as LogKind;
}

/** The log fields of spec 2.3, offered by the query box's completion before any record was seen. */
export const SPEC_FIELDS: readonly string[] = [
  '_timestamp',
  'account',
  'body_bytes_sent',
  'client_bot_type',
  'detection_result',
  'fingerprint',
  'guard_status',
  'hostname',
  'ip_city',
  'ip_classification',
  'ip_data_center_name',
  'keeper_version',
  'login_status',
  'meta_data',
  'referrer',
  'request',
  'request_time',
  'scheme',
  'session',
  'site_id',
  'source_type',
  'src_ip',
  'status',
  'tenant_id',
  'ua_classification',
  'ua_family',
  'ua_os',
  'ua_version_major',
  'user_agent',
  'x_forwarded_for',
  'raw_data',
  'reason',
  'log_id',
  'log_setting_id',
  'parsed',
  't_detector',
  'event_name',
  'event_configure_id',
  'event_meta',
  'waf_triggered_rules',
  'waf_triggered_categories',
  'waf_triggered_score',
  'triggered_events',
  'triggered_rules',
  // The audit log (engine/audit).
  'account_id',
  'account_role',
  'method',
  'route',
  'action',
  'resource_kind',
  'resource_id',
  'outcome',
  'error_code',
  'duration_ms',
  'changed_fields',
  'before',
  'after',
];

const FIELD_NAME = /^[A-Za-z_@][\w.@-]*$/;
const isRelative = (text: string): text is RelativeRange => (QUICK_RANGES as readonly string[]).includes(text);

// ---- time range ----

/** `24h`, `all`, or `<from>~<to>` in epoch milliseconds. */
export function encodeRange(range: TimeRange): string {
  if ('all' in range) return 'all';
  if ('last' in range) return range.last;
  return `${range.from}~${range.to}`;
}

export function decodeRange(text: string | null): TimeRange {
  if (!text) return DEFAULT_RANGE;
  if (text === 'all') return { all: true };
  if (isRelative(text)) return { last: text };
  const m = /^(\d{1,15})~(\d{1,15})$/.exec(text);
  if (m) {
    const from = Number(m[1]);
    const to = Number(m[2]);
    if (from < to) return { from, to };
  }
  return DEFAULT_RANGE;
}

const RELATIVE_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, y: 365 * 86_400_000 };

/** A range as the epoch milliseconds it covers now (`all`: from the epoch). */
export function spanOf(range: TimeRange, now: number): { from: number; to: number } {
  if ('all' in range) return { from: 0, to: now };
  if ('last' in range) {
    const m = /^(\d+)([mhdy])$/.exec(range.last);
    const ms = m ? Number(m[1]) * (RELATIVE_MS[m[2] ?? 'h'] ?? 3_600_000) : 86_400_000;
    return { from: now - ms, to: now };
  }
  return { from: range.from, to: range.to };
}

// ---- pills ----

interface PillJson {
  f: string;
  o: PillOp;
  v?: string;
  g?: number;
  l?: number;
  n?: 1;
  d?: 1;
}

/** Whether a pill says something the engine can run (a field name, and what its operator needs). */
export function pillValid(pill: Pill): boolean {
  if (!FIELD_NAME.test(pill.field) || pill.field.length > 128) return false;
  switch (pill.op) {
    case 'is':
      return pill.value !== undefined && pill.value.length <= 1024;
    case 'contains':
    case 'matches':
      return pill.value !== undefined && pill.value.length > 0 && pill.value.length <= 1024;
    case 'between':
      return (
        (Number.isFinite(pill.gte) || Number.isFinite(pill.lte)) &&
        !(pill.gte !== undefined && pill.lte !== undefined && pill.gte > pill.lte)
      );
    case 'exists':
      return true;
    default:
      return false;
  }
}

function pillJson(pill: Pill): PillJson {
  const json: PillJson = { f: pill.field, o: pill.op };
  if (pill.op === 'is' || pill.op === 'contains' || pill.op === 'matches') json.v = pill.value ?? '';
  if (pill.op === 'between') {
    if (pill.gte !== undefined) json.g = pill.gte;
    if (pill.lte !== undefined) json.l = pill.lte;
  }
  if (pill.negate) json.n = 1;
  if (pill.disabled) json.d = 1;
  return json;
}

function pillFromJson(value: unknown): Pill | null {
  if (typeof value !== 'object' || value === null) return null;
  const j = value as Partial<Record<keyof PillJson, unknown>>;
  if (typeof j.f !== 'string' || typeof j.o !== 'string' || !(PILL_OPS as readonly string[]).includes(j.o)) {
    return null;
  }
  const pill: Pill = { field: j.f, op: j.o as PillOp, negate: j.n === 1, disabled: j.d === 1 };
  if (typeof j.v === 'string') pill.value = j.v;
  if (typeof j.g === 'number') pill.gte = j.g;
  if (typeof j.l === 'number') pill.lte = j.l;
  return pillValid(pill) ? pill : null;
}

export function encodePills(pills: readonly Pill[]): string {
  return pills.length === 0 ? '' : JSON.stringify(pills.map(pillJson));
}

/** The pills of a URL; anything that is not a valid pill is left out (a hand-edited or truncated link). */
export function decodePills(text: string | null): Pill[] {
  if (!text) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed
    .slice(0, 64)
    .map(pillFromJson)
    .filter((p): p is Pill => p !== null);
}

function pillTerm(pill: Pill): Filter {
  switch (pill.op) {
    case 'is':
      return { op: 'eq', field: pill.field, value: pill.value ?? '' };
    case 'exists':
      return { op: 'exists', field: pill.field };
    case 'contains':
      return { op: 'contains', field: pill.field, value: pill.value ?? '' };
    case 'matches':
      return { op: 'regex', field: pill.field, pattern: pill.value ?? '' };
    case 'between': {
      return {
        op: 'range',
        field: pill.field,
        ...(pill.gte !== undefined ? { gte: pill.gte } : {}),
        ...(pill.lte !== undefined ? { lte: pill.lte } : {}),
      };
    }
  }
}

/** The enabled pills ANDed, each negated where asked; undefined when none applies. */
export function pillsToFilter(pills: readonly Pill[]): Filter | undefined {
  const parts = pills
    .filter((p) => !p.disabled && pillValid(p))
    .map((p): Filter => (p.negate ? { op: 'not', filter: pillTerm(p) } : pillTerm(p)));
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { op: 'and', filters: parts };
}

const quote = (text: string): string => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
/** A pattern as the query language writes it: between slashes, each slash escaped once. */
function regexLiteral(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      out += pattern[i + 1] === '/' ? '\\/' : c + pattern[i + 1];
      i++;
    } else out += c === '/' ? '\\/' : c;
  }
  return `/${out}/`;
}
const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function pillText(pill: Pill): string {
  const f = pill.field;
  switch (pill.op) {
    case 'is':
      return `${f}:${quote(pill.value ?? '')}`;
    case 'exists':
      return `${f}:*`;
    case 'contains': {
      const v = pill.value ?? '';
      // The wildcard form takes plain words only; anything else becomes an escaped regular expression.
      return /^[\w.@-]+$/.test(v) ? `${f}:*${v}*` : `${f}:${regexLiteral(escapeRegex(v))}`;
    }
    case 'matches':
      return `${f}:${regexLiteral(pill.value ?? '')}`;
    case 'between':
      if (pill.gte !== undefined && pill.lte !== undefined) return `${f}:[${pill.gte} TO ${pill.lte}]`;
      return pill.gte !== undefined ? `${f}:>=${pill.gte}` : `${f}:<=${pill.lte ?? 0}`;
  }
}

/**
 * The query and the enabled pills as one query text, for the live tail (which takes no filter JSON):
 * `(query) AND field:"value" AND NOT (...)`.
 */
export function queryWithPills(query: string, pills: readonly Pill[]): string {
  const parts = pills
    .filter((p) => !p.disabled && pillValid(p))
    .map((p) => (p.negate ? `NOT (${pillText(p)})` : pillText(p)));
  if (query.trim()) parts.unshift(`(${query.trim()})`);
  return parts.join(' AND ');
}

// ---- the whole state in the URL ----

/** The query-string values of a state (empty ones are left out by the router). */
export function encodeState(state: SearchState): Record<string, string | undefined> {
  return {
    log: state.log || undefined,
    range: encodeRange(state.range),
    q: state.query || undefined,
    pills: encodePills(state.pills) || undefined,
    cols: state.columns ? state.columns.join(',') : undefined,
    rec: state.expanded ?? undefined,
  };
}

export function decodeState(query: URLSearchParams): SearchState {
  const cols = (query.get('cols') ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => FIELD_NAME.test(c));
  return {
    log: query.get('log') ?? '',
    range: decodeRange(query.get('range')),
    query: query.get('q') ?? '',
    pills: decodePills(query.get('pills')),
    columns: cols.length > 0 ? [...new Set(cols)] : null,
    expanded: query.get('rec') || null,
  };
}

/** The search page's address for a state (other pages link here with filters set). */
export function searchHref(state: Partial<SearchState>): string {
  const values = encodeState({ ...EMPTY_STATE, ...state });
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v) qs.set(k, v);
  return `/logs/search?${qs.toString()}`;
}

// ---- the query box ----

/** The word being typed at the caret, when it can still be a field name: where it starts and what it holds. */
export function completionAt(query: string, caret: number): { start: number; prefix: string } | null {
  let start = caret;
  while (start > 0 && !/[\s()]/.test(query[start - 1]!)) start--;
  let word = query.slice(start, caret);
  if (word.startsWith('-')) {
    start++;
    word = word.slice(1);
  }
  if (word.includes(':') || word.includes('"') || !/^[A-Za-z_@][\w.@-]*$/.test(word)) return null;
  if (/^(AND|OR|NOT)$/.test(word)) return null;
  return { start, prefix: word };
}

/** Field names for a prefix: those that start with it first, then those that hold it. */
export function suggestFields(fields: readonly string[], prefix: string, max = 8): string[] {
  const p = prefix.toLowerCase();
  const unique = [...new Set(fields)];
  const starts = unique.filter((f) => f.toLowerCase().startsWith(p));
  const holds = unique.filter((f) => !f.toLowerCase().startsWith(p) && f.toLowerCase().includes(p));
  return [...starts.sort(), ...holds.sort()].filter((f) => f !== prefix).slice(0, max);
}

/** The query with the word at the caret replaced by `field:`, and where the caret goes. */
export function applyCompletion(query: string, caret: number, field: string): { query: string; caret: number } {
  const at = completionAt(query, caret);
  if (!at) return { query, caret };
  let end = caret;
  while (end < query.length && !/[\s()]/.test(query[end]!)) end++;
  const inserted = `${field}:`;
  return { query: query.slice(0, at.start) + inserted + query.slice(end), caret: at.start + inserted.length };
}

// ---- saved searches ----

export interface SavedSearch {
  name: string;
  /** The page's query string (encodeState). */
  search: string;
}

export function parseSaved(text: string | null): SavedSearch[] {
  if (!text) return [];
  try {
    const list: unknown = JSON.parse(text);
    if (!Array.isArray(list)) return [];
    return list.filter(
      (s): s is SavedSearch =>
        typeof s === 'object' &&
        s !== null &&
        typeof (s as SavedSearch).name === 'string' &&
        typeof (s as SavedSearch).search === 'string',
    );
  } catch {
    return [];
  }
}

/** The list with `saved` added, replacing one of the same name. */
export function withSaved(list: readonly SavedSearch[], saved: SavedSearch): SavedSearch[] {
  return [...list.filter((s) => s.name !== saved.name), saved].sort((a, b) => a.name.localeCompare(b.name));
}
