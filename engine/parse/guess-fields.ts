import { PARSE_LIMITS, RECORD_META_FIELDS, type FieldType, type JsonFieldConfig, type TemplateType } from './config.ts';
import { parseFailure, type JsonKind, type ParseFailure } from './failures.ts';

/** Nested objects deeper than this are one string field (their JSON text). */
const MAX_DEPTH = 8;
const META: ReadonlySet<string> = new Set(RECORD_META_FIELDS);

export type GuessOutcome =
  | {
      ok: true;
      fields: JsonFieldConfig[];
      /** The sample had more members than a configuration may have fields; the first ones are given. */
      truncated: boolean;
    }
  | { ok: false; failure: ParseFailure };

/**
 * Spec 2.2's quick add: one json extraction area per member of a pasted sample, nested objects
 * flattened to dotted sources (`{"http":{"status":200}}` gives `http.status`), none required. Types
 * come from the JSON value: a whole number is integer, another number float, anything else string (a
 * string of digits stays string: the sender chose to quote it). Quick add belongs to the json
 * template; for plain_text the answer is no fields, since free text has no members to list.
 */
export function guessFields(sample: string, templateType: TemplateType): GuessOutcome {
  if (templateType !== 'json') return { ok: true, fields: [], truncated: false };
  let value: unknown;
  try {
    value = JSON.parse(sample);
  } catch (error) {
    return { ok: false, failure: parseFailure('json_malformed', { detail: (error as Error).message }) };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind: JsonKind = Array.isArray(value) ? 'array' : value === null ? 'null' : (typeof value as JsonKind);
    return { ok: false, failure: parseFailure('json_not_object', { kind }) };
  }
  const fields: JsonFieldConfig[] = [];
  const names = new Set<string>();
  let truncated = false;
  const visit = (object: object, prefix: string, depth: number): void => {
    for (const [key, member] of Object.entries(object)) {
      if (fields.length >= PARSE_LIMITS.fields) {
        truncated = true;
        return;
      }
      const source = prefix === '' ? key : `${prefix}.${key}`;
      if (source.length > PARSE_LIMITS.source) continue;
      if (flattens(member, depth)) {
        visit(member, source, depth + 1);
        continue;
      }
      const name = uniqueName(nameFor(source), names);
      names.add(name);
      fields.push({ kind: 'json', name, source, type: typeOf(member), required: false });
    }
  };
  visit(value, '', 1);
  return { ok: true, fields, truncated };
}

/**
 * A nested object becomes dotted sources unless a key of it holds a dot (its path would not read back)
 * or it is empty or too deep (then it is one string field).
 */
function flattens(member: unknown, depth: number): member is object {
  if (member === null || typeof member !== 'object' || Array.isArray(member) || depth >= MAX_DEPTH) return false;
  const keys = Object.keys(member);
  return keys.length > 0 && !keys.some((k) => k.includes('.') || k === '');
}

function typeOf(value: unknown): FieldType {
  if (typeof value !== 'number') return 'string';
  return Number.isSafeInteger(value) ? 'integer' : 'float';
}

/** A field name the checks accept: other characters become `_`, a leading non-letter is dropped or prefixed. */
function nameFor(source: string): string {
  let name = source.replace(/[^\w.@-]/g, '_').replace(/^[^A-Za-z@]+(?=[A-Za-z@])/, '');
  if (!/^[A-Za-z@]/.test(name)) name = `field_${name}`;
  if (META.has(name)) name = `${name}_field`;
  return name.slice(0, PARSE_LIMITS.fieldName);
}

function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = name.slice(0, PARSE_LIMITS.fieldName - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
