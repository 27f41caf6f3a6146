import type { LogConfigRecord } from '#engine/config-store';
import type { SourceInfo } from '#engine/events';
import { INTEL_FIELD_NAMES } from '#engine/intel';

/** The fields of an access record (engine/verdict's accessRecord) an event can test. */
const ACCESS_FIELDS = [
  'log_id',
  'site_id',
  'hostname',
  'scheme',
  'request',
  'src_ip',
  'x_forwarded_for',
  'user_agent',
  'referrer',
  'status',
  'body_bytes_sent',
  'request_time',
  'guard_status',
  'action',
  'list_result',
  'fingerprint',
  'waf_triggered_rules',
  'waf_triggered_categories',
  'waf_triggered_score',
  'source_type',
] as const;

/** What every parsed custom record carries besides its configured fields (spec 2.2). */
const CUSTOM_FIELDS = ['log_id', 'log_setting_id', 'parsed', 'raw_data'] as const;

/** The log a configuration's records are stored in (engine/gateways' and engine/log-configs' names). */
export function logOfConfig(config: LogConfigRecord): string {
  if (config.kind === 'access') return `access:${config.siteId ?? ''}`;
  if (config.kind === 'messaging') return `messaging:${config.siteId ?? ''}`;
  return `custom:${config.id}`;
}

/** An event's view of a log configuration: its log, key-field mapping and fields. */
export function sourceInfo(config: LogConfigRecord): SourceInfo {
  const fields: string[] =
    config.kind === 'custom'
      ? [...CUSTOM_FIELDS, ...config.fields.map((f) => f.name), ...(config.intelligence ? INTEL_FIELD_NAMES : [])]
      : [...ACCESS_FIELDS, ...INTEL_FIELD_NAMES];
  return { log: logOfConfig(config), keyFields: { ...config.keyFields }, fields: [...new Set(fields)] };
}
