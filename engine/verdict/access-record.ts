import type { CompiledSite } from '#engine/sites';
import type { RequestFacts } from './request.ts';
import { header } from './source-ip.ts';
import type { Verdict } from './pipeline.ts';

/** `YYYY-MM-DD hh:mm:ss.000` in UTC: spec 2.3 stores seconds; milliseconds become 000. */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => (n < 10 ? `0${n}` : String(n));
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.000`;
}

/** Intelligence fields flattened into the access log (names of spec 2.3). */
export type IntelFields = Readonly<Record<string, string | number | boolean>>;

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
  intel: { fields: IntelFields; result: unknown },
  response: ResponseFacts | null,
): Record<string, unknown> & { _timestamp: number } {
  return {
    _timestamp: time,
    log_id: request.requestId,
    site_id: site.id,
    hostname: request.host,
    scheme: request.scheme,
    request: `${request.method} ${request.uri} ${request.protocol}`,
    src_ip: verdict.srcIp,
    x_forwarded_for: header(request.headers, 'x-forwarded-for') ?? '',
    user_agent: header(request.headers, 'user-agent') ?? '',
    referrer: header(request.headers, 'referer') ?? '',
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
    source_type: 'web',
    ...intel.fields,
    _intelligence_result: intel.result,
  };
}
