/**
 * Verdict: the request pipeline of DESIGN.md section 3 as pure code over a request description and
 * a compiled site, with the services it consults passed in as synchronous ports; guard_status
 * values; source-IP resolution; and the access log record. No I/O happens here.
 */
export { decide, NO_PROBE, NO_WAF_MATCH } from './pipeline.ts';
export type { Verdict, VerdictPorts, GuardStatus, Action, TokenCheck, WafOutcome, ProbeSignal } from './pipeline.ts';
export { resolveSourceIp, cleanIp, header } from './source-ip.ts';
export { cookieSpan, cookieValue, pathOf } from './request.ts';
export type { RequestFacts, Headers } from './request.ts';
export { accessRecord, formatTimestamp, withIntelFields, INTEL_LOG_FIELDS } from './access-record.ts';
export type { IntelligenceResult, ResponseFacts } from './access-record.ts';
