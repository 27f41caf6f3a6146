/**
 * The mini-program SDK's endpoint (edition B; the SDK is gateways/mini-program):
 * `POST /_rampart/mp/report`, keyed by X-Rampart-Site and X-Rampart-Key (the Access Key: spec 2.1
 * says the mini-program SDK is configured with it).
 *
 * - `launch` / `refresh`: the SDK's detection data (the platform's system information) is judged as
 *   a probe report (no automation signs exist in a mini-program; its fingerprint is the hash of the
 *   system information), the detection record written, and the token and identity handed over in
 *   the answer's body (a mini-program has no cookie jar: the SDK attaches them to each request).
 * - `requests`: the requests the SDK's wrapped request function made, each a record of the site's
 *   messaging-app log `messaging:<site>` (spec 1.2) with the guard_status the pipeline gives the
 *   request as carried (the Cookie of the report is the one the SDK attaches to every request), its
 *   status and duration. Monitoring only: nothing is blocked here.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { RampartError, capText, validationFailed, zodProblems, type Clock } from '#engine/shared';
import type { CompiledSite } from '#engine/sites';
import type { LogStore } from '#engine/log-store';
import { decide, header, resolveSourceIp, type RequestFacts, type VerdictPorts } from '#engine/verdict';
import type { SdkProbe } from './bypass-sdk.ts';

export const MINI_PROGRAM_REPORT_PATH = '/_rampart/mp/report';
export const messagingLogName = (siteId: string): string => `messaging:${siteId}`;
/** Requests one report may carry; the SDK flushes at this many. */
export const MAX_REPORTED_REQUESTS = 50;

const text = (n: number) => z.string().max(n, `must be a string of at most ${n} characters`);

export const miniProgramReport = z.object({
  v: z.literal(1),
  event: z.enum(['launch', 'refresh', 'requests']),
  /** The platform's system information (brand, model, system, platform, version, SDKVersion...). */
  device: z
    .record(text(64), z.union([text(256), z.number(), z.boolean()]))
    .refine((d) => Object.keys(d).length <= 40, { message: 'at most 40 fields' })
    .optional(),
  requests: z
    .array(
      z.object({
        method: text(16),
        url: text(2048),
        status: z.number().int().min(0).max(999),
        durationMs: z.number().min(0).max(3_600_000),
        error: text(256).optional(),
      }),
    )
    .max(MAX_REPORTED_REQUESTS)
    .optional(),
});

export interface MiniProgramDeps {
  logStore: LogStore;
  clock: Clock;
  probe: SdkProbe;
  ports: VerdictPorts;
  /** The site named by X-Rampart-Site, with the Access Key checked. */
  keyedSite(request: FastifyRequest): CompiledSite;
  factsOf(request: FastifyRequest): RequestFacts;
  markSeen(siteId: string): void;
  detectionLogName(siteId: string): string;
  noStore: string;
}

/** `name=value` of a Set-Cookie line, by name. */
function cookieOf(cookies: readonly string[], name: string): string | undefined {
  const line = cookies.find((c) => c.startsWith(`${name}=`));
  return line?.split(';', 1)[0]?.slice(name.length + 1);
}

export function registerMiniProgram(app: FastifyInstance, deps: MiniProgramDeps): void {
  app.post(MINI_PROGRAM_REPORT_PATH, (request, reply) => {
    const site = deps.keyedSite(request);
    if (deps.ports.edition !== 'B') {
      throw new RampartError('MODULE_NOT_ACTIVE', 'The mini-program SDK is part of edition B', { field: 'edition' });
    }
    const parsed = miniProgramReport.safeParse(request.body);
    if (!parsed.success) throw validationFailed(zodProblems(parsed.error, 'body'));
    const body = parsed.data;
    deps.markSeen(site.id);
    const facts = deps.factsOf(request);
    const srcIp = resolveSourceIp(site, facts.headers, facts.remoteAddr);
    const userAgent = header(request.headers, 'user-agent') ?? '';
    const cookieHeader = header(request.headers, 'cookie');

    if (body.event === 'requests') {
      const now = deps.clock.now();
      for (const item of body.requests ?? []) {
        let url: URL | undefined;
        try {
          url = new URL(item.url);
        } catch {
          url = undefined;
        }
        const headers: Record<string, string> = { 'user-agent': userAgent };
        if (url !== undefined) headers.host = url.host;
        if (cookieHeader !== undefined) headers.cookie = cookieHeader;
        const itemFacts: RequestFacts = {
          method: item.method.toUpperCase(),
          scheme: url?.protocol.slice(0, -1) ?? '',
          host: url?.host ?? '',
          uri: url === undefined ? item.url : `${url.pathname}${url.search}`,
          protocol: 'HTTP/1.1',
          remoteAddr: facts.remoteAddr,
          headers,
          requestId: '',
        };
        const verdict = decide(site, itemFacts, deps.ports);
        deps.logStore.append(messagingLogName(site.id), {
          _timestamp: now,
          site_id: site.id,
          src_ip: capText(srcIp),
          user_agent: capText(userAgent),
          hostname: capText(itemFacts.host),
          scheme: capText(itemFacts.scheme),
          request: capText(`${itemFacts.method} ${itemFacts.uri} HTTP/1.1`),
          status: item.status,
          request_time: Math.round(item.durationMs) / 1000,
          error: capText(item.error ?? ''),
          guard_status: verdict.guardStatus,
          fingerprint: verdict.deviceId,
          waf_triggered_rules: verdict.waf.ruleIds.join(','),
          source_type: 'mini_program',
        });
      }
      return reply
        .status(200)
        .header('cache-control', deps.noStore)
        .send({ recorded: body.requests?.length ?? 0 });
    }

    // launch / refresh: the detection data, judged as a probe report.
    const device = body.device ?? {};
    const fp = createHash('sha256').update(JSON.stringify(device)).digest('hex').slice(0, 16);
    const outcome = deps.probe.report(
      site,
      { v: 1, mode: 'sdk', event: body.event, signs: [], fp, ua: userAgent.slice(0, 1024), host: site.domain },
      { srcIp, userAgent, referrer: '', host: site.domain, scheme: 'https', cookieHeader },
    );
    if (outcome.detectionRecord.detection_result === 'refused') {
      return reply.status(400).header('cache-control', deps.noStore).send(outcome.body);
    }
    deps.logStore.append(deps.detectionLogName(site.id), {
      ...outcome.detectionRecord,
      source_type: 'mini_program',
      device: capText(JSON.stringify(device)),
    });
    const token = cookieOf(outcome.cookies, site.tokenCookieName);
    const identity = cookieOf(outcome.cookies, site.identityCookieName);
    return reply
      .status(200)
      .header('cache-control', deps.noStore)
      .send({
        ttl: site.tokenTtlSeconds,
        token: token === undefined ? null : { name: site.tokenCookieName, value: token },
        identity: identity === undefined ? null : { name: site.identityCookieName, value: identity },
      });
  });
}
