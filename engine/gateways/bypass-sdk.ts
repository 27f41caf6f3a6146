/**
 * The bypass web SDK (edition B, access method 'bypass'): the customer's pages load
 * `/_rampart/sdk.js?site=<id>` from the gateway address, cross-origin. The script is the probe in
 * `sdk` mode: it runs the probe's checks and reports once per page view to
 * `/_rampart/sdk/report?site=<id>`, and never reloads, refreshes or replaces the page.
 *
 * A report writes the detection record as the probe's report does, and (for the page view, event
 * `load`) an access record whose guard_status the pipeline decides over the page's URL and the
 * browser's headers, with the token the report just earned (so the browser-feature bot verdict
 * counts); the pipeline never blocks a bypass site, and nothing here answers with a page. No
 * cookie is set: the answer is cross-site, and a bypass site's requests never carry a token.
 *
 * CORS: only the site's domain and its subdomains (http or https, any port) may post reports; the
 * preflight and the report answer other origins 403 without CORS headers, and write nothing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RampartError, capText, errorBody, type Clock } from '#engine/shared';
import type { CompiledSite } from '#engine/sites';
import type { LogStore } from '#engine/log-store';
import { decide, header, resolveSourceIp, type RequestFacts, type Verdict, type VerdictPorts } from '#engine/verdict';

export const SDK_SCRIPT_PATH = '/_rampart/sdk.js';
export const SDK_REPORT_PATH = '/_rampart/sdk/report';

/** What the SDK routes need of the probe (the gateway server's ProbePort satisfies it). */
export interface SdkProbe {
  script(site: CompiledSite, mode: 'sdk', reportUrl: string): string;
  report(
    site: CompiledSite,
    body: unknown,
    ctx: {
      srcIp: string;
      userAgent: string;
      referrer: string;
      host: string;
      scheme: string;
      cookieHeader: string | undefined;
    },
  ): {
    status: number;
    cookies: string[];
    body: Record<string, unknown>;
    detectionRecord: Record<string, unknown> & { _timestamp: number };
  };
}

export interface BypassSdkDeps {
  logStore: LogStore;
  clock: Clock;
  probe: SdkProbe;
  ports: VerdictPorts;
  reportGate?: { admitReport(siteId: string, srcIp: string): { ok: true } | { ok: false; retryAfterSeconds: number } };
  /** The site named by `?site=` (no key: browsers load the SDK). */
  siteOf(request: FastifyRequest): CompiledSite;
  /** The request's facts as the unauthenticated routes believe them (address and scheme from trusted gateways only). */
  factsOf(request: FastifyRequest): RequestFacts;
  /** Whether the peer is a trusted gateway (then its X-Rampart-Scheme names the scheme the SDK was loaded over). */
  isGateway(peer: string): boolean;
  /** Writes the access record (and counts the verdict) as every access method does. */
  log(site: CompiledSite, facts: RequestFacts, verdict: Verdict): void;
  markSeen(siteId: string): void;
  probeLogName(siteId: string): string;
  detectionLogName(siteId: string): string;
  noStore: string;
}

const HOST_PATTERN = /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$/;

/**
 * The page origin a report may come from: `http(s)://` the site's domain or one of its subdomains,
 * any port. A wildcard domain (`*.example.com`) allows example.com's subdomains and itself. Returns
 * the origin to echo in `Access-Control-Allow-Origin`, or undefined.
 */
export function allowedSdkOrigin(origin: string | undefined, domain: string): string | undefined {
  if (origin === undefined || origin === 'null') return undefined;
  const base = domain.trim().toLowerCase().replace(/^\*\./, '').replace(/\.$/, '');
  if (base === '') return undefined;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.origin !== origin.toLowerCase() && url.origin !== origin) return undefined;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return host === base || host.endsWith(`.${base}`) ? origin : undefined;
}

/** The page a report names (its `url`), else the origin's root: scheme, host and path with query. */
function pageOf(body: unknown, origin: string): { scheme: string; host: string; uri: string } {
  const url = typeof body === 'object' && body !== null ? (body as { url?: unknown }).url : undefined;
  const fallback = new URL(origin);
  let page = fallback;
  if (typeof url === 'string' && url.length <= 2048) {
    try {
      const parsed = new URL(url);
      // A page on another host than the report's origin is not believed.
      if (parsed.host === fallback.host) page = parsed;
    } catch {
      /* the origin's root */
    }
  }
  return { scheme: page.protocol.slice(0, -1), host: page.host, uri: `${page.pathname}${page.search}` };
}

const refOf = (body: unknown): string | undefined => {
  const ref = typeof body === 'object' && body !== null ? (body as { ref?: unknown }).ref : undefined;
  return typeof ref === 'string' && ref !== '' ? ref.slice(0, 2048) : undefined;
};

const eventOf = (body: unknown): unknown =>
  typeof body === 'object' && body !== null ? (body as { event?: unknown }).event : undefined;

/** The token value a report's cookies carry, as a Cookie header the pipeline reads. */
function tokenCookie(site: CompiledSite, cookies: readonly string[]): string | undefined {
  const prefix = `${site.tokenCookieName}=`;
  const cookie = cookies.find((c) => c.startsWith(prefix));
  return cookie === undefined ? undefined : cookie.split(';', 1)[0];
}

function refuse(reply: FastifyReply, status: number, problem: RampartError, noStore: string): FastifyReply {
  return reply.status(status).header('cache-control', noStore).send(errorBody(problem));
}

