import { header, pathOf, type RequestFacts } from '#engine/verdict';
import { formPairs } from './request-view.ts';

/**
 * A site's learned normal (issue 18, item 4): per path and parameter, the shapes and lengths of the
 * values its clean requests carry, for the second opinion.
 *
 * Learning. A request of a site whose second opinion is on, on which no rule fired at all, teaches
 * its query parameters and its form (`application/x-www-form-urlencoded`) body parameters: for each
 * value, which character classes it holds (SHAPE_CLASSES) and its length. JSON and multipart bodies
 * are not learned. Paths are generalised: a segment of digits, a UUID or a long hex string becomes
 * `*`, so `/item/1234` and `/item/99` share one profile.
 *
 * Judging. A parameter's profile speaks once it holds MIN_SAMPLES values from MIN_CLIENTS client
 * addresses. Its usual shape is every class seen in at least USUAL_SHARE of its values (and at least
 * twice); its usual length is the length below which 99 % of its values fall. A value within both
 * is `usual`; a value with a class the parameter does not usually carry, or more than twice its
 * usual length, is `unusual`. A parameter without a profile that speaks is not judged.
 *
 * Bounds. MAX_PATHS paths per site, MAX_PARAMS parameters per path, the first MAX_VALUE characters of
 * each value, MAX_PARAMS values per request. Counts are halved once a profile holds AGE_AT values,
 * so the normal follows a site that changes. Kept in memory: an engine restart learns again.
 */

export const MIN_SAMPLES = 50;
export const MIN_CLIENTS = 5;
export const USUAL_SHARE = 0.01;
export const MAX_PATHS = 2000;
export const MAX_PARAMS = 32;
const MAX_VALUE = 1024;
const AGE_AT = 100_000;
const MAX_PATH_KEY = 256;
/** Length buckets: 0, 1, 2-3, 4-7, ... 512-1023, 1024+ (the cut). */
const BUCKETS = 12;

/** Character classes of a value's shape, one bit each, with the words the access record uses. */
export const SHAPE_CLASSES = [
  'letters',
  'digits',
  'spaces',
  'quotes',
  'angle brackets',
  'brackets',
  'operators',
  'slashes',
  'punctuation',
  'control characters',
  'non-ASCII',
] as const;

const LETTER = 1 << 0;
const DIGIT = 1 << 1;
const SPACE = 1 << 2;
const QUOTE = 1 << 3;
const ANGLE = 1 << 4;
const BRACKET = 1 << 5;
const OPERATOR = 1 << 6;
const SLASH = 1 << 7;
const PUNCTUATION = 1 << 8;
const CONTROL = 1 << 9;
const NON_ASCII = 1 << 10;

/** The class of each ASCII code. */
const CLASS_OF = new Uint16Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  CLASS_OF[c] = /[A-Za-z]/.test(ch)
    ? LETTER
    : /\d/.test(ch)
      ? DIGIT
      : ch === ' ' || ch === '\t'
        ? SPACE
        : c < 0x20 || c === 0x7f
          ? CONTROL
          : `'"\``.includes(ch)
            ? QUOTE
            : '<>'.includes(ch)
              ? ANGLE
              : '()[]{}'.includes(ch)
                ? BRACKET
                : '=;|&!*+^~$'.includes(ch)
                  ? OPERATOR
                  : '/\\'.includes(ch)
                    ? SLASH
                    : PUNCTUATION;
}

/** The classes a value holds (its first MAX_VALUE characters). */
export function shapeOf(value: string): number {
  let mask = 0;
  const end = Math.min(value.length, MAX_VALUE);
  for (let i = 0; i < end; i++) {
    const c = value.charCodeAt(i);
    mask |= c < 128 ? CLASS_OF[c]! : NON_ASCII;
  }
  return mask;
}

/** `letters, digits, spaces` */
export function shapeWords(mask: number): string {
  const words: string[] = [];
  SHAPE_CLASSES.forEach((word, bit) => {
    if (mask & (1 << bit)) words.push(word);
  });
  return words.length === 0 ? 'empty' : words.join(', ');
}

const bucketOf = (length: number): number =>
  length === 0 ? 0 : Math.min(BUCKETS - 1, 32 - Math.clz32(Math.min(length, MAX_VALUE)));
/** The longest length a bucket holds. */
const bucketTop = (bucket: number): number => (bucket === 0 ? 0 : bucket === BUCKETS - 1 ? MAX_VALUE : 2 ** bucket - 1);

interface Profile {
  samples: number;
  /** shape mask -> values with that exact shape */
  shapes: Map<number, number>;
  lengths: Uint32Array;
  /** Client addresses seen, up to MIN_CLIENTS. */
  clients: Set<string>;
}

/** What the learned normal says of one value of a parameter. */
export interface LearnedFit {
  fit: 'usual' | 'unusual';
  /** `ARGS:q on /search: letters, spaces, up to 63 characters (1,204 requests)` or what was unusual. */
  detail: string;
}

/** `/item/*` for `/item/1234`: the profile a path's requests share. */
export function pathKey(path: string): string {
  const key = path
    .split('/')
    .map((segment) =>
      /^\d+$/.test(segment) || /^[0-9a-f]{16,}$/i.test(segment) || /^[0-9a-f]{8}-[0-9a-f-]{27}$/i.test(segment)
        ? '*'
        : segment,
    )
    .join('/');
  return key.length > MAX_PATH_KEY ? key.slice(0, MAX_PATH_KEY) : key;
}

