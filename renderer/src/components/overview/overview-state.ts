/**
 * The Security Overview's state as the URL holds it (range, site, auto-refresh), the span a range
 * covers, the previous-period comparison of a counter, and the log search address of each chart
 * element: the log, the filter pills and the range that find the records the element counts
 * (engine/overview reads them from the same fields). Pure: the page reads and writes the router's
 * query string with these.
 */
import { searchHref, type Pill } from '$lib/log-search-state.ts';

export const QUICK = ['15m', '1h', '24h', '7d', '30d'] as const;
export type Quick = (typeof QUICK)[number];
export type OverviewRange = { last: Quick } | { from: number; to: number };
export const DEFAULT_RANGE: OverviewRange = { last: '24h' };

export const REFRESH = ['off', '30s', '1m', '5m'] as const;
export type Refresh = (typeof REFRESH)[number];
export const REFRESH_MS: Readonly<Record<Refresh, number>> = { off: 0, '30s': 30_000, '1m': 60_000, '5m': 300_000 };

const QUICK_MS: Readonly<Record<Quick, number>> = {
  '15m': 15 * 60_000,
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
  '30d': 30 * 86_400_000,
};
/** The engine answers ranges of at most 400 days. */
const MAX_SPAN = 400 * 86_400_000;

export interface OverviewState {
  range: OverviewRange;
  /** One site's id; empty: all sites. */
  site: string;
  refresh: Refresh;
}

export function encodeRange(range: OverviewRange): string {
  return 'last' in range ? range.last : `${range.from}~${range.to}`;
}

export function decodeRange(text: string | null): OverviewRange {
  if (!text) return DEFAULT_RANGE;
  if ((QUICK as readonly string[]).includes(text)) return { last: text as Quick };
  const m = /^(\d{1,15})~(\d{1,15})$/.exec(text);
  if (m) {
    const from = Number(m[1]);
    const to = Number(m[2]);
    if (from < to && to - from <= MAX_SPAN) return { from, to };
  }
  return DEFAULT_RANGE;
}

export function decodeState(query: URLSearchParams): OverviewState {
  const refresh = query.get('refresh') ?? 'off';
  return {
    range: decodeRange(query.get('range')),
    site: query.get('site') ?? '',
    refresh: (REFRESH as readonly string[]).includes(refresh) ? (refresh as Refresh) : 'off',
  };
}

/** The query-string values of a state (defaults left out, so the plain page address stays short). */
export function encodeState(state: OverviewState): Record<string, string | undefined> {
  const range = encodeRange(state.range);
  return {
    range: range === encodeRange(DEFAULT_RANGE) ? undefined : range,
    site: state.site || undefined,
    refresh: state.refresh === 'off' ? undefined : state.refresh,
  };
}

/** The overview's address for a state. */
export function overviewHref(state: OverviewState): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(encodeState(state))) if (v) qs.set(k, v);
  const text = qs.toString();
  return `/overview${text ? `?${text}` : ''}`;
}

export function sameRange(a: OverviewRange, b: OverviewRange): boolean {
  return encodeRange(a) === encodeRange(b);
}

/** The epoch milliseconds a range covers at `now` (a quick range ends now and slides with it). */
export function spanOf(range: OverviewRange, now: number): { from: number; to: number } {
  if ('last' in range) return { from: now - QUICK_MS[range.last], to: now };
  return { from: range.from, to: range.to };
}

/** A counter against the previous period of the same length: the change and its direction. */
export interface Delta {
  direction: 'up' | 'down' | 'flat';
  /** Percent change, rounded; null when the previous period had none (any count is then new). */
  percent: number | null;
}

export function deltaOf(current: number, previous: number): Delta {
  if (current === previous) return { direction: 'flat', percent: 0 };
  const direction = current > previous ? 'up' : 'down';
  if (previous === 0) return { direction, percent: null };
  return { direction, percent: Math.round((Math.abs(current - previous) / previous) * 100) };
}

// ---- the log search behind each chart element ----

/** Verdicts that count as web attacks (engine/log-store value roll-ups' attack fields). */
const WEB_ATTACK_GUARDS = '^(OWASP|BLOCKED_BY_WAF)$';
const TOKEN_GUARDS = '^(TOKEN_MISS|TOKEN_INVALID|TOKEN_EXPIRED)$';

