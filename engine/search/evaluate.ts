/**
 * A filter compiled once per query: the exact predicate on a record, a cheap necessary test on its
 * raw JSON line (so most non-matching lines are never parsed), the equality terms an index can
 * drive, and whether the per-minute roll-ups can answer it.
 */
import { INDEXED_FIELDS, LIST_FIELDS, MAX_INDEXED_VALUE, valuesOf } from '#engine/log-store';
import { userRegexIssue, userRegexIssueText, type Filter } from '#engine/shared';

export type Row = Readonly<Record<string, unknown>>;

export interface CompiledFilter {
  /** The record matches. */
  matches(record: Row): boolean;
  /** False only when the raw line cannot match (true: parse it and ask `matches`). */
  mayMatch(line: string): boolean;
  /** Equality terms every match must satisfy, on indexed fields: candidates for driving the scan. */
  indexTerms: { field: string; value: string }[];
  /** Uses only the fields the roll-ups count by (so a histogram can be summed from them). */
  rollupFields: boolean;
  /** The whole filter is this one equality on an indexed field, whose index entries name exactly its records. */
  exactIndexTerm: { field: string; value: string } | null;
}

export class FilterError extends Error {
  constructor(
    message: string,
    readonly reason: 'regex_invalid' | 'not_linear',
    readonly params: Record<string, string>,
  ) {
    super(message);
  }
}

const INDEXED: ReadonlySet<string> = new Set(INDEXED_FIELDS);
/** Record fields the roll-up dimensions hold as they are. */
export const ROLLUP_FIELDS: ReadonlySet<string> = new Set([
  'site_id',
  'guard_status',
  'client_bot_type',
  'log_setting_id',
]);

/** A field's value: `a.b.c` is the key itself if present, else the nested path. */
export function fieldValue(record: Row, field: string): unknown {
  if (field in record) return record[field];
  if (!field.includes('.')) return undefined;
  let current: unknown = record;
  for (const part of field.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Row)[part];
  }
  return current;
}

/** A value as text: strings as they are, numbers and booleans in decimal, anything else as JSON. */
export function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

const present = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

/** The scalar texts a field holds: each item of a list field or an array, one for a scalar. */
function texts(field: string, value: unknown): string[] {
  if (!present(value)) return [];
  if (Array.isArray(value) || LIST_FIELDS.has(field)) return valuesOf(field, value);
  return [scalarText(value)];
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Compiled {
  test: (record: Row) => boolean;
  /** Necessary substrings (case-insensitive regexes) of the raw line, all of which must occur. */
  needs: RegExp[];
  terms: { field: string; value: string }[];
  rollup: boolean;
}

function compileTerm(filter: Filter, negated: boolean, indexed: ReadonlySet<string>): Compiled {
  switch (filter.op) {
    case 'and': {
      const parts = filter.filters.map((f) => compileTerm(f, negated, indexed));
      return {
        test: (r) => parts.every((p) => p.test(r)),
        needs: negated ? [] : parts.flatMap((p) => p.needs),
        terms: negated ? [] : parts.flatMap((p) => p.terms),
        rollup: parts.every((p) => p.rollup),
      };
    }
    case 'or': {
      const parts = filter.filters.map((f) => compileTerm(f, negated, indexed));
      return {
        test: (r) => parts.some((p) => p.test(r)),
        needs: [],
        terms: [],
        rollup: parts.every((p) => p.rollup),
      };
    }
    case 'not': {
      const inner = compileTerm(filter.filter, !negated, indexed);
      return { test: (r) => !inner.test(r), needs: [], terms: [], rollup: inner.rollup };
    }
    case 'eq':
    case 'ne': {
      const wanted = String(filter.value);
      const field = filter.field;
      const holds = (r: Row): boolean => texts(field, fieldValue(r, field)).includes(wanted);
      const positive = filter.op === 'eq' && !negated;
      return {
        test: filter.op === 'eq' ? holds : (r) => !holds(r),
        needs: positive ? [new RegExp(escapeRegex(JSON.stringify(wanted).slice(1, -1)))] : [],
        terms: positive && indexed.has(field) ? [{ field, value: wanted }] : [],
        rollup: ROLLUP_FIELDS.has(field),
      };
    }
    case 'exists':
    case 'missing': {
      const field = filter.field;
      const has = (r: Row): boolean => present(fieldValue(r, field));
      return {
        test: filter.op === 'exists' ? has : (r) => !has(r),
        needs: [],
        terms: [],
        rollup: ROLLUP_FIELDS.has(field),
      };
    }
    case 'contains': {
      const field = filter.field;
      const needle = filter.value.toLowerCase();
      return {
        test: (r) => texts(field, fieldValue(r, field)).some((t) => t.toLowerCase().includes(needle)),
        needs: negated ? [] : [new RegExp(escapeRegex(JSON.stringify(filter.value).slice(1, -1)), 'i')],
        terms: [],
        rollup: false,
      };
    }
    case 'regex': {
      const issue = userRegexIssue(filter.pattern);
      if (issue) {
        throw new FilterError(
          `${filter.field}: /${filter.pattern}/ ${userRegexIssueText(issue)}`,
          issue.reason,
          issue.reason === 'regex_invalid'
            ? { field: filter.field, kind: issue.kind, error: issue.error }
            : { field: filter.field },
        );
      }
      const pattern = new RegExp(filter.pattern);
      const field = filter.field;
      return {
        test: (r) => texts(field, fieldValue(r, field)).some((t) => pattern.test(t)),
        needs: [],
        terms: [],
        rollup: false,
      };
    }
    case 'range': {
      const { field, gte, gt, lte, lt } = filter;
      return {
        test: (r) => {
          const raw = fieldValue(r, field);
          if (!present(raw) || typeof raw === 'object') return false;
          const n = Number(raw);
          if (!Number.isFinite(n)) return false;
          return (
            (gte === undefined || n >= gte) &&
            (gt === undefined || n > gt) &&
            (lte === undefined || n <= lte) &&
            (lt === undefined || n < lt)
          );
        },
        needs: [],
        terms: [],
        rollup: false,
      };
    }
    case 'text': {
      const needle = new RegExp(escapeRegex(JSON.stringify(filter.value).slice(1, -1)), 'i');
      return {
        // The text in any of the record's values (as JSON, the form a stored row holds them in).
        test: (r) => needle.test(JSON.stringify(Object.values(r))),
        needs: negated ? [] : [needle],
        terms: [],
        rollup: false,
      };
    }
  }
}

/** `indexed`: the fields the log has whole index entries for (LogStore.indexedFields; default INDEXED_FIELDS). */
export function compileFilter(filter: Filter | null, indexed: ReadonlySet<string> = INDEXED): CompiledFilter {
  if (filter === null) {
    return { matches: () => true, mayMatch: () => true, indexTerms: [], rollupFields: true, exactIndexTerm: null };
  }
  const compiled = compileTerm(filter, false, indexed);
  const needs = compiled.needs;
  return {
    matches: compiled.test,
    mayMatch: needs.length === 0 ? () => true : (line) => needs.every((n) => n.test(line)),
    indexTerms: compiled.terms,
    rollupFields: compiled.rollup,
    exactIndexTerm:
      filter.op === 'eq' && indexed.has(filter.field) && Buffer.byteLength(String(filter.value)) <= MAX_INDEXED_VALUE
        ? { field: filter.field, value: String(filter.value) }
        : null,
  };
}
