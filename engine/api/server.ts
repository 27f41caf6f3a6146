import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import cookie from '@fastify/cookie';
import staticFiles from '@fastify/static';
import type { z } from 'zod';
import {
  RampartError,
  errorBody as body,
  isRampartError,
  strictJsonBodyParser,
  safeEqual,
  validationFailed,
  zodProblems,
} from '#engine/shared';
import { plainHttpRedirect, type PlainHttpPolicy } from '#engine/console-tls';
import type { ApiDeps, SystemPort } from './deps.ts';
import type { AnyRoute, Caller, Download } from './route.ts';
import { STATUS_OF } from './http-errors.ts';
import { buildOpenApi } from './openapi.ts';
import { sessionRoutes, SESSION_COOKIE } from './routes/session.routes.ts';
import { accountRoutes } from './routes/accounts.routes.ts';
import { licenceRoutes } from './routes/licence.routes.ts';
import { systemRoutes } from './routes/system.routes.ts';
import { siteRoutes } from './routes/sites.routes.ts';
import { basicRuleRoutes } from './routes/basic-rules.routes.ts';
import { logRoutes } from './routes/logs.routes.ts';
import { logConfigRoutes } from './routes/log-configs.routes.ts';
import { eventRoutes } from './routes/events.routes.ts';
import { overviewRoutes } from './routes/overview.routes.ts';
import { backupRoutes } from './routes/backup.routes.ts';
import { consoleTlsRoutes } from './routes/console-tls.routes.ts';
import { systemSettingsRoutes } from './routes/system-settings.routes.ts';
import { twoFactorRoutes } from './routes/two-factor.routes.ts';
import { TWO_FACTOR_ENROLMENT_OPERATIONS } from './contracts/index.ts';

export const API_PREFIX = '/api/v1';
export const BODY_LIMIT = 1024 * 1024;

/**
 * The console's Content-Security-Policy, sent with every answer. The built console is module
 * scripts and stylesheets from its own origin (Vite emits no inline script; Svelte sets styles
 * through the CSSOM, which style-src does not govern); the favicon is `data:,`.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

export function allRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    ...systemRoutes(deps),
    ...systemSettingsRoutes(deps),
    ...sessionRoutes(deps),
    ...accountRoutes(deps),
    ...licenceRoutes(deps),
    ...siteRoutes(deps),
    ...basicRuleRoutes(deps),
    ...logRoutes(deps),
    ...logConfigRoutes(deps),
    ...eventRoutes(deps),
    ...overviewRoutes(deps),
    ...backupRoutes(deps),
    ...consoleTlsRoutes(deps),
    ...twoFactorRoutes(deps),
  ];
}

export interface BuildOptions {
  /** Extra routes (tests use this to exercise mechanisms such as module gating). */
  extraRoutes?: AnyRoute[];
  /**
   * The console's TLS (engine/console-tls): a server that speaks HTTPS and plain HTTP on one port,
   * and what plain HTTP gets. Without it the console speaks plain HTTP only.
   */
  tls?: { serverFactory: NonNullable<FastifyServerOptions['serverFactory']>; plainHttp: PlainHttpPolicy };
  trustProxy?: boolean;
  logger?: FastifyServerOptions['loggerInstance'];
}

/**
 * Answers the HTTP parser's own refusals (bad request line, oversized head, timeouts) in the API's
 * error shape, with the security headers, and closes the connection.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (socket.destroyed || !socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, reason, refusal] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [
          431,
          'Request Header Fields Too Large',
          new RampartError('PAYLOAD_TOO_LARGE', 'headers: are too large', {
            field: 'headers',
            params: { reason: 'headers_too_large' },
          }),
        ]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            408,
            'Request Timeout',
            new RampartError('VALIDATION_FAILED', 'request: did not arrive in time', {
              field: 'request',
              params: { reason: 'request_timeout' },
            }),
          ]
        : [
            400,
            'Bad Request',
            new RampartError('VALIDATION_FAILED', 'request: is not a valid HTTP request', {
              field: 'request',
              params: { reason: 'bad_http_request' },
            }),
          ];
  const payload = JSON.stringify(body(refusal));
  const headers = Object.entries({
    ...SECURITY_HEADERS,
    'Cache-Control': 'no-store',
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(payload)),
    Connection: 'close',
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${reason}\r\n${headers}\r\n${payload}`);
}

/** Matches a concrete path against the declared paths and says which methods it answers. */
function allowedMethods(patterns: ReadonlyMap<string, ReadonlySet<string>>): (path: string) => string[] {
  const matchers = [...patterns].map(([pattern, methods]) => {
    const source = pattern
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const allow = new Set(methods);
    if (allow.has('GET')) allow.add('HEAD');
    return { re: new RegExp(`^${source}$`), allow: [...allow].sort() };
  });
  return (path) => matchers.find((m) => m.re.test(path))?.allow ?? [];
}

