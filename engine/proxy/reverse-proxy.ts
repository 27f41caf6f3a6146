import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { Socket } from 'node:net';
import { Pool, type Dispatcher } from 'undici';
import type { Clock, Logger } from '#engine/shared';
import type { CompiledSite, SitesService } from '#engine/sites';
import type { OpenInspection } from '#engine/basic-rules';
import { accessLogName, NO_STORE, PAGE_CSP, PROBE_SCRIPT_PATH, type IntelPort, type ProbePort } from '#engine/gateways';
import {
  accessRecord,
  decide,
  header,
  type GuardStatus,
  type ProbeSignal,
  type RequestFacts,
  type Verdict,
  type VerdictPorts,
  type WafOutcome,
} from '#engine/verdict';
import { ClientAbort, forwardBody, hasBody, readBodyStart, type BodyStart } from './body.ts';
import { clientResponseHeaders, headerPairs, hostName, originRequestHeaders } from './headers.ts';
import { errorPage, PAGE_TEXT, sendHtml } from './pages.ts';
import { ProbeInjector } from './inject.ts';
import { planListeners, siteForHost, type ListenerPlan, type ProxyPlan, type RoutedSite } from './plan.ts';

export interface ProxyTimeouts {
  /** Connecting to the origin (then 504). */
  connectMs: number;
  /** From the request sent to the origin's response head (then 504). */
  headersMs: number;
  /** Silence in the middle of a response body (then the client's connection ends). */
  bodyIdleMs: number;
  /** A client's head must arrive within this time. */
  clientHeadMs: number;
  /** A client connection silent this long ends (slow clients, idle keep-alive). */
  clientIdleMs: number;
}

export const DEFAULT_PROXY_TIMEOUTS: ProxyTimeouts = {
  connectMs: 5_000,
  headersMs: 60_000,
  bodyIdleMs: 60_000,
  clientHeadMs: 10_000,
  clientIdleMs: 60_000,
};

/** The response body is held for the WAF's response phases up to this many bytes. */
export const DEFAULT_RESPONSE_INSPECT_LIMIT = 64 * 1024;
/** A client's request head may be at most this large (then 431). */
export const PROXY_HEAD_LIMIT = 32 * 1024;

export interface ReverseProxyDeps {
  sites: SitesService;
  logStore: { append(log: string, record: Record<string, unknown> & { _timestamp: number }): void };
  clock: Clock;
  logger: Logger;
  /** The verdict pipeline's ports; their `inspect` is replaced by `waf.begin` to keep the response phases. */
  ports: VerdictPorts;
  waf: { begin(facts: RequestFacts, site: CompiledSite, srcIp: string, probe: ProbeSignal): OpenInspection };
  intel: IntelPort;
  probe: Pick<ProbePort, 'reloadPage'>;
  /** The gateway API's base URL (loopback), which serves the probe, its reports and the pages. */
  pagesUrl: () => string;
  /** Address the listeners bind (default: every interface). */
  host?: string;
  /** Request bodies are inspected up to this many bytes and streamed on beyond (default 128 KB). */
  inspectBodyLimit?: number;
  responseInspectLimit?: number;
  timeouts?: Partial<ProxyTimeouts>;
  pagesAllowInline?: boolean;
  metrics?: { verdict(siteId: string, guardStatus: string): void };
  /** How often site changes are looked for (default 250 ms). */
  syncIntervalMs?: number;
  /**
   * Whether a peer is a trusted gateway (engine/gateways' gatewayTrust): a plugin site's nginx in
   * inline mode, whose X-Rampart-Remote-Addr and X-Rampart-Scheme name the client. Never believed
   * for CNAME sites, whose peers are the clients themselves.
   */
  trustedGateway?: (peer: string) => boolean;
}

export interface ListenerStatus {
  port: number;
  tls: boolean;
  listening: boolean;
  /** Why the port could not be opened (in use, no permission). */
  error: string | null;
  siteIds: string[];
}

export interface ProxyStatus {
  listeners: ListenerStatus[];
  problems: { siteId: string; message: string }[];
  /** Open client connections (HTTP and upgraded WebSocket ones). */
  clientConnections: number;
  /** Open connections to origins. */
  originConnections: number;
}