/** The request's query and form-body parameters (named ones: `=v` names nothing to learn). */
export function requestParams(facts: RequestFacts): [string, string][] {
  const uri = facts.uri;
  const q = uri.indexOf('?');
  const h = uri.indexOf('#', q);
  const params: [string, string][] = [];
  const keepNamed = (pairs: [string, string][]): void => {
    for (const pair of pairs) if (pair[0] !== '') params.push(pair);
  };
  if (q !== -1) keepNamed(formPairs(uri.slice(q + 1, h === -1 ? undefined : h), MAX_PARAMS));
  const body = facts.body;
  if (body !== undefined && body.length > 0 && params.length < MAX_PARAMS && facts.bodyPartial !== true) {
    const type = header(facts.headers, 'content-type') ?? '';
    if (type.toLowerCase().startsWith('application/x-www-form-urlencoded'))
      keepNamed(formPairs(body.toString('latin1'), MAX_PARAMS - params.length));
  }
  return params;
}

const PARAM_VARIABLE = /(?:^|[_:])ARGS(?:_GET|_POST)?:(.+)$/i;

/**
 * The parameter a matched variable names (`ARGS:q`, `ARGS_GET:q`, `ARGS_POST:q`), or null. A
 * chained CRS rule reports the TX variable its first link named after the parameter
 * (`TX:rfi_parameter_ARGS:ref`, 931130): that names `ref` too.
 */
export function paramOf(variable: string): string | null {
  return PARAM_VARIABLE.exec(variable)?.[1] ?? null;
}

export class LearnedNormal {
  /** site id -> path key -> parameter name -> profile */
  readonly #sites = new Map<string, Map<string, Map<string, Profile>>>();

  /** Learns a clean request's parameters (the caller checks that no rule fired on it). */
  learn(siteId: string, facts: RequestFacts, srcIp: string): void {
    const params = requestParams(facts);
    if (params.length === 0) return;
    let paths = this.#sites.get(siteId);
    if (paths === undefined) this.#sites.set(siteId, (paths = new Map<string, Map<string, Profile>>()));
    const key = pathKey(pathOf(facts.uri));
    let profiles = paths.get(key);
    if (profiles === undefined) {
      if (paths.size >= MAX_PATHS) return;
      paths.set(key, (profiles = new Map<string, Profile>()));
    }
    for (const [name, value] of params) {
      let profile = profiles.get(name);
      if (profile === undefined) {
        if (profiles.size >= MAX_PARAMS) continue;
        profile = { samples: 0, shapes: new Map(), lengths: new Uint32Array(BUCKETS), clients: new Set() };
        profiles.set(name, profile);
      }
      const shape = shapeOf(value);
      profile.samples++;
      profile.shapes.set(shape, (profile.shapes.get(shape) ?? 0) + 1);
      profile.lengths[bucketOf(value.length)]!++;
      if (profile.clients.size < MIN_CLIENTS) profile.clients.add(srcIp);
      if (profile.samples >= AGE_AT) age(profile);
    }
  }

  /**
   * What the site's learned normal says of a matched variable's value, or null when the variable is
   * not a parameter or its profile does not speak yet. `value` is the parameter as the request sent
   * it (decoded), not as a rule's transformations left it.
   */
  judge(siteId: string, path: string, variable: string, value: string): LearnedFit | null {
    const name = paramOf(variable);
    if (name === null) return null;
    const key = pathKey(path);
    const profile = this.#sites.get(siteId)?.get(key)?.get(name);
    if (profile === undefined || profile.samples < MIN_SAMPLES || profile.clients.size < MIN_CLIENTS) return null;
    const least = Math.max(2, profile.samples * USUAL_SHARE);
    let usualShape = 0;
    for (const [shape, count] of profile.shapes) {
      if (count < least) continue;
      usualShape |= shape;
    }
    // Classes, not exact shapes: a value with letters alone fits a parameter seen with letters and
    // digits.
    let usualLength = 0;
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += profile.lengths[b]!;
      if (seen >= profile.samples * 0.99) {
        usualLength = bucketTop(b);
        break;
      }
    }
    const shape = shapeOf(value);
    const extra = shape & ~usualShape;
    const requests = `${profile.samples.toLocaleString('en-US')} requests`;
    const param = `ARGS:${name}`;
    if (extra !== 0)
      return { fit: 'unusual', detail: `${param} on ${key}: ${shapeWords(extra)} not usual there (${requests})` };
    if (value.length > usualLength * 2 + 8)
      return {
        fit: 'unusual',
        detail: `${param} on ${key}: ${value.length} characters, usually up to ${usualLength} (${requests})`,
      };
    return {
      fit: 'usual',
      detail: `${param} on ${key}: ${shapeWords(usualShape)}, up to ${usualLength} characters as usual (${requests})`,
    };
  }

  forget(siteId: string): void {
    this.#sites.delete(siteId);
  }
}

function age(profile: Profile): void {
  profile.samples = 0;
  for (const [shape, count] of profile.shapes) {
    const half = count >>> 1;
    if (half === 0) profile.shapes.delete(shape);
    else profile.shapes.set(shape, half);
  }
  for (let b = 0; b < BUCKETS; b++) {
    profile.lengths[b] = profile.lengths[b]! >>> 1;
    profile.samples += profile.lengths[b]!;
  }
}
