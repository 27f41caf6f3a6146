/**
 * A site's answers to false positives: exclusions of Core Rule Set rules (a whole rule, or one
 * target of it, on every path, one path or a prefix) compiled for verdicts; the exclusions a stored
 * access record proposes; whether exclusions would have cleared a stored record; and the request
 * content types a site allows (CRS rule 920420's policy).
 */
import { EXCLUSION_COLLECTIONS } from '#engine/shared';
import { requestExclusions, type RequestExclusions } from '#engine/waf';

/** CRS's own default (rule 901162 when the setup file sets nothing): forms, multipart, XML and JSON. */
export const CRS_CONTENT_TYPES = [
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/related',
  'text/xml',
  'application/xml',
  'application/soap+xml',
  'application/json',
  'application/cloudevents+json',
  'application/cloudevents-batch+json',
] as const;

/**
 * Rampart's default: CRS's list and what browsers and API clients send in ordinary use, which CRS's
 * list refuses (rule 920420 was most of ModSecurity's false positives on real traffic): beacons
 * (`navigator.sendBeacon` and `no-cors` fetches send text/plain), the browsers' own reports (CSP,
 * Reporting API), gRPC-web and protobuf APIs, GraphQL, JSON variants (JSON:API, JSON-LD, patches,
 * NDJSON streams). application/octet-stream stays out: no body processor reads it, so allowing it
 * would let a body through uninspected.
 */
export const DEFAULT_ALLOWED_CONTENT_TYPES: readonly string[] = [
  ...CRS_CONTENT_TYPES,
  'text/plain',
  'application/csp-report',
  'application/reports+json',
  'application/grpc-web',
  'application/grpc-web+proto',
  'application/grpc-web-text',
  'application/grpc-web-text+proto',
  'application/x-protobuf',
  'application/protobuf',
  'application/graphql',
  'application/graphql-response+json',
  'application/vnd.api+json',
  'application/ld+json',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/problem+json',
  'application/x-ndjson',
];

/** The TX value CRS 3.3 and 4 read (`|a| |b|`, matched with @within). */
export function contentTypePolicy(types: readonly string[]): string {
  return types.map((t) => `|${t.toLowerCase()}|`).join(' ');
}

/** An exclusion as stored (WafExclusionRecord) or proposed: what it removes, and where. */
export interface ExclusionSpec {
  ruleId: number;
  /** '' for the whole rule; else `COLLECTION` or `COLLECTION:name`. */
  target: string;
  /** '' for every path; `/a` exactly; `/api/*` a prefix. */
  path: string;
}

/** A request path as exclusions see it: the URI up to `?` (not decoded). */
export function pathOfUri(uri: string): string {
  const q = uri.indexOf('?');
  return q < 0 ? uri : uri.slice(0, q);
}

export function pathMatches(pattern: string, path: string): boolean {
  if (pattern === '') return true;
  if (pattern.endsWith('*')) return path.startsWith(pattern.slice(0, -1));
  return path === pattern;
}

interface Compiled {
  path: string;
  exclusions: RequestExclusions;
}

/** A site's exclusions ready for verdicts: what to remove for a request path, built once per save. */
export class SiteExclusions {
  readonly #everyPath: RequestExclusions | undefined;
  readonly #exact = new Map<string, RequestExclusions>();
  readonly #prefixes: Compiled[] = [];

  private constructor(specs: readonly ExclusionSpec[]) {
    const byPath = new Map<string, ExclusionSpec[]>();
    for (const s of specs) {
      const list = byPath.get(s.path);
      if (list) list.push(s);
      else byPath.set(s.path, [s]);
    }
    const compile = (list: readonly ExclusionSpec[]): RequestExclusions =>
      requestExclusions(
        list.filter((s) => s.target === '').map((s) => s.ruleId),
        list.filter((s) => s.target !== '').map((s) => ({ ruleId: s.ruleId, variable: s.target })),
      );
    let everyPath: RequestExclusions | undefined;
    for (const [path, list] of byPath) {
      const compiled = compile(list);
      if (path === '') everyPath = compiled;
      else if (path.endsWith('*')) this.#prefixes.push({ path: path.slice(0, -1), exclusions: compiled });
      else this.#exact.set(path, compiled);
    }
    this.#everyPath = everyPath;
  }

  /** Null when there are none: the verdict then pays nothing. */
  static compile(specs: readonly ExclusionSpec[] | undefined): SiteExclusions | null {
    return specs === undefined || specs.length === 0 ? null : new SiteExclusions(specs);
  }

