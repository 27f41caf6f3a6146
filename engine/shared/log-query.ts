import { z } from 'zod';

/**
 * The log search's filter tree and time range, defined once: the console builds them (its filter
 * pills, the query box parsed by the engine), the API validates them, the search engine runs them.
 */

export const FIELD_NAME_MAX = 128;
export const FILTER_VALUE_MAX = 1024;
export const FILTER_DEPTH_MAX = 16;
export const FILTER_TERMS_MAX = 64;

const fieldName = z
  .string()
  .min(1, 'is required')
  .max(FIELD_NAME_MAX, `must be at most ${FIELD_NAME_MAX} characters`)
  .regex(/^[A-Za-z_@][\w.@-]*$/, 'must be a field name such as src_ip or _intelligence_result.intel.ua_family');
const value = z.union([
  z.string().max(FILTER_VALUE_MAX, `must be at most ${FILTER_VALUE_MAX} characters`),
  z.number(),
  z.boolean(),
]);

export type FilterTerm =
  | { op: 'eq' | 'ne'; field: string; value: string | number | boolean }
  | { op: 'exists' | 'missing'; field: string }
  | { op: 'contains'; field: string; value: string }
  | { op: 'regex'; field: string; pattern: string }
  | { op: 'range'; field: string; gte?: number; gt?: number; lte?: number; lt?: number }
  | { op: 'text'; value: string };

export type Filter = FilterTerm | { op: 'and' | 'or'; filters: Filter[] } | { op: 'not'; filter: Filter };

const term = z.discriminatedUnion('op', [
  z.object({ op: z.enum(['eq', 'ne']), field: fieldName, value }).strict(),
  z.object({ op: z.enum(['exists', 'missing']), field: fieldName }).strict(),
  z.object({ op: z.literal('contains'), field: fieldName, value: z.string().min(1).max(FILTER_VALUE_MAX) }).strict(),
  z.object({ op: z.literal('regex'), field: fieldName, pattern: z.string().min(1).max(FILTER_VALUE_MAX) }).strict(),
  z
    .object({
      op: z.literal('range'),
      field: fieldName,
      gte: z.number().optional(),
      gt: z.number().optional(),
      lte: z.number().optional(),
      lt: z.number().optional(),
    })
    .strict(),
  z
    .object({ op: z.literal('text'), value: z.string().min(1).max(FILTER_VALUE_MAX) })
    .strict()
    .describe('the text anywhere in the record'),
]);

const filterTree: z.ZodType<Filter> = z
  .lazy(() =>
    z.union([
      term,
      z.object({ op: z.enum(['and', 'or']), filters: z.array(filterTree).min(1).max(FILTER_TERMS_MAX) }).strict(),
      z.object({ op: z.literal('not'), filter: filterTree }).strict(),
    ]),
  )
  .meta({ id: 'LogFilter' });

/** How many objects deep a JSON value nests (arrays not counted), measured without recursion (a hostile body must not exhaust the stack). */
function nesting(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    // An array (the filters of and / or) is not a level of the tree; each object is.
    const level = Array.isArray(v) ? depth : depth + 1;
    deepest = Math.max(deepest, level);
    if (deepest > limit) return deepest;
    for (const inner of Object.values(v)) stack.push([inner, level]);
  }
  return deepest;
}

/** A filter tree, at most FILTER_DEPTH_MAX levels deep (checked before the tree is parsed). */
export const filterSchema: z.ZodType<Filter> = z
  .unknown()
  .superRefine((value, ctx) => {
    if (nesting(value, FILTER_DEPTH_MAX) > FILTER_DEPTH_MAX) {
      ctx.addIssue({
        code: 'custom',
        message: `nests deeper than ${FILTER_DEPTH_MAX} levels`,
        params: { maximum: FILTER_DEPTH_MAX },
        fatal: true,
      });
    }
  })
  .pipe(filterTree);

/** How deep a filter tree nests and how many terms it has (both are bounded). */
export function filterSize(filter: Filter, depth = 1): { depth: number; terms: number } {
  if (filter.op === 'and' || filter.op === 'or') {
    let deepest = depth;
    let terms = 0;
    for (const f of filter.filters) {
      const s = filterSize(f, depth + 1);
      deepest = Math.max(deepest, s.depth);
      terms += s.terms;
    }
    return { depth: deepest, terms };
  }
  if (filter.op === 'not') return filterSize(filter.filter, depth + 1);
  return { depth, terms: 1 };
}

/** Relative ranges the time picker offers, ending now. */
export const RELATIVE_RANGES = ['15m', '1h', '4h', '24h', '7d', '30d', '90d', '1y'] as const;
export type RelativeRange = (typeof RELATIVE_RANGES)[number];

export const timeRangeSchema = z.union([
  z
    .object({ from: z.number().int().min(0), to: z.number().int().min(0) })
    .strict()
    .refine((r) => r.from < r.to, { message: 'from must be before to', path: ['from'] }),
  z.object({ last: z.enum(RELATIVE_RANGES) }).strict(),
  z.object({ all: z.literal(true) }).strict(),
]);
export type TimeRange = z.infer<typeof timeRangeSchema>;
