import type { EventInput, LOG_KEY_TARGETS } from '#engine/shared';

/** The trigger objects of spec 2.4: what records are grouped by. */
export type KeyTarget = (typeof LOG_KEY_TARGETS)[number];

/** A stored event: the console's shape plus its id and status. */
export type EventDefinition = EventInput & { id: string; enabled: boolean };

/** Where a log configuration's records live and its key-field mapping (access logs: ip -> src_ip, device -> fingerprint). */
export interface SourceInfo {
  log: string;
  keyFields: Partial<Record<KeyTarget, string>>;
  fields: readonly string[];
}

/** Looks up a log configuration by id; undefined when there is none. */
export type SourceLookup = (configId: string) => SourceInfo | undefined;

/** One problem of an event definition: `code` is stable (the console words it), `message` is English. */
export interface EventProblem {
  path: string;
  code: string;
  message: string;
  params?: Record<string, string | number>;
}

/** An event that fired on one record. */
export interface Firing {
  eventId: string;
  eventName: string;
  kind: EventInput['kind'];
  /** The log of the record that made it fire. */
  log: string;
  /** The trigger object the event groups by; null for simple events (and combined events without one). */
  object: KeyTarget | null;
  /** That object's value in the record. */
  key: string | null;
  /** Engine time (ms) of the record that made it fire. */
  at: number;
  /** The values that made it fire (count, window, key, distinct, average, steps, fields). */
  meta: Record<string, string | number>;
  record: Readonly<Record<string, unknown>>;
}

/** One row of `explain`: a condition's (or a referenced simple event's) outcome for one record. */
export interface ExplainRow {
  label: string;
  field: string;
  value: unknown;
  matched: boolean;
}

/** Per-event counters for the console. */
export interface EventStats {
  keys: number;
  evictions: number;
  firings: number;
}

/** What `configure` did: events it compiled and those it could not (checkEvent says why in full). */
export interface ConfigureReport {
  compiled: string[];
  skipped: { id: string; code: string }[];
}

/** What `restore` took from a snapshot. */
export interface RestoreReport {
  events: number;
  keys: number;
  ignored: number;
}