interface Listener {
  plan: ListenerPlan;
  server: Server;
  listening: boolean;
  error: string | null;
  sockets: Set<Socket>;
}

/** The rules that fired on the response are added to the request's. */
function mergeWaf(request: WafOutcome, response: WafOutcome): WafOutcome {
  const ruleIds = [...request.ruleIds];
  for (const id of response.ruleIds) if (!ruleIds.includes(id)) ruleIds.push(id);
  const categories = [...request.categories];
  for (const c of response.categories) if (!categories.includes(c)) categories.push(c);
  const targets = [...(request.targets ?? [])];
  for (const t of response.targets ?? []) if (!targets.includes(t)) targets.push(t);
  return {
    blocked: request.blocked || response.blocked,
    ruleIds,
    categories,
    score: Math.max(request.score, response.score),
    targets,
    ...(request.ruleSet ? { ruleSet: request.ruleSet } : {}),
    // What the request's own block was weighed by stays on the record.
    ...(request.levelCheck ? { levelCheck: request.levelCheck } : {}),
    ...(request.secondOpinion ? { secondOpinion: request.secondOpinion } : {}),
  };
}

/** An HTML answer the probe can be added to (not compressed). */
function isHtml(headers: Record<string, string | string[] | undefined>): boolean {
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding !== 'identity') return false;
  return String(headers['content-type'] ?? '')
    .toLowerCase()
    .startsWith('text/html');
}

/** Response bodies the WAF can read: text, JSON, XML and JavaScript, not compressed. */
function inspectable(headers: Record<string, string | string[] | undefined>): boolean {
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding !== 'identity') return false;
  const type = String(headers['content-type'] ?? '').toLowerCase();
  return type.startsWith('text/') || /json|xml|javascript/.test(type);
}

const ignore = (): void => undefined;

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'ETIMEDOUT']);

/** Reads up to `limit` bytes of a response body, then stops, paused (the rest stays in the stream). */
function readResponseStart(body: Dispatcher.ResponseData['body'], limit: number): Promise<BodyStart> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (ended: boolean): void => {
      body.removeListener('data', onData);
      body.removeListener('end', onEnd);
      body.removeListener('error', onError);
      resolve({ head: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size), ended });
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) {
        body.pause();
        done(false);
      }
    };
    const onEnd = (): void => done(true);
    const onError = (error: Error): void => {
      body.removeListener('data', onData);
      body.removeListener('end', onEnd);
      reject(error);
    };
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
  });
}

/**
 * The reverse proxy of CNAME access (DESIGN.md 3a): a listener per port the CNAME sites ask for
 * (HTTPS ones choose the site's certificate by SNI), the whole verdict pipeline inline with the
 * request body's start, the origin through a keep-alive pool per origin with both directions
 * streamed, the WAF's response phases over the status, headers and response body's start, and an
 * access record per request with its status, bytes and time.
 */
export class ReverseProxy {
  readonly #deps: ReverseProxyDeps;
  readonly #timeouts: ProxyTimeouts;
  readonly #bodyLimit: number;
  readonly #responseLimit: number;
  readonly #listeners = new Map<number, Listener>();
  readonly #pools = new Map<string, Pool>();
  readonly #contexts = new Map<string, { uploadedAt: number; context: SecureContext }>();
  readonly #upgraded = new Set<Duplex>();
  readonly #pageCache = new WeakMap<CompiledSite, { reload?: Buffer; block?: Buffer }>();
  readonly #pageCsp: string;
  readonly #ports: VerdictPorts;
  #pagesPool: Pool | null = null;
  #pagesBase = '';
  #plan: ProxyPlan = { listeners: new Map(), problems: [] };
  #open: OpenInspection | null = null;
  #syncedAt = -1;
  #syncing: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setInterval> | null = null;
  #closed = false;

