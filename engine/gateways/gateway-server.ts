import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  HTTP_STATUS_OF,
  RampartError,
  capText,
  errorBody,
  strictJsonBodyParser,
  safeEqual,
  validationFailed,
  zodProblems,
  type Clock,
  type Logger,
} from '#engine/shared';
import type { SitesService, CompiledSite } from '#engine/sites';
import type { LogStore } from '#engine/log-store';
import {
  decide,
  header,
  resolveSourceIp,
  accessRecord,
  NO_WAF_MATCH,
  type Headers,
  type RequestFacts,
  type Verdict,
  type VerdictPorts,
  type IntelligenceResult,
} from '#engine/verdict';
import { serveVerdictConnection, HEAD_LIMIT, type VerdictAnswer } from './verdict-connection.ts';
import { gatewayTrust, plainAddress } from './gateway-trust.ts';
import { AccessMerge, DEFAULT_MAX_PENDING, DEFAULT_MERGE_WAIT_MS, type AccessRecord } from './access-merge.ts';
import { GatewayLogPort, loneAccessRecord } from './gateway-log-port.ts';
import {
  conventionFacts,
  conventionStatus,
  lastForwardedFor,
  verdictConvention,
  type VerdictConvention,
} from './forward-auth.ts';
import { registerBypassSdk } from './bypass-sdk.ts';
import { registerMiniProgram } from './mini-program.ts';

/** What the gateway server needs of the intelligence module. */
export interface IntelPort {
  /** The `_intelligence_result` of an address and user agent (cached by the intel module). */
  lookup(ip: string, userAgent: string): IntelligenceResult;
}

/** What the gateway server needs of the probe module: its script, pages and report handling. */
export interface ProbePort {
  /** `sdk` (the bypass web SDK) reports to `reportUrl`, an absolute URL on the gateway address. */
  script(site: CompiledSite, mode: 'reload' | 'page' | 'sdk', reportUrl?: string): string;
  reloadPage(site: CompiledSite): string;
  report(site: CompiledSite, body: unknown, ctx: ReportContext): ProbeOutcome;
}

export interface ReportContext {
  srcIp: string;
  userAgent: string;
  referrer: string;
  host: string;
  scheme: string;
  cookieHeader: string | undefined;
}

export interface ProbeOutcome {
  status: number;
  cookies: string[];
  body: Record<string, unknown>;
  detectionRecord: Record<string, unknown> & { _timestamp: number };
}

export interface GatewayDeps {
  sites: SitesService;
  logStore: LogStore;
  clock: Clock;
  logger: Logger;
  ports: VerdictPorts;
  intel: IntelPort;
  probe: ProbePort;
  version: string;
  /** Request bodies up to this many bytes are inspected; a larger one is cut one byte past it, so the WAF sees it is too large. */
  inspectBodyLimit?: number;
  /** Asked before a probe report is judged; over the limit the report gets 429 and writes nothing (ProbeService satisfies it). */
  reportGate?: { admitReport(siteId: string, srcIp: string): { ok: true } | { ok: false; retryAfterSeconds: number } };
  /** A verdict request whose head is over HEAD_LIMIT is passed (default) or blocked, and logged either way. */
  oversizeHead?: 'pass' | 'block';
  /**
   * Addresses and CIDR ranges of gateways whose X-Rampart-Remote-Addr, X-Rampart-Scheme and Host the
   * unauthenticated /_rampart/ routes believe (default: loopback). Addresses that heartbeats came
   * from (gateways that showed the Access Key) are believed too.
   */
  trustedGateways?: readonly string[];
  /** Reload and block pages may run inline scripts and styles of their own (off: only the probe runs). */
  pagesAllowInline?: boolean;
  /**
   * The gateway log port (UDP) where nginx sends its access-log lines, merged into the verdicts'
   * records; without it (or with port 0) every record is written at verdict time. `mergeWaitMs` is
   * how long a record waits for its line, `maxPending` how many may wait, `monotonicNow` the clock of
   * those waits (default: performance.now).
   */
  gatewayLog?: { host: string; port: number; mergeWaitMs?: number; maxPending?: number; monotonicNow?: () => number };
  /** Counts each verdict by site and guard status (engine/metrics); absent in tests that do not count. */
  metrics?: { verdict(siteId: string, guardStatus: string): void };
}

