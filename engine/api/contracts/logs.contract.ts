import { z } from 'zod';
import { filterSchema, timeRangeSchema } from '#engine/shared';
import { defineContract } from './contract.ts';

/** Spec 5.2: log management is for administrators and guests. */
const LOG_READERS = ['administrator', 'guest'] as const;
/** Storage settings and purges change what everyone can search: administrators only. */
const ADMINS = ['administrator'] as const;

export const LOG_KIND_NAMES = [
  'access',
  'detection',
  'probe',
  'messaging',
  'raw',
  'custom',
  'trigger',
  'audit',
] as const;
export const MAX_SEARCH_PAGE = 500;
export const MAX_EXPORT_RECORDS = 100_000;

const logName = z
  .string()
  .min(1, 'is required')
  .max(200, 'must be at most 200 characters')
  .describe('a log from GET /logs, e.g. access:<site id>');

const query = z
  .string()
  .max(4096, 'must be at most 4096 characters')
  .optional()
  .describe('the query box: src_ip:10.0.0.1 AND NOT status:200');

const budget = z
  .object({
    ms: z.number().int().min(10).max(60_000).optional(),
    records: z.number().int().min(100).max(50_000_000).optional(),
  })
  .strict()
  .optional()
  .describe('how much a query may scan before it stops and says so (default 5 s, 5,000,000 records)');

const queryFields = {
  log: logName,
  range: timeRangeSchema,
  query,
  filter: filterSchema.optional().describe('filter pills, ANDed with the query'),
  budget,
};

const record = z.record(z.string(), z.unknown());
const range = z.object({ from: z.number(), to: z.number() });

export const logView = z.object({
  log: z.string(),
  kind: z.enum(LOG_KIND_NAMES),
  label: z.string().describe('A: the site configuration ID; B: the site name; or the log configuration name'),
  siteId: z.string().nullable(),
  /** The module the log needs; null: always available. */
  module: z.enum(['basic', 'advanced']).nullable(),
  available: z.boolean().describe('false: its module is not active'),
  oldest: z.number().nullable(),
  newest: z.number().nullable(),
});
export type LogView = z.infer<typeof logView>;

export const searchPage = z.object({
  records: z.array(z.object({ id: z.string(), record })),
  nextCursor: z.string().nullable(),
  partial: z.boolean().describe('the budget ran out: more may match further back (continue with nextCursor)'),
  examined: z.number(),
  elapsedMs: z.number(),
  plan: z.enum(['index', 'scan']),
  range,
});
export type SearchPageView = z.infer<typeof searchPage>;

export const histogramView = z.object({
  interval: z.number().describe('bucket width, ms'),
  buckets: z.array(z.object({ start: z.number(), count: z.number() })),
  total: z.number(),
  partial: z.boolean(),
  source: z.enum(['rollups', 'index', 'scan']),
  range,
});
export type HistogramView = z.infer<typeof histogramView>;

export const fieldStatsView = z.object({
  sampled: z.number(),
  partial: z.boolean(),
  fields: z.array(
    z.object({
      field: z.string(),
      present: z.number(),
      top: z.array(z.object({ value: z.string(), count: z.number() })),
    }),
  ),
});
export type FieldStatsView = z.infer<typeof fieldStatsView>;

export const recordView = z.object({
  id: z.string(),
  log: z.string(),
  record,
  newer: z.array(z.object({ id: z.string(), record })),
  older: z.array(z.object({ id: z.string(), record })),
});
export type RecordView = z.infer<typeof recordView>;

export const listLogs = defineContract({
  method: 'GET',
  path: '/logs',
  operationId: 'listLogs',
  summary: 'The logs a caller can search: access and detection logs per site, and the module-gated ones',
  tag: 'logs',
  access: LOG_READERS,
  response: z.object({ items: z.array(logView) }),
});

export const searchLogs = defineContract({
  method: 'POST',
  path: '/logs/search',
  operationId: 'searchLogs',
  summary: 'A page of matching records, newest first; nextCursor continues without gaps or repeats',
  tag: 'logs',
  access: LOG_READERS,
  body: z
    .object({
      ...queryFields,
      cursor: z.string().max(512).optional(),
      limit: z.number().int().min(1).max(MAX_SEARCH_PAGE, `must be at most ${MAX_SEARCH_PAGE}`).optional(),
    })
    .strict(),
  response: searchPage,
});

