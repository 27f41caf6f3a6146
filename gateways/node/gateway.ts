import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { HOP_BY_HOP_ANSWER, clientAddress, engineHeaders, requestUri } from './request-headers.ts';

/** The heartbeat interval of the nginx bundle's keeper (spec 8: 3 s; 10 s or more reads as disconnected). */
export const DEFAULT_INTERVAL_SECONDS = 3;
/** nginx's proxy_connect_timeout and proxy_read_timeout of the bundle's verdict location. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 2000;
export const DEFAULT_TIMEOUT_MS = 5000;
/**
 * The probe in page mode, which renews the token while a page is open. nginx adds it to every HTML
 * page (sub_filter); here the application puts it before `</body>` of its pages.
 */
export const PROBE_PAGE_TAG = '<script src="/_rampart/probe.js?mode=page" async></script>';

export interface GatewayOptions {
  /** The engine's gateway API, for example `http://10.0.0.2:9081` (https:// works too). */
  engine: string;
  siteId: string;
  accessKey: string;
  /**
   * What happens to a request when Rampart cannot give a verdict (unreachable, too slow, an answer
   * that is not a verdict, such as a wrong Access Key): `closed` (default, as nginx's auth_request,
   * which answers 500 then) answers 503; `open` lets the request through.
   */
  failMode?: 'open' | 'closed';
  /** Connecting to the engine may take this long (default 2000 ms). */
  connectTimeoutMs?: number;
  /** A verdict (or a page) must arrive within this time of asking (default 5000 ms). */
  timeoutMs?: number;
  /**
   * Believe X-Forwarded-For for this many proxies in front of this gateway (default 0: the
   * socket's address is the client's). Set it only when every request comes through them.
   */
  trustedProxyHops?: number;
  /** Heartbeat interval in seconds (default 3); 0 sends none. */
  heartbeatIntervalSeconds?: number;
  /** The version the heartbeat reports (the console shows it as the keeper version). */
  version?: string;
  /** Kept-alive connections to the engine (default 64, as the nginx bundle's upstream). */
  maxSockets?: number;
  /** Told about every failure to reach the engine (default: one console.warn a minute). */
  onError?: (problem: GatewayProblem) => void;
}

/** Why the engine did not give a verdict, a page or a heartbeat answer. */
export type GatewayProblem =
  | { kind: 'unreachable'; during: Exchange; message: string }
  | { kind: 'timeout'; during: Exchange; message: string }
  | { kind: 'unexpected-status'; during: Exchange; status: number; message: string };

export type Exchange = 'verdict' | 'page' | 'proxy' | 'heartbeat';

export type Next = (error?: unknown) => void;

/** A Fastify request and reply, as far as this gateway uses them (no import of Fastify). */
export interface FastifyRequestLike {
  raw: IncomingMessage;
}
export interface FastifyReplyLike {
  raw: ServerResponse;
  hijack(): unknown;
}
export type FastifyHook = (request: FastifyRequestLike, reply: FastifyReplyLike, done: (error?: Error) => void) => void;
export interface FastifyPlugin {
  (instance: { addHook(name: 'onRequest', hook: FastifyHook): unknown }, options: unknown, done: () => void): void;
  /** fastify-plugin's marker: the hook applies to the whole application, not an encapsulated child. */
  [key: symbol]: unknown;
}

export interface RampartGateway {
  /** node:http / Connect / Express: `(req, res, next)`; `next()` runs when the request may go on. */
  handle(req: IncomingMessage, res: ServerResponse, next: Next): void;
  /** Express (or Connect) middleware: `app.use(gateway.express())` before every other middleware. */
  express(): (req: IncomingMessage, res: ServerResponse, next: Next) => void;
  /** A Fastify onRequest hook: `app.addHook('onRequest', gateway.fastifyHook())`. */
  fastifyHook(): FastifyHook;
  /** A Fastify plugin adding that hook to the whole application: `app.register(gateway.fastifyPlugin())`. */
  fastifyPlugin(): FastifyPlugin;
  /** Wraps a node:http request listener: `createServer(gateway.listener(app))`. */
  listener(
    app: (req: IncomingMessage, res: ServerResponse) => void,
  ): (req: IncomingMessage, res: ServerResponse) => void;
  /** Stops the heartbeat and closes the connections to the engine. */
  close(): Promise<void>;
}