/** The longest path parameter the router takes (ids, names); longer ones are refused with 414. */
const MAX_PARAM_LENGTH = 200;

/** The router's own refusals (a path that does not percent-decode, a path parameter over maxParamLength). */
function answerRouterError(error: FastifyError, reply: FastifyReply): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const refusal = tooLong
    ? new RampartError('VALIDATION_FAILED', `path: a path parameter is longer than ${MAX_PARAM_LENGTH} characters`, {
        field: 'path',
        params: { reason: 'path_param_too_long', max: MAX_PARAM_LENGTH },
      })
    : new RampartError('VALIDATION_FAILED', 'path: is not a valid URL path (bad percent-encoding)', {
        field: 'path',
        params: { reason: 'bad_percent_encoding' },
      });
  void reply
    .headers({ ...SECURITY_HEADERS, 'Cache-Control': 'no-store' })
    .status(tooLong ? 414 : 400)
    .send(body(refusal));
}

function parseInput<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return undefined as T;
  // A missing body reads as `{}`; a JSON `null` is a body of the wrong type.
  const result = schema.safeParse(value === undefined ? {} : value);
  if (result.success) return result.data;
  // Every bad field in one answer, each with zod's issue code and bounds: the console marks them
  // all and says each in its own language.
  throw validationFailed(zodProblems(result.error, where));
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function overTls(request: FastifyRequest): boolean {
  return (request.raw.socket as Socket & { encrypted?: boolean }).encrypted === true;
}

/**
 * HSTS for an answer over TLS to a host name: a browser that reached the console by name goes
 * straight to HTTPS afterwards. Not for an address or localhost (browsers ignore it for addresses,
 * and plain HTTP stays open to this host). No includeSubDomains: the appliance's name says nothing
 * of its neighbours'.
 */
const HSTS = 'max-age=15552000';

function namedHost(host: string | undefined): boolean {
  if (!host || host.startsWith('[')) return false;
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return name !== 'localhost' && !name.endsWith('.localhost') && !/^[\d.]+$/.test(name);
}

/** Marks every cookie of an answer given over TLS `Secure`, so a browser never sends it over plain HTTP. */
function secureCookies(reply: FastifyReply): void {
  const header = reply.getHeader('set-cookie');
  if (header === undefined) return;
  const cookies = (Array.isArray(header) ? header : [String(header)]).map((c) =>
    /;\s*secure\b/i.test(c) ? c : `${c}; Secure`,
  );
  reply.removeHeader('set-cookie');
  reply.header('set-cookie', cookies);
}

/**
 * Builds the console server: the API routes with their access checks, the OpenAPI document, the
 * error mapping, and the built console as static files with a single-page-app fallback.
 */