const pill = (field: string, op: Pill['op'], value?: string, negate = false): Pill => ({
  field,
  op,
  ...(value !== undefined ? { value } : {}),
  negate,
  disabled: false,
});
const is = (field: string, value: string): Pill => pill(field, 'is', value);
const matches = (field: string, pattern: string, negate = false): Pill => pill(field, 'matches', pattern, negate);
const exists = (field: string, negate = false): Pill => pill(field, 'exists', undefined, negate);
const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What a chart element counts, as the log kind it reads and the filter that finds its records. */
export type Target =
  | { kind: 'requests' }
  | { kind: 'detections' }
  | { kind: 'probeDownloads' }
  | { kind: 'bots' }
  | { kind: 'webAttacks' }
  | { kind: 'owaspAttacks' }
  | { kind: 'botAttacks' }
  | { kind: 'abnormal' }
  | { kind: 'verdict'; value: string }
  | { kind: 'botType'; value: string }
  | { kind: 'browserType'; value: string }
  | { kind: 'attackType'; value: string }
  | { kind: 'botSecurity'; value: 'normal' | 'bot' | 'unclassified' }
  | { kind: 'list'; value: 'pass' | 'block' }
  | { kind: 'ranking'; field: RankingField; value: string };

export type RankingField = 'path' | 'referrer_path' | 'src_ip' | 'hostname' | 'attack_src_ip' | 'attack_hostname';

/** The log kind a target's records are in and the pills that find them. */
export function targetFilter(target: Target): { log: 'access' | 'detection' | 'probe'; pills: Pill[] } {
  switch (target.kind) {
    case 'requests':
      return { log: 'access', pills: [] };
    case 'detections':
      return { log: 'detection', pills: [] };
    case 'probeDownloads':
      return { log: 'probe', pills: [] };
    case 'bots':
      return { log: 'detection', pills: [exists('client_bot_type')] };
    case 'webAttacks':
      return { log: 'access', pills: [exists('waf_triggered_categories')] };
    case 'owaspAttacks':
      return {
        log: 'access',
        pills: [exists('waf_triggered_categories'), pill('waf_triggered_categories', 'is', 'custom', true)],
      };
    case 'botAttacks':
      return { log: 'access', pills: [is('guard_status', 'BOT')] };
    case 'abnormal':
      return { log: 'access', pills: [exists('guard_status'), matches('guard_status', '^(PASS|IGNORE)$', true)] };
    case 'verdict':
      return { log: 'access', pills: [is('guard_status', target.value)] };
    case 'botType':
      // The engine counts a bot without a type as `unclassified`.
      return {
        log: 'access',
        pills: [
          is('guard_status', 'BOT'),
          target.value === 'unclassified'
            ? exists('_intelligence_result.intel.bot_type', true)
            : is('_intelligence_result.intel.bot_type', target.value),
        ],
      };
    case 'browserType':
      return { log: 'access', pills: [is('_intelligence_result.intel.ua_classification', target.value)] };
    case 'attackType':
      return { log: 'access', pills: [is('waf_triggered_categories', target.value)] };
    case 'botSecurity':
      if (target.value === 'bot') return { log: 'access', pills: [is('guard_status', 'BOT')] };
      if (target.value === 'unclassified') return { log: 'access', pills: [matches('guard_status', TOKEN_GUARDS)] };
      return {
        log: 'access',
        pills: [matches('guard_status', `^(BOT|TOKEN_MISS|TOKEN_INVALID|TOKEN_EXPIRED)$`, true)],
      };
    case 'list':
      return { log: 'access', pills: [is('list_result', target.value)] };
    case 'ranking':
      return rankingFilter(target.field, target.value);
  }
}

function rankingFilter(field: RankingField, value: string): { log: 'access' | 'detection'; pills: Pill[] } {
  const path = escapeRegex(value);
  switch (field) {
    case 'path':
      // The request line `GET /a/b?x=1 HTTP/1.1`: the path ends at '?', '#' or the space before the protocol.
      return { log: 'access', pills: [matches('request', `^\\S+ ${path}([?# ]|$)`)] };
    case 'referrer_path':
      return { log: 'detection', pills: [matches('referrer', `^https?://[^/]*${path}([?#]|$)`)] };
    case 'src_ip':
      return { log: 'access', pills: [is('src_ip', value)] };
    case 'hostname':
      return { log: 'access', pills: [is('hostname', value)] };
    case 'attack_src_ip':
      return { log: 'access', pills: [is('src_ip', value), matches('guard_status', WEB_ATTACK_GUARDS)] };
    case 'attack_hostname':
      return { log: 'access', pills: [is('hostname', value), matches('guard_status', WEB_ATTACK_GUARDS)] };
  }
}

/**
 * The log search address of a target over a span, in one site's log (the search reads one log at a
 * time; with all sites the page passes the busiest site).
 */
export function targetHref(target: Target, siteId: string, span: { from: number; to: number }): string {
  const { log, pills } = targetFilter(target);
  return searchHref({ log: `${log}:${siteId}`, range: { from: span.from, to: span.to }, pills });
}
