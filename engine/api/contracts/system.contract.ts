import { z } from 'zod';
import { defineContract } from './contract.ts';
import { edition } from './common.schema.ts';

/** Which parts of the engine are up: told only to signed-in callers. */
const healthParts = z.object({
  gateway: z.object({ state: z.enum(['listening', 'down']), port: z.number().int() }),
  intake: z.object({ state: z.enum(['listening', 'off', 'down']), port: z.number().int() }),
  kafka: z.array(
    z.object({
      config: z.string(),
      name: z.string(),
      state: z.enum(['connected', 'connecting', 'error', 'stopped']),
      message: z.string().nullable(),
    }),
  ),
  store: z.object({ state: z.enum(['open', 'error']), bytes: z.number().nullable(), message: z.string().nullable() }),
  disk: z.object({
    state: z.enum(['ok', 'over', 'unknown']),
    freeRatio: z.number().nullable(),
    minFreeRatio: z.number(),
    maxBytes: z.number().nullable(),
  }),
  proxy: z
    .array(
      z.object({
        port: z.number().int(),
        tls: z.boolean(),
        state: z.enum(['listening', 'down']),
        message: z.string().nullable(),
      }),
    )
    .describe("the reverse proxy's site ports (CNAME sites)"),
});

export const getHealth = defineContract({
  method: 'GET',
  path: '/health',
  operationId: 'getHealth',
  summary: 'Liveness and version; no sign-in needed. Signed-in callers also get which parts are up',
  tag: 'system',
  access: 'public',
  response: z.object({ status: z.literal('ok'), version: z.string(), parts: healthParts.optional() }),
});

export const getSystemMetrics = defineContract({
  method: 'GET',
  path: '/system/metrics',
  operationId: 'getSystemMetrics',
  summary: 'Headline metrics since start: verdicts by guard status, intake totals, store size, event-loop delay',
  tag: 'system',
  access: ['administrator'],
  response: z.object({
    verdicts: z.array(z.object({ guardStatus: z.string(), count: z.number().int() })),
    ingest: z.object({ tcp: z.number().int(), kafka: z.number().int(), gateway: z.number().int() }),
    storeBytes: z.number().nullable(),
    eventLoopDelayP99Seconds: z.number(),
  }),
});

export const getSystemVersion = defineContract({
  method: 'GET',
  path: '/system/version',
  operationId: 'getSystemVersion',
  summary: 'System version',
  tag: 'system',
  access: 'signedIn',
  response: z.object({ version: z.string(), edition, node: z.string() }),
});

export type Edition = z.output<typeof edition>;
export type SystemVersion = z.output<typeof getSystemVersion.response>;
export type Health = z.output<typeof getHealth.response>;
export type HealthParts = z.output<typeof healthParts>;
export type SystemMetrics = z.output<typeof getSystemMetrics.response>;