export async function buildConsoleServer(deps: ApiDeps, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.tls ? { serverFactory: options.tls.serverFactory } : {}),
    bodyLimit: BODY_LIMIT,
    trustProxy: options.trustProxy ?? false,
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler: answerClientError,
    frameworkErrors: (error, _request, reply) => {
      answerRouterError(error, reply);
    },
  });
  await app.register(cookie);

  // Repeated keys, prototype keys and deep nesting are refused before any route sees a body.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, strictJsonBodyParser);

  app.addHook('onSend', async (request, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    // API answers may carry secrets (the CSRF token, the Access Key, activation links): never cached.
    if (request.url.startsWith('/api/')) reply.header('Cache-Control', 'no-store');
    if (overTls(request)) {
      secureCookies(reply);
      if (namedHost(request.headers.host)) reply.header('Strict-Transport-Security', HSTS);
    }
    return payload;
  });

  if (options.tls) {
    const policy = options.tls.plainHttp;
    // Plain HTTP from another host goes to HTTPS (308 keeps the method and body of a form post).
    app.addHook('onRequest', async (request, reply) => {
      const target = plainHttpRedirect(
        {
          encrypted: overTls(request),
          remoteAddress: request.raw.socket.remoteAddress,
          host: request.headers.host,
          url: request.url,
        },
        policy,
      );
      if (target === undefined) return;
      if (target === 'bad_host') {
        throw new RampartError('VALIDATION_FAILED', 'Host: must be a host name or address, with an optional port', {
          field: 'host',
        });
      }
      await reply.code(308).header('location', target.location).send();
    });
  }

  app.setErrorHandler((error, request, reply) => {
    if (isRampartError(error)) {
      const status = STATUS_OF[error.code];
      if (error.code === 'RATE_LIMITED' && typeof error.params.retryAfterSeconds === 'number') {
        reply.header('Retry-After', String(error.params.retryAfterSeconds));
      }
      if (status >= 500) deps.logger.error({ err: error, cause: error.cause, url: request.url }, 'request failed');
      return reply.status(status).send(body(error));
    }
    // A method the path does not declare fails Fastify's checks (QUERY without a Content-Type, a
    // bad media type) before the not-found handler could say 405.
    if (request.is404 && answerMethodNotAllowed(request, reply)) return reply;
    const fastifyError = error as { code?: string; statusCode?: number; message?: string };
    if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const limit = request.routeOptions.bodyLimit ?? BODY_LIMIT;
      return reply.status(413).send(
        body(
          new RampartError('PAYLOAD_TOO_LARGE', `body: must be at most ${limit} bytes`, {
            field: 'body',
            params: { reason: 'body_too_large', max: limit },
          }),
        ),
      );
    }
    if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.status(415).send(
        body(
          new RampartError('VALIDATION_FAILED', 'body: Content-Type must be application/json', {
            field: 'body',
            params: { reason: 'content_type_json' },
          }),
        ),
      );
    }
    if (fastifyError.code?.startsWith('FST_ERR_CTP_') || error instanceof SyntaxError) {
      return reply.status(400).send(
        body(
          new RampartError('INVALID_JSON', 'body: is not valid JSON', {
            field: 'body',
            params: { reason: 'invalid_json' },
          }),
        ),
      );
    }
    if (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
      return reply.status(fastifyError.statusCode).send(
        body(
          new RampartError('VALIDATION_FAILED', 'request: is not a valid request', {
            field: 'request',
            params: { reason: 'bad_request' },
          }),
        ),
      );
    }
    deps.logger.error({ err: error, url: request.url }, 'unexpected error');
    return reply.status(500).send(body(new RampartError('INTERNAL', 'Internal error; the engine log has the details')));
  });

  const routes = [...allRoutes(deps), ...(options.extraRoutes ?? [])];
  const openapi = buildOpenApi(routes, deps.version, deps.edition);
  app.get(`${API_PREFIX}/openapi.json`, () => openapi);

  const declared = new Map<string, Set<string>>([[`${API_PREFIX}/openapi.json`, new Set(['GET'])]]);
  for (const route of routes) {
    const methods = declared.get(API_PREFIX + route.path) ?? new Set<string>();
    declared.set(API_PREFIX + route.path, methods.add(route.method));
  }
  const allowOf = allowedMethods(declared);
  /** 405 with Allow when the path is declared, but not for this method; false when it is not declared. */
  const answerMethodNotAllowed = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const path = request.url.split('?')[0] ?? '';
    const allow = path.startsWith('/api/') ? allowOf(path) : [];
    if (allow.length === 0) return false;
    const refusal = new RampartError(
      'ROUTE_NOT_FOUND',
      `${path} does not answer ${request.method}; it answers ${allow.join(', ')}`,
      {
        params: { method: request.method, path, allow: allow.join(', ') },
      },
    );
    void reply.status(405).header('Allow', allow.join(', ')).send(body(refusal));
    return true;
  };

  const callerOf = (request: FastifyRequest): Caller | 'expired' | undefined => {
    const current = deps.accounts.current(request.cookies[SESSION_COOKIE]);
    if (current.kind === 'valid') return { account: current.account, session: current.session };
    return current.kind === 'expired' ? 'expired' : undefined;
  };

  for (const route of routes) {
    app.route({
      method: route.method,
      url: API_PREFIX + route.path,
      // Hooks that follow operations (engine/audit) learn the route's operation from its config.
      config: { operationId: route.operationId },
      ...(route.bodyLimit ? { bodyLimit: route.bodyLimit } : {}),
      handler: async (request, reply) => {
        const found = callerOf(request);
        const caller = found === 'expired' ? undefined : found;
        if (route.access !== 'public') {
          if (!caller) {
            throw found === 'expired'
              ? new RampartError('SESSION_EXPIRED', 'Your session has expired; sign in again')
              : new RampartError('UNAUTHENTICATED', 'Sign in first');
          }
          if (route.access !== 'signedIn' && !route.access.includes(caller.account.role)) {
            throw new RampartError('FORBIDDEN_ROLE', `This needs the role ${route.access.join(' or ')}`, {
              params: { role: caller.account.role },
            });
          }
          if (
            !TWO_FACTOR_ENROLMENT_OPERATIONS.has(route.operationId) &&
            deps.accounts.mustEnrolTwoFactor(caller.account)
          ) {
            throw new RampartError(
              'TWO_FACTOR_REQUIRED',
              'Administrators must sign in with a second factor: set up two-factor sign-in on My account first',
            );
          }
          if (STATE_CHANGING.has(route.method)) {
            const header = request.headers['x-csrf-token'];
            if (typeof header !== 'string' || !safeEqual(header, caller.session.csrfToken)) {
              throw new RampartError(
                'CSRF_INVALID',
                'The X-CSRF-Token header is missing or does not match the session; reload the console',
              );
            }
          }
        }
        if (route.module && !deps.licence.isActive(route.module)) {
          throw new RampartError('MODULE_NOT_ACTIVE', `This needs the ${route.module} module, which is not activated`, {
            params: { module: route.module },
          });
        }
        const ctx = {
          params: parseInput(route.params, request.params, 'path'),
          query: parseInput(route.query, request.query, 'query'),
          body: parseInput(route.body, request.body, 'body'),
          caller,
          ip: request.ip,
          reply,
        };
        const result = await route.handler(ctx);
        // An event stream's handler took the connection over (reply.hijack()) and writes to it itself.
        if (route.produces === 'events') return reply;
        reply.status(route.status ?? 200);
        if (route.produces === 'download') {
          const file = result as Download;
          return reply
            .header('content-disposition', `attachment; filename="${file.fileName.replace(/[^\w.-]/g, '_')}"`)
            .header('cache-control', 'no-store')
            .type(file.contentType)
            .send(file.content);
        }
        if (route.status === 204 || !route.response) return reply.send();
        return route.response.parse(result);
      },
    });
  }

  if (deps.system) registerMetricsRoute(app, deps.system, callerOf);

  const indexFile = deps.rendererDir ? join(deps.rendererDir, 'index.html') : undefined;
  if (deps.rendererDir && indexFile && existsSync(indexFile)) {
    await app.register(staticFiles, { root: deps.rendererDir, prefix: '/', wildcard: false, index: ['index.html'] });
  }

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (answerMethodNotAllowed(request, reply)) return reply;
    if (path.startsWith('/api/') || request.method !== 'GET' || !indexFile || !existsSync(indexFile)) {
      return reply.status(404).send(
        body(
          new RampartError('ROUTE_NOT_FOUND', `No such route: ${request.method} ${path}`, {
            params: { method: request.method, path },
          }),
        ),
      );
    }
    return reply.type('text/html').sendFile('index.html');
  });

  return app;
}

