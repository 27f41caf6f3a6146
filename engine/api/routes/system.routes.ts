import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';

export function systemRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Liveness and version; no sign-in needed',
      tag: 'system',
      access: 'public',
      response: z.object({ status: z.literal('ok'), version: z.string() }),
      handler: () => ({ status: 'ok' as const, version: deps.version }),
    }),
    defineRoute({
      method: 'GET',
      path: '/system/version',
      operationId: 'getSystemVersion',
      summary: 'System version',
      tag: 'system',
      access: 'signedIn',
      response: z.object({ version: z.string(), edition: z.enum(['A', 'B']), node: z.string() }),
      handler: () => ({ version: deps.version, edition: deps.edition, node: process.versions.node }),
    }),
  ];
}