  /** The exclusions that apply to a request's URI, merged; undefined when none does. */
  forUri(uri: string): RequestExclusions | undefined {
    const path = pathOfUri(uri);
    let found: RequestExclusions[] | undefined;
    if (this.#everyPath) found = [this.#everyPath];
    const exact = this.#exact.get(path);
    if (exact) (found ??= []).push(exact);
    for (const p of this.#prefixes) if (path.startsWith(p.path)) (found ??= []).push(p.exclusions);
    if (found === undefined) return undefined;
    if (found.length === 1) return found[0];
    return {
      ruleIds: found.flatMap((f) => f.ruleIds),
      targets: found.flatMap((f) => f.targets),
    };
  }
}

/** One rule that fired on a stored access record, and on what (null: the record does not say). */
export interface Fired {
  ruleId: number;
  variable: string | null;
}

/**
 * What fired on a stored access record: `waf_triggered_targets` (`942100 ARGS:q` per line), or for
 * records written before it existed, `waf_triggered_rules` without the variables.
 */
export function firedOn(record: Readonly<Record<string, unknown>>): Fired[] {
  const targets = record.waf_triggered_targets;
  if (typeof targets === 'string' && targets !== '') {
    const out: Fired[] = [];
    for (const line of targets.split('\n')) {
      const space = line.indexOf(' ');
      const id = Number(space < 0 ? line : line.slice(0, space));
      if (!Number.isInteger(id) || id <= 0) continue;
      out.push({ ruleId: id, variable: space < 0 ? null : line.slice(space + 1) });
    }
    return out;
  }
  const rules = record.waf_triggered_rules;
  const ids = typeof rules === 'string' ? rules.split(',') : Array.isArray(rules) ? rules.map(String) : [];
  return ids
    .map((id) => Number(id.trim()))
    .filter((id) => Number.isInteger(id) && id > 0)
    .map((ruleId) => ({ ruleId, variable: null }));
}

/** The path of a stored access record's `request` (`GET /a?b HTTP/1.1` -> `/a`). */
export function pathOfRecord(record: Readonly<Record<string, unknown>>): string {
  const request = typeof record.request === 'string' ? record.request : '';
  const first = request.indexOf(' ');
  if (first < 0) return pathOfUri(request);
  const last = request.lastIndexOf(' ');
  return pathOfUri(last > first ? request.slice(first + 1, last) : request.slice(first + 1));
}

const KEYED = new Set<string>(EXCLUSION_COLLECTIONS);

/** `ARGS:q` -> `ARGS`. */
const collectionOf = (variable: string): string => {
  const colon = variable.indexOf(':');
  return (colon < 0 ? variable : variable.slice(0, colon)).toUpperCase();
};

/** Whether an exclusion's target covers a match's variable (collections by name, keys ignoring case). */
export function targetCovers(target: string, variable: string | null): boolean {
  if (target === '') return true;
  if (variable === null) return false;
  if (collectionOf(target) !== collectionOf(variable)) return false;
  const t = target.indexOf(':');
  const v = variable.indexOf(':');
  if (t < 0) return true;
  return v >= 0 && target.slice(t + 1).toLowerCase() === variable.slice(v + 1).toLowerCase();
}

/**
 * The narrowest exclusions that would have let a stored record through: per rule that fired, on the
 * variable it fired on when that is a request collection's entry (`ARGS:q`), else the whole rule;
 * on the record's path. Rules without an id of their own (the anomaly evaluation) are not proposed.
 */
export function proposeFor(record: Readonly<Record<string, unknown>>): ExclusionSpec[] {
  const path = pathOfRecord(record);
  const out: ExclusionSpec[] = [];
  for (const f of firedOn(record)) {
    const target = f.variable !== null && KEYED.has(collectionOf(f.variable)) ? f.variable : '';
    if (out.some((o) => o.ruleId === f.ruleId && (o.target === '' || o.target === target))) continue;
    if (target === '') {
      // The whole rule covers any narrower proposal for it made so far.
      for (let i = out.length - 1; i >= 0; i--) if (out[i]!.ruleId === f.ruleId) out.splice(i, 1);
    }
    out.push({ ruleId: f.ruleId, target, path });
  }
  return out;
}

/**
 * What exclusions do to a stored access record: whether any rule fired on it at all, and whether
 * every rule that fired is covered (the request would have passed the basic rules). A record that
 * does not say which variable a rule fired on is covered only by a whole-rule exclusion.
 */
export function clearedBy(
  exclusions: readonly ExclusionSpec[],
  record: Readonly<Record<string, unknown>>,
): { fired: boolean; cleared: boolean } {
  const fired = firedOn(record);
  if (fired.length === 0) return { fired: false, cleared: false };
  const path = pathOfRecord(record);
  const cleared = fired.every((f) =>
    exclusions.some((e) => e.ruleId === f.ruleId && pathMatches(e.path, path) && targetCovers(e.target, f.variable)),
  );
  return { fired: true, cleared };
}

/** What an exclusion would have done to a site's stored access records. */
export interface ExclusionPreview {
  /** Records read: those on which the rule fired in the range. */
  examined: number;
  /** Of those, records where the exclusion covers at least one of the rule's matches. */
  matched: number;
  /** Records on which every rule that fired is then excluded: they would have passed the basic rules. */
  cleared: number;
  /** Of `cleared`, records that were blocked. */
  clearedBlocked: number;
}

/**
 * Counts, over the stored records on which the rule fired, those the exclusion reaches and those it
 * (with the site's existing exclusions) would have let through. Records the existing exclusions
 * already cleared are not counted again.
 */
export async function previewExclusion(
  candidate: ExclusionSpec,
  existing: readonly ExclusionSpec[],
  records: AsyncIterable<Readonly<Record<string, unknown>>>,
): Promise<ExclusionPreview> {
  const out: ExclusionPreview = { examined: 0, matched: 0, cleared: 0, clearedBlocked: 0 };
  const all = [...existing, candidate];
  for await (const record of records) {
    out.examined++;
    const path = pathOfRecord(record);
    if (!pathMatches(candidate.path, path)) continue;
    const fired = firedOn(record);
    if (!fired.some((f) => f.ruleId === candidate.ruleId && targetCovers(candidate.target, f.variable))) continue;
    out.matched++;
    if (clearedBy(existing, record).cleared || !clearedBy(all, record).cleared) continue;
    out.cleared++;
    if (record.action === 'block') out.clearedBlocked++;
  }
  return out;
}

/** A rule that keeps firing on the same target of the same path: an exclusion to consider. */
export interface ExclusionSuggestion extends ExclusionSpec {
  /** Stored requests it fired on (that the site's exclusions do not already cover). */
  requests: number;
  /** Distinct client addresses among them (counted up to 10,000). */
  clients: number;
  /** Of `requests`, those from a browser that had passed the probe (the record carries its device id). */
  fromProbedBrowsers: number;
  lastSeen: number;
  /** One of the requests, as its record's `request` field holds it. */
  example: string;
}

/** Below these a pattern is too thin to suggest: a handful of requests is an attack as often as a form. */
export const SUGGESTION_THRESHOLDS = { requests: 20, clients: 3 } as const;
const MAX_CLIENTS = 10_000;
const MAX_PATTERNS = 100_000;

/**
 * Learned exclusions: over a site's stored access records on which rules fired, groups the narrowest
 * proposal of each (rule, target, path) and suggests those that fired on at least
 * SUGGESTION_THRESHOLDS requests from as many clients, most requests first, with how many came
 * from browsers that had passed the probe. What the site's exclusions cover already is left out.
 */
export async function suggestExclusions(
  existing: readonly ExclusionSpec[],
  records: AsyncIterable<Readonly<Record<string, unknown>>>,
  limit = 50,
): Promise<{ examined: number; items: ExclusionSuggestion[] }> {
  interface Tally {
    spec: ExclusionSpec;
    requests: number;
    clients: Set<string>;
    probed: number;
    lastSeen: number;
    example: string;
  }
  const tallies = new Map<string, Tally>();
  let examined = 0;
  for await (const record of records) {
    examined++;
    const probed = typeof record.fingerprint === 'string' && record.fingerprint !== '';
    const ip = typeof record.src_ip === 'string' ? record.src_ip : '';
    const at = typeof record._timestamp === 'number' ? record._timestamp : 0;
    for (const spec of proposeFor(record)) {
      if (coveredAlready(existing, spec)) continue;
      const key = `${spec.ruleId} ${spec.target.toLowerCase()} ${spec.path}`;
      let t = tallies.get(key);
      if (t === undefined) {
        if (tallies.size >= MAX_PATTERNS) continue;
        t = { spec, requests: 0, clients: new Set(), probed: 0, lastSeen: 0, example: '' };
        tallies.set(key, t);
      }
      t.requests++;
      if (t.clients.size < MAX_CLIENTS && ip !== '') t.clients.add(ip);
      if (probed) t.probed++;
      if (at >= t.lastSeen) {
        t.lastSeen = at;
        t.example = typeof record.request === 'string' ? record.request : '';
      }
    }
  }
  const items = [...tallies.values()]
    .filter((t) => t.requests >= SUGGESTION_THRESHOLDS.requests && t.clients.size >= SUGGESTION_THRESHOLDS.clients)
    .sort((a, b) => b.requests - a.requests || b.clients.size - a.clients.size)
    .slice(0, limit)
    .map((t) => ({
      ...t.spec,
      requests: t.requests,
      clients: t.clients.size,
      fromProbedBrowsers: t.probed,
      lastSeen: t.lastSeen,
      example: t.example,
    }));
  return { examined, items };
}

/** Whether an existing exclusion already removes what a proposal would. */
function coveredAlready(existing: readonly ExclusionSpec[], spec: ExclusionSpec): boolean {
  const path = spec.path;
  return existing.some(
    (e) =>
      e.ruleId === spec.ruleId &&
      pathMatches(e.path, path) &&
      (e.target === '' || (spec.target !== '' && targetCovers(e.target, spec.target))),
  );
}
