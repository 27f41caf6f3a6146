import type { CompiledSite } from '#engine/sites';
import { capText } from '#engine/shared';
import type { RequestFacts } from './request.ts';
import { header } from './source-ip.ts';
import type { Verdict } from './pipeline.ts';

/** `YYYY-MM-DD hh:mm:ss.000` in UTC: spec 2.3 stores seconds; milliseconds become 000. */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => (n < 10 ? `0${n}` : String(n));
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.000`;
}

/** `_intelligence_result`: `{ intel: { ip_city, ip_classification, ua_family, ... } }` (spec 2.3). */
export interface IntelligenceResult {
  readonly intel: object;
}

/** The access-log fields of spec 2.3 that are sub-fields of `_intelligence_result`. */
export const INTEL_LOG_FIELDS = [
  'ip_city',
  'ip_classification',
  'ip_data_center_name',
  'ua_classification',
  'ua_family',
  'ua_os',
  'ua_version_major',
] as const;

/**
 * Stored access records keep `_intelligence_result` once and not its flat copies (ip_city, ua_family,
 * ...), which would make every record a third larger on the log write path; readers call this to
 * present the record with the flat fields of spec 2.3.
 */
export function withIntelFields<T extends Record<string, unknown>>(record: T): T & Record<string, unknown> {
  const result = record._intelligence_result as IntelligenceResult | undefined;
  if (!result || typeof result !== 'object' || !result.intel) return record;
  const out: Record<string, unknown> = { ...record };
  const intel = result.intel as Readonly<Record<string, unknown>>;
  for (const field of INTEL_LOG_FIELDS) if (!(field in out)) out[field] = intel[field] ?? '';
  return out as T & Record<string, unknown>;
}

/** The response side of a request, known once the gateway has answered the client. */
export interface ResponseFacts {
  status: number;
  bodyBytesSent: number;
  requestTimeSeconds: number;
}

/**
 * One access log record per request, with the field names of spec 2.3. `time` is when the verdict
 * was made; `_timestamp` is its display form and `_time` the epoch milliseconds the store orders by.
 */
export function accessRecord(
  site: CompiledSite,
  request: RequestFacts,
  verdict: Verdict,
  time: number,
  intel: IntelligenceResult | null,
  response: ResponseFacts | null,
): Record<string, unknown> & { _timestamp: number } {
  return {
    _timestamp: time,
    log_id: capText(request.requestId),
    site_id: site.id,
    hostname: capText(request.host),
    scheme: capText(request.scheme),
    // Every field taken from the client's request is capped (2 KB, cut values end in …).
    request: capText(`${request.method} ${request.uri} ${request.protocol}`),
    src_ip: capText(verdict.srcIp),
    x_forwarded_for: capText(header(request.headers, 'x-forwarded-for') ?? ''),
    user_agent: capText(header(request.headers, 'user-agent') ?? ''),
    referrer: capText(header(request.headers, 'referer') ?? ''),
    status: response?.status ?? verdict.status,
    body_bytes_sent: response?.bodyBytesSent ?? 0,
    request_time: response?.requestTimeSeconds ?? 0,
    guard_status: verdict.guardStatus,
    action: verdict.action,
    list_result: verdict.listResult,
    fingerprint: verdict.deviceId,
    waf_triggered_rules: verdict.waf.ruleIds.join(','),
    waf_triggered_categories: verdict.waf.categories.join(','),
    waf_triggered_score: verdict.waf.score,
    // Which variable each rule fired on (`942100 ARGS:q` per line): what a proposed exclusion names.
    waf_triggered_targets: verdict.waf.targets?.length ? capText(verdict.waf.targets.join('\n')) : '',
    // 'missing' when the site's basic rule groups were to run but no Core Rule Set is loaded.
    waf_rule_set: verdict.waf.ruleSet ?? '',
    // The tokenizer check of level normal on an anomaly-score block: which matches it cleared.
    waf_level_check: verdict.waf.levelCheck ?? '',
    // The second opinion on an anomaly-score block, when the site has it on: what it weighed.
    waf_second_opinion: verdict.waf.secondOpinion ?? '',
    source_type: 'web',
    _intelligence_result: intel,
  };
}
