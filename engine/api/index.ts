/**
 * The console and management API (Fastify): one contract per operation (`./contracts/`: method,
 * path, access, licensed module and zod schemas) with a handler bound to it; permission, CSRF and
 * module checks; errors mapped to HTTP; the OpenAPI document generated from the contracts; and the
 * built console served with an SPA fallback.
 */
export { buildConsoleServer, allRoutes, API_PREFIX, BODY_LIMIT } from './server.ts';
export type { BuildOptions } from './server.ts';
export { bindRoute } from './route.ts';
export type { AnyRoute, Access, HttpMethod, Handler } from './route.ts';
export { buildOpenApi } from './openapi.ts';
export type { ApiDeps } from './deps.ts';
export { SESSION_COOKIE } from './routes/session.routes.ts';
export { STATUS_OF } from './http-errors.ts';
export { navigationFor } from './navigation.ts';