/**
 * Prometheus's scrape, at /metrics where Prometheus looks by default, in its text format: for a
 * signed-in administrator, or with the bearer token of RAMPART_METRICS_TOKEN (a scraper has no session).
 */
function registerMetricsRoute(
  app: FastifyInstance,
  system: SystemPort,
  callerOf: (request: FastifyRequest) => Caller | 'expired' | undefined,
): void {
  app.get('/metrics', async (request, reply) => {
    const token = system.metricsToken;
    const auth = request.headers.authorization;
    const bearer =
      token !== undefined && auth?.startsWith('Bearer ') === true && safeEqual(auth.slice('Bearer '.length), token);
    if (!bearer) {
      const found = callerOf(request);
      if (found === undefined || found === 'expired') {
        reply.header('WWW-Authenticate', 'Bearer realm="rampart"');
        throw new RampartError(
          found === 'expired' ? 'SESSION_EXPIRED' : 'UNAUTHENTICATED',
          'Sign in as an administrator, or send the token of RAMPART_METRICS_TOKEN as a bearer token',
        );
      }
      if (found.account.role !== 'administrator') {
        throw new RampartError('FORBIDDEN_ROLE', 'This needs the role administrator', {
          params: { role: found.account.role },
        });
      }
    }
    const text = await system.metrics();
    return reply.header('Cache-Control', 'no-store').type(system.metricsContentType).send(text);
  });
}
