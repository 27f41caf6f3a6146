/**
 * The console and management API (Fastify): every route declared once with its access, licensed
 * module and zod schemas; permission, CSRF and module checks; errors mapped to HTTP; the OpenAPI
 * document generated from the declarations; and the built console served with an SPA fallback.
 */
export { buildConsoleServer, allRoutes, API_PREFIX, BODY_LIMIT } from './server.ts';
export type { BuildOptions } from './server.ts';
export { defineRoute } from './route.ts';
export type { AnyRoute, Access, RouteDef, HttpMethod } from './route.ts';
export type { ApiDeps } from './deps.ts';
export { SESSION_COOKIE } from './routes/session.routes.ts';
export { STATUS_OF } from './http-errors.ts';
export { navigationFor } from './navigation.ts';