function bypassOnly(site: CompiledSite): void {
  if (site.accessMethod !== 'bypass') {
    throw new RampartError(
      'VALIDATION_FAILED',
      `site: "${site.name}" is not a bypass-access site; the web SDK is for bypass access (use the plugin or CNAME access otherwise)`,
      { field: 'site' },
    );
  }
}

export function registerBypassSdk(app: FastifyInstance, deps: BypassSdkDeps): void {
  app.get(SDK_SCRIPT_PATH, (request, reply) => {
    const site = deps.siteOf(request);
    bypassOnly(site);
    const facts = deps.factsOf(request);
    const host = header(request.headers, 'host') ?? '';
    if (!HOST_PATTERN.test(host)) {
      throw new RampartError('VALIDATION_FAILED', 'Host: must be the gateway address (host:port)', { field: 'Host' });
    }
    const scheme = deps.isGateway(request.ip) ? facts.scheme : request.protocol;
    deps.logStore.append(deps.probeLogName(site.id), {
      _timestamp: Math.floor(deps.clock.now() / 1000) * 1000,
      site_id: site.id,
      src_ip: capText(resolveSourceIp(site, facts.headers, facts.remoteAddr)),
      user_agent: capText(header(request.headers, 'user-agent') ?? ''),
      referrer: capText(header(request.headers, 'referer') ?? ''),
      hostname: capText(host),
      mode: 'sdk',
    });
    const reportUrl = `${scheme === 'https' ? 'https' : 'http'}://${host}${SDK_REPORT_PATH}?site=${encodeURIComponent(site.id)}`;
    return reply
      .header('cache-control', deps.noStore)
      .type('application/javascript; charset=utf-8')
      .send(deps.probe.script(site, 'sdk', reportUrl));
  });

  app.options(SDK_REPORT_PATH, (request, reply) => {
    const site = deps.siteOf(request);
    const origin = allowedSdkOrigin(header(request.headers, 'origin'), site.domain);
    if (site.accessMethod !== 'bypass' || origin === undefined) {
      return reply.status(403).header('vary', 'Origin').send();
    }
    return reply
      .status(204)
      .header('access-control-allow-origin', origin)
      .header('access-control-allow-methods', 'POST')
      .header('access-control-allow-headers', 'Content-Type')
      .header('access-control-max-age', '600')
      .header('vary', 'Origin')
      .send();
  });

  app.post(SDK_REPORT_PATH, (request, reply) => {
    const site = deps.siteOf(request);
    bypassOnly(site);
    const origin = allowedSdkOrigin(header(request.headers, 'origin'), site.domain);
    if (origin === undefined) {
      return refuse(
        reply.header('vary', 'Origin'),
        403,
        new RampartError(
          'VALIDATION_FAILED',
          `Origin: must be the site's domain ${site.domain || '(none set)'} or one of its subdomains; set the site's domain to the pages' host`,
          { field: 'Origin' },
        ),
        deps.noStore,
      );
    }
    void reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
    const facts = deps.factsOf(request);
    const srcIp = resolveSourceIp(site, facts.headers, facts.remoteAddr);
    const admission = deps.reportGate?.admitReport(site.id, srcIp);
    if (admission?.ok === false) {
      return refuse(
        reply.header('retry-after', String(admission.retryAfterSeconds)),
        429,
        new RampartError(
          'RATE_LIMITED',
          `Too many reports from this address; retry in ${admission.retryAfterSeconds} s.`,
          {
            params: { retryAfterSeconds: admission.retryAfterSeconds },
          },
        ),
        deps.noStore,
      );
    }
    const page = pageOf(request.body, origin);
    const userAgent = header(request.headers, 'user-agent') ?? '';
    const referrer = refOf(request.body);
    const outcome = deps.probe.report(site, request.body, {
      srcIp,
      userAgent,
      referrer: referrer ?? '',
      host: new URL(page.scheme + '://' + page.host).hostname,
      scheme: page.scheme,
      cookieHeader: undefined,
    });
    if (outcome.detectionRecord.detection_result === 'refused') {
      return reply.status(outcome.status).header('cache-control', deps.noStore).send(outcome.body);
    }
    deps.logStore.append(deps.detectionLogName(site.id), outcome.detectionRecord);
    if (eventOf(request.body) === 'load') {
      // The page view, as the pipeline would have judged the page's request.
      const headers: Record<string, string> = { host: page.host, 'user-agent': userAgent, accept: 'text/html' };
      const language = header(request.headers, 'accept-language');
      if (language !== undefined) headers['accept-language'] = language;
      if (referrer !== undefined) headers.referer = referrer;
      const token = tokenCookie(site, outcome.cookies);
      if (token !== undefined) headers.cookie = token;
      for (const name of ['x-forwarded-for', 'x-real-ip', site.sourceIp.customHeader.toLowerCase()]) {
        const value = name === '' ? undefined : header(facts.headers, name);
        if (value !== undefined) headers[name] = value;
      }
      const pageFacts: RequestFacts = {
        method: 'GET',
        scheme: page.scheme,
        host: page.host,
        uri: page.uri,
        protocol: 'HTTP/1.1',
        remoteAddr: facts.remoteAddr,
        headers,
        requestId: '',
      };
      deps.markSeen(site.id);
      deps.log(site, pageFacts, decide(site, pageFacts, deps.ports));
    }
    // The probe reads only "ok" (2xx with a JSON body) and the next proof-of-work challenge, if any
    // (for a retry); no token is handed over.
    const next = outcome.body.next;
    return reply
      .status(200)
      .header('cache-control', deps.noStore)
      .send({ recorded: true, ...(next === undefined ? {} : { next }) });
  });
}
