import { z } from 'zod';
import { defineContract } from './contract.ts';

/** Spec 5.2: every role sees the Security Overview. */
const READERS = 'signedIn' as const;

const rangeQuery = z
  .object({
    from: z.coerce.number().int().min(0).describe('UTC epoch ms, inclusive'),
    to: z.coerce.number().int().min(0).describe('UTC epoch ms, exclusive'),
    siteId: z.string().max(64).optional().describe('one site; all when absent'),
  })
  .strict()
  .refine((q) => q.to > q.from, { path: ['to'], message: 'must be after from' })
  .refine((q) => q.to - q.from <= 400 * 86_400_000, { path: ['from'], message: 'the range must be at most 400 days' });

const counted = z.array(z.object({ value: z.string(), count: z.number() }));

const summaryView = z.object({
  requests: z.number(),
  ips: z.number().describe('distinct client addresses'),
  detections: z.number().describe('probe downloads and reports'),
  probeReports: z.number(),
  probeDownloads: z.number(),
  bots: z.number().describe('reports that judged the client an automation tool'),
  webAttacks: z.number().describe('requests a basic rule matched'),
  owaspAttacks: z.number().describe('of those, the Core Rule Set groups'),
  botAttacks: z.number().describe('requests judged BOT'),
  abnormal: z.number().describe('requests whose verdict was not PASS or IGNORE'),
  approximate: z.boolean().describe('a distinct count read a bucket that held more values than it keeps'),
});

export const overviewSummary = defineContract({
  method: 'GET',
  path: '/overview/summary',
  operationId: 'overviewSummary',
  summary: 'The counters of a range, with the previous period of the same length',
  tag: 'overview',
  access: READERS,
  query: rangeQuery,
  response: z.object({ current: summaryView, previous: summaryView }),
});

export const overviewDistribution = defineContract({
  method: 'GET',
  path: '/overview/distribution',
  operationId: 'overviewDistribution',
  summary: 'Verdicts, bot types, browser classes, sites, attack types, bot security and list requests',
  tag: 'overview',
  access: READERS,
  query: rangeQuery,
  response: z.object({
    verdicts: counted,
    botTypes: counted,
    browserTypes: counted,
    sites: counted,
    attackTypes: counted,
    botSecurity: z.object({ normal: z.number(), bot: z.number(), unclassified: z.number() }),
    lists: z.object({ pass: z.number(), block: z.number() }),
    approximate: z.boolean(),
  }),
});

export const overviewTrend = defineContract({
  method: 'GET',
  path: '/overview/trend',
  operationId: 'overviewTrend',
  summary: 'Total, abnormal and web-attack requests per bucket (1 min to 6 h, chosen from the range)',
  tag: 'overview',
  access: READERS,
  query: rangeQuery,
  response: z.object({
    bucketMs: z.number(),
    buckets: z.array(z.object({ at: z.number(), total: z.number(), abnormal: z.number(), webAttacks: z.number() })),
  }),
});

export const OVERVIEW_RANKINGS = [
  'path',
  'referrer_path',
  'src_ip',
  'hostname',
  'attack_src_ip',
  'attack_hostname',
] as const;

export const overviewRanking = defineContract({
  method: 'GET',
  path: '/overview/ranking',
  operationId: 'overviewRanking',
  summary: 'The top values of a ranking field: request paths, probe-run paths, source IPs, attack sources, domains',
  tag: 'overview',
  access: READERS,
  query: z
    .object({
      from: z.coerce.number().int().min(0),
      to: z.coerce.number().int().min(0),
      siteId: z.string().max(64).optional(),
      field: z.enum(OVERVIEW_RANKINGS),
      limit: z.coerce.number().int().min(1).max(100).default(10),
    })
    .strict()
    .refine((q) => q.to > q.from, { path: ['to'], message: 'must be after from' }),
  response: z.object({ items: counted, approximate: z.boolean() }),
});

export const overviewSites = defineContract({
  method: 'GET',
  path: '/overview/sites',
  operationId: 'overviewSites',
  summary: 'Protected sites, connected with protection on and off, and enabled basic rules (edition B counters)',
  tag: 'overview',
  access: READERS,
  query: z.object({ siteId: z.string().max(64).optional() }).strict(),
  response: z.object({
    protected: z.number(),
    connectedOn: z.number(),
    connectedOff: z.number(),
    enabledBasicRules: z.number(),
  }),
});
