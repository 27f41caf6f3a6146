import { z } from 'zod';
import { defineContract } from './contract.ts';
import { edition } from './common.schema.ts';

export const getHealth = defineContract({
  method: 'GET',
  path: '/health',
  operationId: 'getHealth',
  summary: 'Liveness and version; no sign-in needed',
  tag: 'system',
  access: 'public',
  response: z.object({ status: z.literal('ok'), version: z.string() }),
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