  constructor(deps: ReverseProxyDeps) {
    this.#deps = deps;
    this.#timeouts = { ...DEFAULT_PROXY_TIMEOUTS, ...deps.timeouts };
    this.#bodyLimit = deps.inspectBodyLimit ?? 128 * 1024;
    this.#responseLimit = deps.responseInspectLimit ?? DEFAULT_RESPONSE_INSPECT_LIMIT;
    this.#pageCsp = PAGE_CSP(deps.pagesAllowInline === true);
    // `decide` is synchronous: the transaction its WAF stage opens is picked up right after it.
    this.#ports = {
      ...deps.ports,
      inspect: (request, site, srcIp, probe) => {
        const open = deps.waf.begin(request, site, srcIp, probe);
        this.#open = open;
        return open.outcome;
      },
    };
  }

  /** Opens the listeners the sites need and follows site changes from then on. */
  async start(): Promise<void> {
    await this.sync();
    this.#timer = setInterval(() => {
      if (this.#deps.sites.generation !== this.#syncedAt) void this.sync();
    }, this.#deps.syncIntervalMs ?? 250);
    this.#timer.unref();
  }

  /** Brings the listeners in line with the CNAME sites (opened, closed, re-routed). */
  sync(): Promise<void> {
    this.#syncing = this.#syncing
      .then(() => this.#sync())
      .catch((error: unknown) => {
        this.#deps.logger.error({ err: error }, 'reverse proxy: applying site changes failed');
      });
    return this.#syncing;
  }

  async #sync(): Promise<void> {
    if (this.#closed) return;
    this.#syncedAt = this.#deps.sites.generation;
    const plan = planListeners(this.#deps.sites.list());
    this.#plan = plan;
    for (const [port, listener] of this.#listeners) {
      const wanted = plan.listeners.get(port);
      if (wanted === undefined || wanted.tls !== listener.plan.tls) {
        this.#listeners.delete(port);
        await this.#closeListener(listener);
      } else {
        listener.plan = wanted;
        if (wanted.tls) this.#setDefaultContext(listener);
      }
    }
    for (const [port, wanted] of plan.listeners) {
      if (this.#listeners.has(port)) continue;
      await this.#openListener(wanted);
    }
    // Pools of origins no site uses any more are closed.
    const origins = new Set<string>();
    for (const l of plan.listeners.values()) for (const s of l.sites) origins.add(poolKey(s));
    for (const [key, pool] of this.#pools) {
      if (!origins.has(key)) {
        this.#pools.delete(key);
        void pool.close().catch(() => undefined);
      }
    }
  }

  status(): ProxyStatus {
    let clientConnections = this.#upgraded.size;
    for (const l of this.#listeners.values()) clientConnections += l.sockets.size;
    let originConnections = 0;
    for (const pool of this.#pools.values()) originConnections += pool.stats.connected;
    return {
      listeners: [...this.#listeners.values()].map((l) => ({
        port: l.plan.port,
        tls: l.plan.tls,
        listening: l.listening,
        error: l.error,
        siteIds: l.plan.sites.map((s) => s.id),
      })),
      problems: this.#plan.problems,
      clientConnections,
      originConnections,
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#syncing;
    await Promise.all([...this.#listeners.values()].map((l) => this.#closeListener(l)));
    this.#listeners.clear();
    for (const socket of this.#upgraded) socket.destroy();
    this.#upgraded.clear();
    await Promise.all([...this.#pools.values(), ...(this.#pagesPool ? [this.#pagesPool] : [])].map((p) => p.destroy()));
    this.#pools.clear();
    this.#pagesPool = null;
  }

  // --- listeners -----------------------------------------------------------------------------

  async #openListener(plan: ListenerPlan): Promise<void> {
    const sockets = new Set<Socket>();
    const onRequest = (req: IncomingMessage, res: ServerResponse): void => this.#request(listener, req, res);
    const options = {
      maxHeaderSize: PROXY_HEAD_LIMIT,
      headersTimeout: this.#timeouts.clientHeadMs,
      // Uploads may take long: a silent connection is ended instead (clientIdleMs).
      requestTimeout: 0,
      keepAliveTimeout: 30_000,
      connectionsCheckingInterval: 1000,
    };
    const server = plan.tls
      ? createHttpsServer(
          { ...options, SNICallback: (name, done) => this.#sni(listener, name, done), minVersion: 'TLSv1.2' },
          onRequest,
        )
      : createHttpServer(options, onRequest);
    const listener: Listener = { plan, server, listening: false, error: null, sockets };
    server.setTimeout(this.#timeouts.clientIdleMs, (socket) => socket.destroy());
    server.on(plan.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#upgrade(listener, req, socket, head),
    );
    server.on('connect', (req: IncomingMessage, socket: Duplex) => this.#connect(listener, req, socket));
    if (plan.tls) {
      // A handshake that fails (no SNI match, a scanner) only ends that connection.
      server.on('tlsClientError', (_error: Error, socket: Socket) => {
        socket.destroy();
      });
      this.#setDefaultContext(listener);
    }
    this.#listeners.set(plan.port, listener);
    await new Promise<void>((resolve) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        listener.error =
          error.code === 'EADDRINUSE'
            ? `port ${plan.port} is in use by another program`
            : error.code === 'EACCES'
              ? `no permission to listen on port ${plan.port} (ports below 1024 need root or CAP_NET_BIND_SERVICE)`
              : error.message;
        this.#deps.logger.error({ port: plan.port, err: error }, 'reverse proxy: a site port could not be opened');
        resolve();
      };
      server.once('error', onError);
      server.listen(plan.port, this.#deps.host ?? '0.0.0.0', () => {
        server.removeListener('error', onError);
        server.on('error', (error) => this.#deps.logger.error({ port: plan.port, err: error }, 'reverse proxy error'));
        listener.listening = true;
        resolve();
      });
    });
  }

  async #closeListener(listener: Listener): Promise<void> {
    if (!listener.listening) return;
    await new Promise<void>((resolve) => {
      listener.server.close(() => resolve());
      listener.server.closeAllConnections();
      for (const socket of listener.sockets) socket.destroy();
    });
    listener.listening = false;
  }

  #context(site: RoutedSite): SecureContext | null {
    const cert = site.certificate;
    if (cert === null) return null;
    const cached = this.#contexts.get(site.id);
    if (cached?.uploadedAt === cert.uploadedAt) return cached.context;
    try {
      const context = createSecureContext({ cert: cert.certificatePem, key: cert.keyPem, minVersion: 'TLSv1.2' });
      this.#contexts.set(site.id, { uploadedAt: cert.uploadedAt, context });
      return context;
    } catch (error) {
      this.#deps.logger.error({ site: site.id, err: error }, 'reverse proxy: a site certificate cannot be used');
      return null;
    }
  }

  #sni(listener: Listener, name: string, done: (error: Error | null, context?: SecureContext) => void): void {
    const site = siteForHost(listener.plan, hostName(name));
    const context = site ? this.#context(site) : null;
    if (context === null) done(new Error(`no certificate for ${name.slice(0, 253)} on port ${listener.plan.port}`));
    else done(null, context);
  }

  /** A client without SNI gets the certificate of the port's first site that has one. */
  #setDefaultContext(listener: Listener): void {
    const site = listener.plan.sites.find((s) => s.certificate !== null);
    const cert = site?.certificate;
    if (cert === undefined || cert === null) return;
    try {
      (listener.server as unknown as { setSecureContext(o: object): void }).setSecureContext({
        cert: cert.certificatePem,
        key: cert.keyPem,
        minVersion: 'TLSv1.2',
      });
    } catch (error) {
      this.#deps.logger.error({ err: error }, 'reverse proxy: a site certificate cannot be used');
    }
  }

  // --- requests ------------------------------------------------------------------------------

  #route(listener: Listener, req: IncomingMessage): { routed: RoutedSite; site: CompiledSite } | null {
    // A host name no site has goes to the port's first site, as nginx's default server would take it.
    const routed = siteForHost(listener.plan, hostName(req.headers.host)) ?? listener.plan.sites[0];
    const site = routed ? this.#deps.sites.compiled(routed.id) : undefined;
    return routed && site ? { routed, site } : null;
  }

  #request(listener: Listener, req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    // Only HTTP/1.0 and 1.1 are spoken here: 0.9 is refused as nginx does (400), 2 and above 505.
    if (req.httpVersionMajor !== 1) {
      req.resume();
      const status = req.httpVersionMajor === 0 ? 400 : 505;
      res.shouldKeepAlive = false;
      sendHtml(
        res,
        status,
        errorPage(status, 'Unsupported HTTP version', `HTTP/${req.httpVersion} is not spoken here.`),
      );
      return;
    }
    // HTTP/1.1 requires a Host (RFC 9112 3.2); nginx, too, answers 400 to a missing or empty one.
    if (req.httpVersionMinor === 1 && (req.headers.host ?? '').trim() === '') {
      req.resume();
      res.shouldKeepAlive = false;
      sendHtml(res, 400, errorPage(400, 'Bad Request', 'An HTTP/1.1 request needs a Host header.'));
      return;
    }
    const target = this.#route(listener, req);
    if (target === null) {
      req.resume();
      sendHtml(res, 421, errorPage(421, ...PAGE_TEXT.noSite));
      return;
    }
    const url = req.url ?? '/';
    if (url.startsWith('/_rampart/')) {
      this.#pages(listener, target.site, req, res);
      return;
    }
    this.#serve(listener, target, req, res, started).catch((error: unknown) => {
      if (!(error instanceof ClientAbort)) this.#deps.logger.error({ err: error }, 'reverse proxy: request failed');
      if (!res.headersSent && !res.destroyed) sendHtml(res, 502, errorPage(502, ...PAGE_TEXT.badGateway));
      else res.destroy();
    });
  }

  #facts(listener: Listener, req: IncomingMessage, body: Buffer | undefined, site?: CompiledSite): RequestFacts {
    const peer = plainPeer(req.socket.remoteAddress);
    // A plugin site's nginx (inline mode) says who the client is and how it came.
    const viaGateway =
      site?.accessMethod === 'plugin' && this.#deps.trustedGateway?.(peer) === true ? req.headers : undefined;
    const forwardedScheme = viaGateway && header(viaGateway, 'x-rampart-scheme');
    return {
      method: req.method ?? 'GET',
      scheme:
        forwardedScheme === 'https' || forwardedScheme === 'http'
          ? forwardedScheme
          : listener.plan.tls
            ? 'https'
            : 'http',
      host: header(req.headers, 'host') ?? '',
      uri: req.url ?? '/',
      protocol: `HTTP/${req.httpVersion}`,
      remoteAddr: (viaGateway && plainPeer(header(viaGateway, 'x-rampart-remote-addr'))) || peer,
      headers: req.headers,
      requestId: requestIdOf(req.headers['x-request-id']),
      ...(body !== undefined && body.length > 0 ? { body } : {}),
    };
  }

  /** Runs the pipeline; the WAF transaction it opened is returned with the verdict. */
  #decide(site: CompiledSite, facts: RequestFacts): { verdict: Verdict; open: OpenInspection | null } {
    this.#open = null;
    const verdict = decide(site, facts, this.#ports);
    const open = this.#open;
    this.#open = null;
    return { verdict, open };
  }

  async #serve(
    listener: Listener,
    target: { routed: RoutedSite; site: CompiledSite },
    req: IncomingMessage,
    res: ServerResponse,
    started: number,
  ): Promise<void> {
    const { routed, site } = target;
    const start: BodyStart = hasBody(req)
      ? await readBodyStart(req, this.#bodyLimit)
      : { head: Buffer.alloc(0), ended: true };
    // Beyond the inspection limit the body is inspected in part and streamed on (ProcessPartial).
    const inspected = start.ended ? start.head : start.head.subarray(0, this.#bodyLimit);
    const facts = this.#facts(listener, req, inspected, site);
    if (!start.ended) facts.bodyPartial = true;
    const { verdict, open } = this.#decide(site, facts);
    const record = (status: number, bytes: number): void => this.#record(site, facts, verdict, status, bytes, started);

    if (verdict.action !== 'pass') {
      req.resume();
      const html = this.#page(site, verdict.action === 'reload' ? 'reload' : 'block');
      res.once('close', () => record(verdict.status, res.headersSent ? html.length : 0));
      sendHtml(res, verdict.status, html, {
        'cache-control': NO_STORE,
        'content-security-policy': this.#pageCsp,
        'x-rampart-guard': verdict.guardStatus,
      });
      return;
    }

    let bytesSent = 0;
    let statusSent = 0;
    // A client that leaves ends the origin's answer; one still being asked for runs out on its own
    // (its upload fails with the client's stream, a slow answer meets the origin timeout).
    let clientGone = false;
    let originBody: Dispatcher.ResponseData['body'] | null = null;
    res.once('close', () => {
      if (!res.writableFinished) {
        clientGone = true;
        originBody?.destroy();
      }
      record(statusSent || 499, bytesSent);
    });
    const peer = facts.remoteAddr;
    let answer: Dispatcher.ResponseData;
    try {
      answer = await this.#pool(routed).request({
        method: facts.method,
        path: facts.uri,
        headers: {
          ...originRequestHeaders(req.headers, {
            peer,
            srcIp: verdict.srcIp,
            scheme: facts.scheme === 'https' ? 'https' : 'http',
            host: facts.host,
          }),
          'x-request-id': facts.requestId,
          // Answers come uncompressed, as through the nginx bundle: the WAF reads them and the
          // probe is added to HTML pages.
          'accept-encoding': 'identity',
        },
        body: forwardBody(req, start) ?? null,
        headersTimeout: this.#timeouts.headersMs,
        bodyTimeout: this.#timeouts.bodyIdleMs,
      });
    } catch (error) {
      if (clientGone || res.destroyed) return;
      const code = (error as { code?: string }).code ?? '';
      const timeout = TIMEOUT_CODES.has(code);
      this.#deps.logger.warn(
        { site: site.id, origin: routed.origin, code: code || (error as Error).message },
        timeout ? 'reverse proxy: origin timed out' : 'reverse proxy: origin unreachable',
      );
      statusSent = timeout ? 504 : 502;
      const [title, detail] = timeout ? PAGE_TEXT.gatewayTimeout : PAGE_TEXT.badGateway;
      sendHtml(res, statusSent, errorPage(statusSent, title, detail));
      bytesSent = res.headersSent ? Number(res.getHeader('content-length') ?? 0) : 0;
      return;
    }

    originBody = answer.body;
    // Destroying the answer (client gone, blocked by the response phase) makes it emit an abort
    // error: it must never reach the process as an unhandled one.
    originBody.on('error', ignore);
    if (clientGone) {
      originBody.destroy();
      return;
    }
    const body = originBody;
    let held: BodyStart = { head: Buffer.alloc(0), ended: false };
    if (open !== null) {
      const readBody = facts.method !== 'HEAD' && answer.statusCode !== 204 && answer.statusCode !== 304;
      if (readBody && inspectable(answer.headers)) held = await readResponseStart(body, this.#responseLimit);
      const found = open.respond({
        status: answer.statusCode,
        protocol: `HTTP/${req.httpVersion}`,
        headers: headerPairs(answer.headers),
        body: held.head.length > 0 ? held.head : null,
      });
      if (found !== null) {
        verdict.waf = mergeWaf(verdict.waf, found);
        if (found.blocked) {
          const guard: GuardStatus = this.#deps.ports.edition === 'A' ? 'BLOCKED_BY_WAF' : 'OWASP';
          verdict.guardStatus = guard;
          if (site.runMode === 'block' && site.accessMethod !== 'bypass') {
            body.destroy();
            verdict.action = 'block';
            verdict.status = site.blockStatus;
            statusSent = site.blockStatus;
            const html = this.#page(site, 'block');
            sendHtml(res, site.blockStatus, html, {
              'cache-control': NO_STORE,
              'content-security-policy': this.#pageCsp,
              'x-rampart-guard': guard,
            });
            bytesSent = html.length;
            return;
          }
        }
      }
    }

    if (res.destroyed) {
      body.destroy();
      return;
    }
    statusSent = answer.statusCode;
    const headers = clientResponseHeaders(answer.headers, site.hideServerInfo);
    // HTML pages get the probe in page mode, as through the nginx bundle (its length changes).
    const injector =
      facts.method !== 'HEAD' && isHtml(answer.headers) && answer.statusCode !== 204 && answer.statusCode !== 304
        ? new ProbeInjector(`${PROBE_SCRIPT_PATH}?mode=page`)
        : null;
    if (injector !== null) delete headers['content-length'];
    res.writeHead(answer.statusCode, headers);
    const send = (chunk: Buffer): boolean => {
      const out = injector === null ? chunk : injector.push(chunk);
      bytesSent += out.length;
      return out.length === 0 || res.write(out);
    };
    const finish = (): void => {
      const rest = injector?.end();
      if (rest !== undefined && rest.length > 0) {
        bytesSent += rest.length;
        res.write(rest);
      }
      res.end();
    };
    if (held.head.length > 0) send(held.head);
    if (held.ended) {
      finish();
      return;
    }
    body.on('data', (chunk: Buffer) => {
      if (!send(chunk)) {
        body.pause();
        res.once('drain', () => body.resume());
      }
    });
    body.once('end', finish);
    body.once('error', () => res.destroy());
  }

  /** A site's reload or block page as bytes, made once per compiled site (a site change makes a new one). */
  #page(site: CompiledSite, kind: 'reload' | 'block'): Buffer {
    let pages = this.#pageCache.get(site);
    if (pages === undefined) {
      pages = {};
      this.#pageCache.set(site, pages);
    }
    return (pages[kind] ??= Buffer.from(kind === 'reload' ? this.#deps.probe.reloadPage(site) : site.blockContent));
  }

  #record(
    site: CompiledSite,
    facts: RequestFacts,
    verdict: Verdict,
    status: number,
    bytes: number,
    started: number,
  ): void {
    const intel = this.#deps.intel.lookup(verdict.srcIp, header(facts.headers, 'user-agent') ?? '');
    const record = accessRecord(site, facts, verdict, this.#deps.clock.now(), intel, {
      status,
      bodyBytesSent: bytes,
      requestTimeSeconds: Math.round(performance.now() - started) / 1000,
    });
    this.#deps.logStore.append(accessLogName(site.id), record);
    this.#deps.metrics?.verdict(site.id, verdict.guardStatus);
  }

  #pool(site: RoutedSite): Pool {
    const key = poolKey(site);
    let pool = this.#pools.get(key);
    if (pool === undefined) {
      pool = new Pool(site.origin, {
        connections: 256,
        keepAliveTimeout: 30_000,
        headersTimeout: this.#timeouts.headersMs,
        bodyTimeout: this.#timeouts.bodyIdleMs,
        connect: {
          timeout: this.#timeouts.connectMs,
          ...(site.origin.startsWith('https:') ? { rejectUnauthorized: site.originVerifyTls } : {}),
        },
      });
      this.#pools.set(key, pool);
    }
    return pool;
  }

  // --- the probe and the pages ----------------------------------------------------------------

  /**
   * The probe script, its reports and the reload and block pages come from the gateway API, as
   * through nginx's `rampart_pages` upstream: the site and the client's address travel in the
   * X-Rampart-* headers (believed from loopback), any the client sent are dropped.
   */
  #pages(listener: Listener, site: CompiledSite, req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '';
    if (!PAGE_PATHS.has(path)) {
      req.resume();
      sendHtml(res, 404, errorPage(404, 'Not Found', 'No such page.'));
      return;
    }
    const base = this.#deps.pagesUrl();
    if (this.#pagesPool === null || this.#pagesBase !== base) {
      void this.#pagesPool?.close().catch(() => undefined);
      this.#pagesPool = new Pool(base, { connections: 32, keepAliveTimeout: 30_000 });
      this.#pagesBase = base;
    }
    const facts = this.#facts(listener, req, undefined, site);
    const scheme = facts.scheme === 'https' ? 'https' : 'http';
    const headers: Record<string, string | string[]> = originRequestHeaders(req.headers, {
      peer: plainPeer(req.socket.remoteAddress),
      srcIp: facts.remoteAddr,
      scheme,
      host: facts.host,
    });
    headers['x-rampart-site'] = site.id;
    headers['x-rampart-remote-addr'] = facts.remoteAddr;
    headers['x-rampart-scheme'] = scheme;
    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    this.#pagesPool
      .request({
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers,
        body: hasBody(req) ? req : null,
        signal: abort.signal,
      })
      .then((answer) => {
        res.writeHead(answer.statusCode, clientResponseHeaders(answer.headers, false));
        answer.body.pipe(res);
      })
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        this.#deps.logger.error({ err: error }, 'reverse proxy: the gateway API did not answer a page request');
        sendHtml(res, 502, errorPage(502, ...PAGE_TEXT.badGateway));
      });
  }

  // --- CONNECT -------------------------------------------------------------------------------

  /**
   * A reverse proxy tunnels nothing: CONNECT is judged like any request (so an attack in it is
   * named and blocked) and otherwise refused with 405; a target that is not `host:port` is 400.
   */
  #connect(listener: Listener, req: IncomingMessage, socket: Duplex): void {
    const started = performance.now();
    socket.on('error', () => socket.destroy());
    if (!/^[^\s/]+:\d{1,5}$/.test(req.url ?? '')) {
      rawAnswer(socket, 400, 'Bad Request', 'CONNECT needs a host:port target.');
      return;
    }
    const target = this.#route(listener, req);
    if (target === null) {
      rawAnswer(socket, 421, PAGE_TEXT.noSite[0], PAGE_TEXT.noSite[1]);
      return;
    }
    const facts = this.#facts(listener, req, undefined, target.site);
    const { verdict } = this.#decide(target.site, facts);
    const status = verdict.action === 'pass' ? 405 : verdict.status;
    this.#record(target.site, facts, verdict, status, 0, started);
    if (verdict.action === 'pass') rawAnswer(socket, 405, 'Method Not Allowed', 'This site does not tunnel CONNECT.');
    else rawAnswer(socket, status, verdict.action === 'reload' ? 'Reload' : 'Blocked', target.site.blockContent);
  }

  // --- WebSocket -----------------------------------------------------------------------------

  /** An upgrade is judged on its head like any request, then the two sockets are joined. */
  #upgrade(listener: Listener, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const started = performance.now();
    socket.on('error', () => socket.destroy());
    const target = this.#route(listener, req);
    const refuse = (status: number, text: string): void => rawAnswer(socket, status, text, text);
    if (target === null) {
      refuse(421, PAGE_TEXT.noSite[0]);
      return;
    }
    const { routed, site } = target;
    const facts = this.#facts(listener, req, undefined, site);
    const { verdict } = this.#decide(site, facts);
    if (verdict.action !== 'pass') {
      this.#record(site, facts, verdict, verdict.status, 0, started);
      refuse(verdict.status, verdict.action === 'reload' ? 'Reload' : 'Blocked');
      return;
    }
    const headers = originRequestHeaders(req.headers, {
      peer: facts.remoteAddr,
      srcIp: verdict.srcIp,
      scheme: facts.scheme === 'https' ? 'https' : 'http',
      host: facts.host,
    });
    this.#pool(routed)
      .upgrade({ path: facts.uri, method: 'GET', headers, protocol: String(req.headers.upgrade ?? 'websocket') })
      .then(({ headers: answerHeaders, socket: origin }) => {
        if (socket.destroyed) {
          origin.destroy();
          return;
        }
        let lines = 'HTTP/1.1 101 Switching Protocols\r\n';
        for (const [name, value] of Object.entries(answerHeaders)) {
          if (value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) lines += `${name}: ${v}\r\n`;
        }
        socket.write(`${lines}\r\n`);
        if (head.length > 0) origin.write(head);
        this.#upgraded.add(socket);
        this.#upgraded.add(origin);
        const end = (): void => {
          this.#upgraded.delete(socket);
          this.#upgraded.delete(origin);
          socket.destroy();
          origin.destroy();
        };
        socket.once('close', end);
        origin.once('close', end);
        origin.on('error', end);
        socket.pipe(origin);
        origin.pipe(socket);
        this.#record(site, facts, verdict, 101, 0, started);
      })
      .catch((error: unknown) => {
        const code = (error as { code?: string }).code ?? '';
        this.#record(site, facts, verdict, TIMEOUT_CODES.has(code) ? 504 : 502, 0, started);
        refuse(TIMEOUT_CODES.has(code) ? 504 : 502, TIMEOUT_CODES.has(code) ? 'Gateway Timeout' : 'Bad Gateway');
      });
  }
}

/** An answer written straight to a socket Node's server handed over (upgrade, CONNECT); then it closes. */
function rawAnswer(socket: Duplex, status: number, reason: string, detail: string): void {
  if (!socket.writable) return;
  const body = detail.startsWith('<') ? detail : errorPage(status, reason, detail);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
  );
}

const PAGE_PATHS = new Set(['/_rampart/probe.js', '/_rampart/report', '/_rampart/reload', '/_rampart/block']);

const poolKey = (site: RoutedSite): string => `${site.origin}|${site.originVerifyTls ? 'verify' : 'any'}`;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The client's (or a front proxy's) X-Request-Id when it is a plain token, else a new one. */
function requestIdOf(value: string | string[] | undefined): string {
  return typeof value === 'string' && REQUEST_ID.test(value) ? value : randomUUID();
}

/** `::ffff:1.2.3.4` as `1.2.3.4`. */
function plainPeer(address: string | undefined): string {
  if (address === undefined) return '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