export const logHistogram = defineContract({
  method: 'POST',
  path: '/logs/histogram',
  operationId: 'logHistogram',
  summary: 'Matching records counted per time bucket (automatic interval unless given)',
  tag: 'logs',
  access: LOG_READERS,
  body: z
    .object({
      ...queryFields,
      interval: z
        .number()
        .int()
        .min(1000)
        .max(31 * 86_400_000)
        .optional(),
    })
    .strict(),
  response: histogramView,
});

export const logFields = defineContract({
  method: 'POST',
  path: '/logs/fields',
  operationId: 'logFields',
  summary: 'Each field of the matching records with its top values (from the newest `sample` matches)',
  tag: 'logs',
  access: LOG_READERS,
  body: z.object({ ...queryFields, sample: z.number().int().min(1).max(5000).optional() }).strict(),
  response: fieldStatsView,
});

export const getLogRecord = defineContract({
  method: 'GET',
  path: '/logs/records/:id',
  operationId: 'getLogRecord',
  summary: 'One record by id, with the records written just before and after it',
  tag: 'logs',
  access: LOG_READERS,
  params: z.object({ id: z.string().min(1).max(512) }).strict(),
  query: z.object({ around: z.coerce.number().int().min(0).max(50).optional() }).strict(),
  response: recordView,
});

export const exportLogs = defineContract({
  method: 'POST',
  path: '/logs/export',
  operationId: 'exportLogs',
  summary: 'The matching records as CSV or NDJSON (newest first, at most 100,000)',
  tag: 'logs',
  access: LOG_READERS,
  body: z
    .object({
      ...queryFields,
      format: z.enum(['csv', 'ndjson']),
      columns: z
        .array(z.string().min(1).max(128))
        .max(200)
        .optional()
        .describe('CSV columns (default: the fields of the first records)'),
      max: z.number().int().min(1).max(MAX_EXPORT_RECORDS).optional(),
    })
    .strict(),
  produces: 'download',
  downloadType: ['text/csv', 'application/x-ndjson'],
});

export const tailLogs = defineContract({
  method: 'GET',
  path: '/logs/tail',
  operationId: 'tailLogs',
  summary: 'New matching records as they are written (server-sent events: one `record` event each)',
  tag: 'logs',
  access: LOG_READERS,
  query: z.object({ log: logName, query }).strict(),
  produces: 'events',
});

export const storageView = z.object({
  retentionDays: z.record(z.enum(LOG_KIND_NAMES), z.number()),
  logs: z.array(
    z.object({
      log: z.string(),
      kind: z.enum(LOG_KIND_NAMES),
      label: z.string(),
      approxBytes: z.number(),
      oldest: z.number(),
      newest: z.number(),
    }),
  ),
  disk: z.object({
    usedBytes: z.number(),
    freeBytes: z.number(),
    totalBytes: z.number(),
    minFreePercent: z.number().nullable().describe('the share of the volume kept free (disk budget)'),
    maxBytes: z.number().nullable().describe('the cap on the store, if any'),
  }),
});
export type StorageView = z.infer<typeof storageView>;

export const getStorage = defineContract({
  method: 'GET',
  path: '/storage',
  operationId: 'getStorage',
  summary: 'Log storage: size per log, retention per log kind, disk budget',
  tag: 'logs',
  access: ADMINS,
  response: storageView,
});

export const updateStorage = defineContract({
  method: 'PUT',
  path: '/storage',
  operationId: 'updateStorage',
  summary: 'Set how many days each kind of log is kept (1 to 3650); older records go at the next hourly check',
  tag: 'logs',
  access: ADMINS,
  body: z
    .object({
      retentionDays: z
        .object(
          Object.fromEntries(
            LOG_KIND_NAMES.map((k) => [
              k,
              z.number().int().min(1, 'must be at least 1 day').max(3650, 'must be at most 3650 days').optional(),
            ]),
          ) as Record<(typeof LOG_KIND_NAMES)[number], z.ZodOptional<z.ZodNumber>>,
        )
        .strict(),
    })
    .strict(),
  response: storageView,
});

export const purgeLogs = defineContract({
  method: 'POST',
  path: '/storage/purge',
  operationId: 'purgeLogs',
  summary: 'Delete every record of one log (its index entries and roll-ups too); `confirm` must repeat the log name',
  tag: 'logs',
  access: ADMINS,
  body: z.object({ log: logName, confirm: z.string().max(200) }).strict(),
  response: storageView,
});