export const GATEWAY_BODY_LIMIT = 256 * 1024;

export const accessLogName = (siteId: string): string => `access:${siteId}`;
export const detectionLogName = (siteId: string): string => `detection:${siteId}`;
/** The log of a site's probe downloads (the overview's probe download count). */
export const probeLogName = (siteId: string): string => `probe:${siteId}`;

export const NO_STORE = 'no-store, no-cache, must-revalidate';
/** Longer than nginx's upstream keepalive_timeout (60 s): nginx, not Rampart, ends an idle connection, so it never reuses one Rampart is closing. */
const KEEP_ALIVE_MS = 75_000;
/** A request's head must arrive within this time of its first byte, the whole request within the next. */
const HEAD_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Reload and block pages hold text from the site's settings and are served on every protected
 * origin: only scripts from the origin (the probe) run, nothing inline, unless the administrator
 * allows inline content. The probe is loaded by URL, so it needs no nonce.
 */
export const PAGE_CSP = (inline: boolean): string =>
  [
    "default-src 'self'",
    `script-src 'self'${inline ? " 'unsafe-inline'" : ''}`,
    `style-src 'self'${inline ? " 'unsafe-inline'" : ''}`,
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');

/**
 * An error answer of Node's parser (bad head, head over the limit, head or request too slow), in
 * the documented error shape and with `Connection: close`, so nginx does not put the connection
 * back in its keep-alive pool; then the connection ends.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, problem] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, new RampartError('PAYLOAD_TOO_LARGE', `head: must be at most ${HEAD_LIMIT} bytes`, { field: 'head' })]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            408,
            new RampartError(
              'VALIDATION_FAILED',
              `request: must arrive within ${HEAD_TIMEOUT_MS / 1000} s (head) and ${REQUEST_TIMEOUT_MS / 1000} s (whole)`,
              { field: 'request' },
            ),
          ]
        : [400, new RampartError('VALIDATION_FAILED', 'request: is not valid HTTP/1.1', { field: 'request' })];
  // An answer already under way cannot be followed by another: then the connection only ends.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && inFlight?.headersSent !== true) {
    const body = JSON.stringify(errorBody(problem));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    setTimeout(() => socket.destroy(), 2000).unref();
  } else {
    socket.destroy();
  }
}

/** The largest header value, and the most headers, a plug-in-less check may carry. */
const CHECK_HEADER_VALUE_MAX = 16_384;
const CHECK_HEADERS_MAX = 200;

/**
 * The gateway API's contract for plug-in-less checks (`POST /_rampart/check`, keyed by
 * X-Rampart-Site and X-Rampart-Key): the request the gateway saw, and the verdict it acts on. A
 * refused input answers 400 in the console API's error body, naming the field, with zod's issue
 * code and bounds as params. Unknown fields are ignored (gateways of newer versions may send more).
 */
export const checkContract = {
  method: 'POST',
  path: '/_rampart/check',
  body: z.object(
    {
      method: z
        .string({ error: 'must be a string of at most 16 characters' })
        .max(16, 'must be a string of at most 16 characters')
        .nullish()
        .transform((value) => value ?? 'GET'),
      uri: z
        .string({ error: 'must be a string of at most 8192 characters' })
        .max(8192, 'must be a string of at most 8192 characters'),
      host: z
        .string({ error: 'must be a string of at most 253 characters' })
        .max(253, 'must be a string of at most 253 characters')
        .nullish(),
      remoteAddr: z
        .string({ error: 'must be an IPv4 or IPv6 address' })
        .refine((value) => isIP(value) !== 0, { message: 'must be an IPv4 or IPv6 address', params: { format: 'ip' } }),
      headers: z
        .record(
          z.string(),
          z
            .string({ error: `must be a string of at most ${CHECK_HEADER_VALUE_MAX} characters` })
            .max(CHECK_HEADER_VALUE_MAX, `must be a string of at most ${CHECK_HEADER_VALUE_MAX} characters`),
          { error: 'must be an object of header names to values' },
        )
        .refine((headers) => Object.keys(headers).length <= CHECK_HEADERS_MAX, {
          message: `at most ${CHECK_HEADERS_MAX} headers`,
          params: { maximum: CHECK_HEADERS_MAX },
        })
        .optional(),
      bodyBase64: z
        .string({ error: `must be a string of at most ${GATEWAY_BODY_LIMIT} characters` })
        .max(GATEWAY_BODY_LIMIT, `must be a string of at most ${GATEWAY_BODY_LIMIT} characters`)
        .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')
        .optional(),
    },
    { error: 'must be a JSON object' },
  ),
  response: z.object({
    action: z.enum(['pass', 'reload', 'block']),
    guard_status: z.string(),
    status: z.number(),
    src_ip: z.string(),
    waf_triggered_rules: z.array(z.string()),
    waf_triggered_categories: z.array(z.string()),
    waf_triggered_score: z.number(),
  }),
} as const;

/**
 * The gateway API (default port 9081): nginx `auth_request` verdicts, plug-in-less JSON checks,
 * heartbeats, and the browser-facing probe, report, reload and block endpoints under /_rampart/.
 */
export async function buildGatewayServer(deps: GatewayDeps): Promise<FastifyInstance> {
  const { sites, logStore, clock, logger } = deps;
  const isGateway = gatewayTrust(deps.trustedGateways, sites);
  const pageCsp = PAGE_CSP(deps.pagesAllowInline === true);
  let lastKeyWarning = 0;
  const verdictSockets = new Set<Socket>();

  // The verdict is the hot path: nginx asks it for every request. It is answered straight from
  // Node's HTTP server, before Fastify's routing, request and reply objects; everything else goes
  // through Fastify.
  const bodyLimit = deps.inspectBodyLimit ?? 128 * 1024;
  const errorAnswer = (error: unknown): VerdictAnswer => {
    const known = error instanceof RampartError ? error : new RampartError('INTERNAL', 'Internal error');
    if (!(error instanceof RampartError)) logger.error({ err: error }, 'verdict failed');
    // nginx's auth_request reads 401 as "reload" and 403 as "block", and answers anything else with
    // a 500 of its own. So every failure but an unknown site is a 500 here, a wrong Access Key too: a
    // gateway with a stale key must fail where its operator sees it (nginx's error log names the
    // status), not send every visitor to the reload page, which would loop for ever.
    const status = known.code === 'SITE_UNKNOWN' ? HTTP_STATUS_OF[known.code] : 500;
    return { status, json: JSON.stringify(errorBody(known)) };
  };
  const verdictAnswer = (headers: Headers, method: string, peer: string, body: Buffer | undefined): VerdictAnswer => {
    try {
      return verdictFor(headers, method, peer, body);
    } catch (error) {
      return errorAnswer(error);
    }
  };
  const answerVerdict = (req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): void => {
    const answer = verdictAnswer(req.headers, req.method ?? 'GET', req.socket.remoteAddress ?? '', body);
    if (answer.json === undefined) {
      res.writeHead(answer.status, { 'x-rampart-guard': answer.guard ?? '' });
      res.end();
    } else {
      res.writeHead(answer.status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(answer.json),
      });
      res.end(answer.json);
    }
  };

  // nginx's auth_request sends no body: answered at once. A gateway that forwards the client's body
  // (a POST with Content-Length or chunked) gets it inspected, up to the limit plus one byte.
  const fastVerdict = (
    req: IncomingMessage,
    res: ServerResponse,
    answer: (req: IncomingMessage, res: ServerResponse, body: Buffer | undefined) => void = answerVerdict,
  ): void => {
    const length = req.headers['content-length'];
    if ((length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined) {
      req.resume();
      answer(req, res, undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let kept = 0;
    req.on('data', (chunk: Buffer) => {
      if (kept > bodyLimit) return;
      const room = bodyLimit + 1 - kept;
      const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(piece);
      kept += piece.length;
    });
    req.on('end', () => answer(req, res, Buffer.concat(chunks, kept)));
    req.on('error', () => res.destroy());
  };

  // Forward-auth gateways (Caddy, Traefik, HAProxy) and Envoy: see forward-auth.ts. Their requests
  // are not read by the verdict connection reader (it takes only the bare /_rampart/verdict).
  const conventionVerdict =
    (convention: Exclude<VerdictConvention, { kind: 'nginx' }>) =>
    (req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): void => {
      const peer = req.socket.remoteAddress ?? '';
      let site: CompiledSite;
      let verdict: Verdict;
      try {
        site = siteFrom(req.headers, undefined, true, peer);
        sites.markSeen(site.id);
        const facts = conventionFacts(convention, req.headers, req.method ?? 'GET', peer, isGateway(peer), body);
        verdict = decide(site, facts, deps.ports);
        log(site, facts, verdict, false);
      } catch (error) {
        const answer = errorAnswer(error);
        const json = answer.json ?? '';
        res.writeHead(answer.status, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(json),
        });
        res.end(json);
        return;
      }
      if (verdict.action === 'pass') {
        // Envoy allows on 200 only; the others on any 2xx.
        res.writeHead(200, { 'x-rampart-guard': verdict.guardStatus, 'content-length': 0 });
        res.end();
        return;
      }
      const reload = verdict.action === 'reload';
      const html = reload ? deps.probe.reloadPage(site) : site.blockContent;
      res.writeHead(conventionStatus(reload ? site.reloadStatus : site.blockStatus), {
        'x-rampart-guard': verdict.guardStatus,
        'cache-control': NO_STORE,
        'content-security-policy': pageCsp,
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(html),
      });
      res.end(html);
    };

  const app = Fastify({
    logger: false,
    bodyLimit: GATEWAY_BODY_LIMIT,
    return503OnClosing: true,
    keepAliveTimeout: KEEP_ALIVE_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    clientErrorHandler: answerClientError,
    serverFactory: (handler) => {
      const server = createServer(
        {
          maxHeaderSize: HEAD_LIMIT,
          headersTimeout: HEAD_TIMEOUT_MS,
          requestTimeout: REQUEST_TIMEOUT_MS,
          // Node checks the two deadlines this often (its default, 30 s, would let them run late).
          connectionsCheckingInterval: 1000,
        },
        (req, res) => {
          if (req.url === '/_rampart/verdict') fastVerdict(req, res);
          else if (req.url?.startsWith('/_rampart/verdict') === true) {
            const convention = verdictConvention(req.url);
            if (convention === undefined) handler(req, res);
            else if (convention.kind === 'nginx') fastVerdict(req, res);
            else fastVerdict(req, res, conventionVerdict(convention));
          } else handler(req, res);
        },
      );
      // (Fastify sets this only on servers it creates itself.)
      server.keepAliveTimeout = KEEP_ALIVE_MS;
      // Connections start on the verdict's own reader (verdict-connection.ts) and move to Node's
      // HTTP server, this listener, at their first request that is not a plain verdict.
      const nodeConnection = server.listeners('connection')[0] as ((socket: Socket) => void) | undefined;
      if (nodeConnection !== undefined) {
        server.removeListener('connection', nodeConnection);
        server.on('connection', (socket: Socket) =>
          serveVerdictConnection(socket, {
            answer: (headers, method, peer, body) => verdictAnswer(headers, method, peer, body),
            oversize: (headers, method, peer, headBytes) => oversizeAnswer(headers, method, peer, headBytes),
            // The WAF sees at most bodyLimit + 1 bytes (one more than the limit tells it the body is too large).
            maxBodyBytes: bodyLimit + 1,
            handOver: (s, rest) => {
              nodeConnection.call(server, s);
              // Node's parser reads the socket itself from now on; the bytes already read are its first.
              if (rest.length > 0) s.emit('data', rest);
            },
            keepAliveTimeoutMs: KEEP_ALIVE_MS,
            headTimeoutMs: HEAD_TIMEOUT_MS,
            requestTimeoutMs: REQUEST_TIMEOUT_MS,
            open: verdictSockets,
          }),
        );
      }
      return server;
    },
  });
  // A shutdown ends the connections read here (Node's server closes its own idle ones).
  // (A peer that does not close its side within two seconds is cut off.)
  app.addHook('preClose', (done) => {
    for (const socket of verdictSockets) {
      socket.end();
      setTimeout(() => socket.destroy(), 2000).unref();
    }
    done();
  });

  // Repeated keys, prototype keys and deep nesting are refused here as on the console API.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, strictJsonBodyParser);

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof RampartError) {
      if (error.code === 'RATE_LIMITED' && typeof error.params.retryAfterSeconds === 'number') {
        void reply.header('retry-after', String(error.params.retryAfterSeconds));
      }
      return reply.status(HTTP_STATUS_OF[error.code]).send(errorBody(error));
    }
    const e = error as { statusCode?: number; code?: string };
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply
        .status(413)
        .send(errorBody(new RampartError('PAYLOAD_TOO_LARGE', `body: must be at most ${GATEWAY_BODY_LIMIT} bytes`)));
    }
    if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500) {
      return reply
        .status(400)
        .send(errorBody(new RampartError('INVALID_JSON', 'body: is not valid JSON', { field: 'body' })));
    }
    logger.error({ err: error, url: request.url }, 'gateway request failed');
    return reply.status(500).send(errorBody(new RampartError('INTERNAL', 'Internal error')));
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .send(
        errorBody(
          new RampartError('ROUTE_NOT_FOUND', `No such route: ${request.method} ${request.url.split('?')[0] ?? ''}`),
        ),
      ),
  );

  /** The site named by X-Rampart-Site; with `keyed`, the Access Key must match too. */
  const siteFrom = (headers: Headers, querySite: string | undefined, keyed: boolean, from: string): CompiledSite => {
    const id = header(headers, 'x-rampart-site') ?? querySite ?? '';
    const site = id.length <= 64 ? sites.compiled(id) : undefined;
    if (!site)
      throw new RampartError('SITE_UNKNOWN', `No site with ID "${id.slice(0, 64)}"`, { field: 'X-Rampart-Site' });
    if (keyed) {
      const key = header(headers, 'x-rampart-key') ?? '';
      if (!safeEqual(key, sites.global().accessKey)) {
        const now = clock.now();
        if (now - lastKeyWarning > 1000) {
          lastKeyWarning = now;
          logger.warn({ site: id, from }, 'gateway presented a wrong Access Key');
        }
        throw new RampartError(
          'ACCESS_KEY_INVALID',
          'The Access Key is missing or wrong; download the plugin bundle again',
          {
            field: 'X-Rampart-Key',
          },
        );
      }
    }
    return site;
  };
  const siteOf = (request: FastifyRequest, keyed: boolean): CompiledSite =>
    siteFrom(request.headers, (request.query as { site?: string }).site, keyed, request.ip);

  const factsFrom = (h: Headers, method: string, peer: string, body?: Buffer): RequestFacts => ({
    method: header(h, 'x-original-method') ?? method,
    scheme: header(h, 'x-rampart-scheme') ?? 'http',
    host: header(h, 'host') ?? '',
    uri: header(h, 'x-original-uri') ?? '/',
    protocol: header(h, 'x-rampart-protocol') ?? 'HTTP/1.1',
    remoteAddr: header(h, 'x-rampart-remote-addr') ?? peer,
    headers: h,
    requestId: header(h, 'x-request-id') ?? '',
    ...(body && body.length > 0 ? { body } : {}),
  });
  /** The unauthenticated routes believe X-Rampart-Remote-Addr, X-Rampart-Scheme and Host only from a gateway. */
  const factsOf = (request: FastifyRequest): RequestFacts => {
    const facts = factsFrom(request.headers, request.method, request.ip);
    if (!isGateway(request.ip)) return { ...facts, remoteAddr: plainAddress(request.ip), scheme: 'http', host: '' };
    // A gateway that cannot name the client in X-Rampart-Remote-Addr (Traefik's headers middleware
    // writes fixed values only) appended it last to X-Forwarded-For, as the verdict path reads it.
    if (header(request.headers, 'x-rampart-remote-addr') === undefined) {
      const forwarded = lastForwardedFor(request.headers);
      if (forwarded !== undefined) return { ...facts, remoteAddr: forwarded };
    }
    return facts;
  };

  // nginx's access-log lines (the gateway log port) complete the records of verdicts asked by the
  // plugin bundle, which marks them with X-Rampart-Request-Id. A port that cannot be had costs the
  // records their response fields, never the verdicts: the engine runs on and writes at once.
  let merge: AccessMerge | undefined;
  let logPort: GatewayLogPort | undefined;
  if (deps.gatewayLog !== undefined && deps.gatewayLog.port > 0) {
    const { host, port } = deps.gatewayLog;
    const monotonicNow = deps.gatewayLog.monotonicNow ?? (() => performance.now());
    const pending = new AccessMerge({
      append: (log, record) => logStore.append(log, record),
      now: monotonicNow,
      waitMs: deps.gatewayLog.mergeWaitMs ?? DEFAULT_MERGE_WAIT_MS,
      maxPending: deps.gatewayLog.maxPending ?? DEFAULT_MAX_PENDING,
    });
    const listener = new GatewayLogPort({
      isGateway,
      site: (id) => sites.compiled(id),
      merge: pending,
      alone: (site, line) =>
        logStore.append(
          accessLogName(site.id),
          loneAccessRecord(site, line, clock.now(), (ip, userAgent) => deps.intel.lookup(ip, userAgent)),
        ),
      logger,
    });
    try {
      await listener.listen(host, port);
      merge = pending;
      logPort = listener;
    } catch (error) {
      logger.error(
        { err: error, host, port },
        'gateway log port (RAMPART_GATEWAY_LOG_PORT) could not be opened: access records are written without status, bytes and request time; free the port or choose another and download the plugin bundles again',
      );
    }
  }
  // On stop: no more lines, then every held record is written (before the log store closes).
  app.addHook('onClose', async () => {
    await logPort?.close();
    merge?.close();
  });

  /** Appends a request's access record, or holds it for nginx's log line when the plugin bundle will send one. */
  const write = (site: CompiledSite, facts: RequestFacts, record: AccessRecord, viaPlugin: boolean): void => {
    const log = accessLogName(site.id);
    if (viaPlugin && merge !== undefined) {
      const id = header(facts.headers, 'x-rampart-request-id');
      if (id !== undefined && merge.hold(id, { log, siteId: site.id, record })) return;
    }
    logStore.append(log, record);
  };

  const log = (site: CompiledSite, facts: RequestFacts, verdict: Verdict, viaPlugin: boolean): void => {
    const intel = deps.intel.lookup(verdict.srcIp, header(facts.headers, 'user-agent') ?? '');
    // The store serialises the (frozen, shared) intelligence result once per result object.
    write(site, facts, accessRecord(site, facts, verdict, clock.now(), intel, null), viaPlugin);
    deps.metrics?.verdict(site.id, verdict.guardStatus);
  };

  // nginx auth_request: 204 passes, 401 sends the client to @rampart_reload, 403 to @rampart_block.
  function verdictFor(
    headers: Headers,
    method: string,
    peer: string,
    body: Buffer | undefined,
  ): { status: number; guard: string } {
    const site = siteFrom(headers, undefined, true, peer);
    sites.markSeen(site.id);
    const facts = factsFrom(headers, method, peer, body);
    const verdict = decide(site, facts, deps.ports);
    log(site, facts, verdict, true);
    return {
      status: verdict.action === 'pass' ? 204 : verdict.action === 'reload' ? 401 : 403,
      guard: verdict.guardStatus,
    };
  }

  // A verdict head too large to read whole (over HEAD_LIMIT): the site and key are among its first
  // bytes (nginx sends the bundle's proxy_set_header fields first). It is passed or blocked, as the
  // oversize-head guard says and the site's run mode allows, and logged with its size.
  function oversizeAnswer(headers: Headers, method: string, peer: string, headBytes: number): VerdictAnswer {
    try {
      const site = siteFrom(headers, undefined, true, peer);
      sites.markSeen(site.id);
      const facts = factsFrom(headers, method, peer, undefined);
      const guarded = deps.oversizeHead === 'block';
      const block = guarded && site.runMode === 'block' && site.accessMethod !== 'bypass';
      const verdict: Verdict = {
        action: block ? 'block' : 'pass',
        guardStatus: guarded ? (deps.ports.edition === 'A' ? 'BLOCKED_BY_WAF' : 'OWASP') : 'IGNORE',
        status: block ? site.blockStatus : 200,
        srcIp: resolveSourceIp(site, facts.headers, facts.remoteAddr),
        deviceId: '',
        listResult: '',
        botType: null,
        waf: guarded ? { blocked: block, ruleIds: [], categories: ['oversize-head'], score: 0 } : NO_WAF_MATCH,
      };
      const intel = deps.intel.lookup(verdict.srcIp, header(facts.headers, 'user-agent') ?? '');
      write(
        site,
        facts,
        { ...accessRecord(site, facts, verdict, clock.now(), intel, null), head_bytes: headBytes },
        true,
      );
      deps.metrics?.verdict(site.id, verdict.guardStatus);
      logger.warn({ site: site.id, headBytes, action: verdict.action }, 'verdict head over the size limit');
      return { status: block ? 403 : 204, guard: verdict.guardStatus };
    } catch (error) {
      return errorAnswer(error);
    }
  }

  // Plug-in-less access: the gateway posts the request and acts on the result itself.
  app.post('/_rampart/check', (request, reply) => {
    const site = siteOf(request, true);
    sites.markSeen(site.id);
    const parsed = checkContract.body.safeParse(request.body);
    if (!parsed.success) throw validationFailed(zodProblems(parsed.error, 'body'));
    const body = parsed.data;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(body.headers ?? {})) headers[name.toLowerCase()] = value;
    const host = body.host ?? headers.host ?? '';
    if (host.length > 253) {
      throw validationFailed([
        {
          field: 'host',
          message: 'host: must be a string of at most 253 characters',
          params: { code: 'too_big', maximum: 253, origin: 'string', inclusive: true },
        },
      ]);
    }
    const facts: RequestFacts = {
      method: body.method,
      scheme: 'http',
      host,
      uri: body.uri,
      protocol: 'HTTP/1.1',
      remoteAddr: body.remoteAddr,
      headers,
      requestId: headers['x-request-id'] ?? '',
    };
    if (body.bodyBase64 !== undefined) {
      const decoded = Buffer.from(body.bodyBase64, 'base64');
      if (decoded.length > 0)
        facts.body = decoded.length > bodyLimit + 1 ? decoded.subarray(0, bodyLimit + 1) : decoded;
    }
    const verdict = decide(site, facts, deps.ports);
    log(site, facts, verdict, false);
    return reply.send({
      action: verdict.action,
      guard_status: verdict.guardStatus,
      status: verdict.status,
      src_ip: verdict.srcIp,
      waf_triggered_rules: verdict.waf.ruleIds,
      waf_triggered_categories: verdict.waf.categories,
      waf_triggered_score: verdict.waf.score,
    } satisfies z.input<typeof checkContract.response>);
  });

  app.post('/_rampart/heartbeat', (request, reply) => {
    const site = siteOf(request, true);
    const version = (request.body as { version?: unknown } | null)?.version;
    sites.recordHeartbeat(site.id, {
      version: typeof version === 'string' ? version.slice(0, 32) : '',
      address: request.ip,
    });
    return reply.status(204).send();
  });

  const page = (reply: FastifyReply, site: CompiledSite, status: number, html: string): FastifyReply =>
    reply
      .status(status)
      .header('cache-control', NO_STORE)
      .header('content-security-policy', pageCsp)
      .type('text/html; charset=utf-8')
      .send(html);

  app.get('/_rampart/reload', (request, reply) => {
    const site = siteOf(request, false);
    return page(reply, site, site.reloadStatus, deps.probe.reloadPage(site));
  });

  app.get('/_rampart/block', (request, reply) => {
    const site = siteOf(request, false);
    return page(reply, site, site.blockStatus, site.blockContent);
  });

  app.get('/_rampart/probe.js', (request, reply) => {
    const site = siteOf(request, false);
    const mode = (request.query as { mode?: string }).mode === 'page' ? 'page' : 'reload';
    // Each download is a record of the site's probe log (spec 1.1: probe download count).
    const facts = factsOf(request);
    logStore.append(probeLogName(site.id), {
      _timestamp: Math.floor(clock.now() / 1000) * 1000,
      site_id: site.id,
      src_ip: capText(resolveSourceIp(site, facts.headers, facts.remoteAddr)),
      user_agent: capText(header(request.headers, 'user-agent') ?? ''),
      referrer: capText(header(request.headers, 'referer') ?? ''),
      hostname: capText(facts.host),
      mode,
    });
    return reply
      .header('cache-control', NO_STORE)
      .type('application/javascript; charset=utf-8')
      .send(deps.probe.script(site, mode));
  });

  app.post('/_rampart/report', (request, reply) => {
    const site = siteOf(request, false);
    const facts = factsOf(request);
    const srcIp = resolveSourceIp(site, facts.headers, facts.remoteAddr);
    // Reports need no key: a flood from one address at one site is cut off before it is judged,
    // and writes nothing.
    const admission = deps.reportGate?.admitReport(site.id, srcIp);
    if (admission?.ok === false) {
      const limited = new RampartError(
        'RATE_LIMITED',
        `Too many reports from this address; retry in ${admission.retryAfterSeconds} s.`,
        {
          params: { retryAfterSeconds: admission.retryAfterSeconds },
        },
      );
      return reply
        .status(429)
        .header('retry-after', String(admission.retryAfterSeconds))
        .header('cache-control', NO_STORE)
        .send(errorBody(limited));
    }
    const outcome = deps.probe.report(site, request.body, {
      srcIp,
      userAgent: header(request.headers, 'user-agent') ?? '',
      referrer: header(request.headers, 'referer') ?? '',
      host: facts.host,
      scheme: facts.scheme,
      cookieHeader: header(request.headers, 'cookie'),
    });
    // A refused report is counted by the probe service, not written: garbage costs a counter, not disk.
    if (outcome.detectionRecord.detection_result !== 'refused')
      logStore.append(detectionLogName(site.id), outcome.detectionRecord);
    for (const cookie of outcome.cookies) void reply.header('set-cookie', cookie);
    return reply.status(outcome.status).header('cache-control', NO_STORE).send(outcome.body);
  });

  // The bypass web SDK (edition B): the probe loaded cross-origin, reporting page views; never blocks.
  registerBypassSdk(app, {
    logStore,
    clock,
    probe: {
      script: (site, mode, url) => deps.probe.script(site, mode, url),
      report: (site, body, ctx) => deps.probe.report(site, body, ctx),
    },
    ports: deps.ports,
    ...(deps.reportGate ? { reportGate: deps.reportGate } : {}),
    siteOf: (request) => siteOf(request, false),
    factsOf,
    isGateway,
    log: (site, facts, verdict) => log(site, facts, verdict, false),
    markSeen: (id) => sites.markSeen(id),
    probeLogName,
    detectionLogName,
    noStore: NO_STORE,
  });
  // The mini-program SDK (edition B): keyed reports, token handed over, the messaging-app log.
  registerMiniProgram(app, {
    logStore,
    clock,
    probe: {
      script: (site, mode, url) => deps.probe.script(site, mode, url),
      report: (site, body, ctx) => deps.probe.report(site, body, ctx),
    },
    ports: deps.ports,
    keyedSite: (request) => siteOf(request, true),
    factsOf,
    markSeen: (id) => sites.markSeen(id),
    detectionLogName,
    noStore: NO_STORE,
  });

  return app;
}