class Problem extends Error {
  constructor(readonly problem: GatewayProblem) {
    super(problem.message);
  }
}

const FAIL_CLOSED_BODY = 'The site is protected by Rampart, which cannot be reached right now. Try again shortly.\n';

/**
 * Creates a gateway for one site: every request is first given to Rampart's verdict endpoint,
 * exactly as the nginx bundle's auth_request does; 204 lets it through, 401 answers with the site's
 * reload page, 403 with its block page (both fetched from Rampart like nginx's named locations);
 * requests under /_rampart/ (the probe and its reports) go to Rampart.
 */
export function createGateway(options: GatewayOptions): RampartGateway {
  const base = new URL(options.engine);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new TypeError(`engine: must be an http:// or https:// address, not ${options.engine}`);
  }
  const secure = base.protocol === 'https:';
  const request = secure ? httpsRequest : httpRequest;
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? 64,
    maxFreeSockets: options.maxSockets ?? 64,
  };
  const agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const failOpen = options.failMode === 'open';
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const hops = options.trustedProxyHops ?? 0;
  const target = { protocol: base.protocol, hostname: base.hostname.replace(/^\[|\]$/g, ''), port: base.port };
  let lastWarning = 0;
  const report =
    options.onError ??
    ((problem: GatewayProblem) => {
      const now = Date.now();
      if (now - lastWarning < 60_000) return;
      lastWarning = now;
      console.warn(`rampart gateway: ${problem.during}: ${problem.message}`);
    });
  let closed = false;

  /** One request to the engine, with the connect and answer deadlines; `body` is piped when given. */
  const ask = (
    during: Exchange,
    method: string,
    path: string,
    headers: OutgoingHttpHeaders,
    body: IncomingMessage | string | undefined,
    onAnswer: (answer: IncomingMessage) => void,
    onFailure: (problem: GatewayProblem) => void,
  ): void => {
    let failed = false;
    const fail = (problem: GatewayProblem): void => {
      if (failed) return;
      failed = true;
      onFailure(problem);
    };
    const req = request({ ...target, method, path, headers, agent }, (answer) => {
      clearTimeout(deadline);
      if (!failed) onAnswer(answer);
      else answer.resume();
    });
    const deadline = setTimeout(
      () =>
        req.destroy(
          new Problem({ kind: 'timeout', during, message: `no answer from ${base.host} within ${timeoutMs} ms` }),
        ),
      timeoutMs,
    );
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      const connecting = setTimeout(
        () =>
          req.destroy(
            new Problem({
              kind: 'timeout',
              during,
              message: `could not connect to ${base.host} within ${connectTimeoutMs} ms`,
            }),
          ),
        connectTimeoutMs,
      );
      socket.once('connect', () => clearTimeout(connecting));
      socket.once('close', () => clearTimeout(connecting));
    });
    req.on('error', (error) => {
      clearTimeout(deadline);
      fail(
        error instanceof Problem
          ? error.problem
          : { kind: 'unreachable', during, message: `${base.host}: ${error.message}` },
      );
    });
    if (body === undefined || typeof body === 'string') req.end(body);
    else body.pipe(req);
  };

  const failClosed = (res: ServerResponse, answering: () => void): void => {
    answering();
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(503, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(FAIL_CLOSED_BODY),
      'cache-control': 'no-store',
      'retry-after': '5',
    });
    res.end(FAIL_CLOSED_BODY);
  };

  /** Copies an engine answer (a page, the probe script, a report's answer) to the client. */
  const relay = (answer: IncomingMessage, res: ServerResponse, answering: () => void): void => {
    answering();
    const headers: OutgoingHttpHeaders = {};
    for (const name in answer.headers) if (!HOP_BY_HOP_ANSWER.has(name)) headers[name] = answer.headers[name];
    res.writeHead(answer.statusCode ?? 502, headers);
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  };

  const nothing = (): void => undefined;
  const handle = (req: IncomingMessage, res: ServerResponse, next: Next): void => serve(req, res, next, nothing);

  const schemeOf = (req: IncomingMessage): 'http' | 'https' =>
    (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';

  /** `answering` runs right before this gateway answers the client itself (Fastify hijacks the reply then). */
  const serve = (req: IncomingMessage, res: ServerResponse, next: Next, answering: () => void): void => {
    const uri = requestUri(req);
    const common = {
      siteId: options.siteId,
      remoteAddr: clientAddress(req, hops),
      scheme: schemeOf(req),
      requestId: randomBytes(16).toString('hex'),
    };
    // nginx's `location ^~ /_rampart/`: the probe, its reports and token refreshes go to Rampart.
    if (uri.startsWith('/_rampart/')) {
      ask(
        'proxy',
        req.method ?? 'GET',
        uri,
        engineHeaders(req, { ...common, withBody: true }),
        req,
        (answer) => relay(answer, res, answering),
        (problem) => {
          report(problem);
          failClosed(res, answering);
        },
      );
      return;
    }
    const onFailure = (problem: GatewayProblem): void => {
      report(problem);
      if (failOpen) next();
      else failClosed(res, answering);
    };
    ask(
      'verdict',
      'GET',
      '/_rampart/verdict',
      engineHeaders(req, { ...common, accessKey: options.accessKey }),
      undefined,
      (answer) => {
        answer.resume();
        const status = answer.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          next();
          return;
        }
        if (status !== 401 && status !== 403) {
          onFailure({
            kind: 'unexpected-status',
            during: 'verdict',
            status,
            message: `the verdict endpoint answered ${status} (a wrong Access Key answers 500, an unknown site 404)`,
          });
          return;
        }
        // nginx's @rampart_reload / @rampart_block: a GET of the page, without the client's body
        // and query, answered with the page's own status.
        ask(
          'page',
          'GET',
          status === 401 ? '/_rampart/reload' : '/_rampart/block',
          engineHeaders(req, common),
          undefined,
          (page) => relay(page, res, answering),
          (problem) => {
            report(problem);
            failClosed(res, answering);
          },
        );
      },
      onFailure,
    );
  };

  // The keeper: a heartbeat every interval (none while the previous one is still under way).
  const interval = (options.heartbeatIntervalSeconds ?? DEFAULT_INTERVAL_SECONDS) * 1000;
  let beating = false;
  const beat = (): void => {
    if (beating || closed) return;
    beating = true;
    const body = JSON.stringify({ version: options.version ?? '' });
    ask(
      'heartbeat',
      'POST',
      '/_rampart/heartbeat',
      {
        host: base.host,
        'x-rampart-site': options.siteId,
        'x-rampart-key': options.accessKey,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
      body,
      (answer) => {
        answer.resume();
        answer.on('end', () => (beating = false));
        const status = answer.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          report({
            kind: 'unexpected-status',
            during: 'heartbeat',
            status,
            message: `the heartbeat was answered ${status}`,
          });
        }
      },
      (problem) => {
        beating = false;
        if (!closed) report(problem);
      },
    );
  };
  const timer = interval > 0 ? setInterval(beat, interval) : undefined;
  timer?.unref();
  if (interval > 0) beat();

  // A request answered here (page, probe, 503) is taken from Fastify first, so that it does not answer it too.
  const fastifyHook = (): FastifyHook => (request, reply, done) =>
    serve(
      request.raw,
      reply.raw,
      (error) => (error instanceof Error ? done(error) : done()),
      () => reply.hijack(),
    );

  return {
    handle,
    express: () => handle,
    fastifyHook,
    fastifyPlugin: () => {
      const hook = fastifyHook();
      const register = (instance: Parameters<FastifyPlugin>[0], _options: unknown, done: () => void): void => {
        instance.addHook('onRequest', hook);
        done();
      };
      return Object.assign(register, { [Symbol.for('skip-override')]: true });
    },
    listener: (app) => (req, res) => handle(req, res, () => app(req, res)),
    close: () => {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      agent.destroy();
      return Promise.resolve();
    },
  };
}
