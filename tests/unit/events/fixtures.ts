import type { EventDefinition, SourceInfo } from '#engine/events';
import type { EventConditionInput } from '#engine/shared';

/** 2026-01-01T00:00:00Z: scenario times are seconds from here. */
export const T0 = Date.UTC(2026, 0, 1);
export const at = (seconds: number): number => T0 + seconds * 1000;

export const ACCESS_LOG = 'access:site-1';
export const APP_LOG = 'custom:app';

/** An access log configuration (ip -> src_ip, device -> fingerprint) and a custom one (ip -> client, user -> user). */
export const SOURCES: Readonly<Record<string, SourceInfo>> = {
  access: {
    log: ACCESS_LOG,
    keyFields: { ip: 'src_ip', device: 'fingerprint' },
    fields: [
      'src_ip',
      'fingerprint',
      'request',
      'status',
      'user_agent',
      'referrer',
      'request_time',
      'guard_status',
      'ip_country',
      'ip_asn',
    ],
  },
  app: {
    log: APP_LOG,
    keyFields: { ip: 'client', user: 'user' },
    fields: ['client', 'user', 'action', 'status', 'request_time'],
  },
  other: {
    log: 'custom:other',
    keyFields: {},
    fields: ['client', 'status', 'message'],
  },
};
export const source = (id: string): SourceInfo | undefined => SOURCES[id];

type Mode = EventConditionInput['mode'];

/** A condition: string match for regex / exact, numeric judgment for a comparator. */
export function when(label: string, field: string, mode: Mode, value: string | number): EventConditionInput {
  return {
    label,
    field,
    filter: mode === 'regex' || mode === 'exact' ? 'string' : 'number',
    mode,
    value: String(value),
  };
}

const common = { description: '', sources: ['access'], enabled: true };
type Options<K extends EventDefinition['kind']> = Partial<Omit<Extract<EventDefinition, { kind: K }>, 'kind'>>;

export function simple(
  id: string,
  relation: string,
  conditions: EventConditionInput[],
  options: Options<'simple'> = {},
): EventDefinition {
  return { ...common, id, name: id, kind: 'simple', relation, conditions, ...options };
}

const seconds = (value: number) => ({ value, unit: 'second' as const });

export function count(
  id: string,
  threshold: number,
  windowSeconds: number,
  options: Options<'count'> = {},
): EventDefinition {
  return {
    ...common,
    id,
    name: id,
    kind: 'count',
    triggerEvent: null,
    object: 'ip',
    window: seconds(windowSeconds),
    comparator: '>=',
    threshold,
    ...options,
  };
}

export function distinct(
  id: string,
  field: string,
  threshold: number,
  windowSeconds: number,
  options: Options<'distinct'> = {},
): EventDefinition {
  return {
    ...common,
    id,
    name: id,
    kind: 'distinct',
    triggerEvent: null,
    object: 'ip',
    field,
    window: seconds(windowSeconds),
    comparator: '>=',
    threshold,
    ...options,
  };
}

export function average(
  id: string,
  field: string,
  comparator: '>=' | '>' | '=' | '<' | '<=',
  threshold: number,
  windowSeconds: number,
  options: Options<'average'> = {},
): EventDefinition {
  return {
    ...common,
    id,
    name: id,
    kind: 'average',
    triggerEvent: null,
    object: 'ip',
    field,
    window: seconds(windowSeconds),
    comparator,
    threshold,
    ...options,
  };
}

export function cep(
  id: string,
  continuity: 'strict' | 'loose',
  steps: [string, number, number][],
  windowSeconds: number,
  options: Options<'cep'> = {},
): EventDefinition {
  return {
    ...common,
    id,
    name: id,
    kind: 'cep',
    object: 'ip',
    window: seconds(windowSeconds),
    continuity,
    steps: steps.map(([event, min, max]) => ({ event, min, max })),
    ...options,
  };
}

export function combined(
  id: string,
  relation: string,
  members: [string, string][],
  options: Options<'combined'> = {},
): EventDefinition {
  return {
    ...common,
    id,
    name: id,
    kind: 'combined',
    relation,
    members: members.map(([label, event]) => ({ label, event })),
    ...options,
  };
}

/** Simple events the scenarios share. */
export const NOT_FOUND = simple('not-found', 'a', [when('a', 'status', 'exact', 404)]);
export const LOGIN_POST = simple('login-post', 'a', [when('a', 'request', 'regex', '^POST /login')]);
export const ADMIN = simple('admin', 'a', [when('a', 'request', 'regex', '/admin')]);
export const BOT_UA = simple('bot-ua', 'a', [when('a', 'user_agent', 'regex', '(?:bot|curl)')]);

/** An access record from `ip` with the fields a test cares about. */
export function hit(ip: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { src_ip: ip, request: 'GET / HTTP/1.1', status: 200, user_agent: 'Mozilla/5.0', ...fields };
}
