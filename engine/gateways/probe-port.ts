import {
  renderProbeScript,
  reloadPage,
  reportResponse,
  detectionRecord,
  type ProbeService,
  type AssessContext,
} from '#engine/probe';
import type { CompiledSite } from '#engine/sites';
import { cookieValue } from '#engine/verdict';
import type { Clock } from '#engine/shared';
import type { ProbePort, ProbeOutcome } from './gateway-server.ts';

export const PROBE_SCRIPT_PATH = '/_rampart/probe.js';
export const REPORT_PATH = '/_rampart/report';
const IDENTITY_MAX_AGE = 365 * 24 * 3600;

function cookie(name: string, value: string, secure: boolean, maxAge?: number): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax${maxAge === undefined ? '' : `; Max-Age=${maxAge}`}${secure ? '; Secure' : ''}`;
}

/**
 * The probe as the gateway server serves it. A report from a real browser gets the token and
 * identity cookies. A bot on a blocking site gets the block content with the block status and no
 * token (its next request goes to the reload response again); on a monitoring site it gets a token
 * that carries the bot verdict, so its requests pass but are logged as BOT.
 */
export function probePort(probe: ProbeService, clock: Clock): ProbePort {
  const challengeFor = (site: CompiledSite) =>
    site.powDifficulty > 0
      ? probe.challenges.issueChallenge({
          siteId: site.id,
          difficulty: site.powDifficulty,
          ttlSeconds: site.tokenTtlSeconds + 60,
        })
      : null;

  return {
    script(site: CompiledSite, mode: 'reload' | 'page' | 'sdk', reportUrl: string = REPORT_PATH): string {
      const x = site.accountExtraction;
      return renderProbeScript({
        reportUrl,
        mode,
        challenge: challengeFor(site),
        account:
          x.enabled && x.loginPath && x.usernameSelector
            ? {
                loginPath: x.loginPath,
                usernameSelector: x.usernameSelector,
                ...(x.successSelector ? { success: { selector: x.successSelector, text: x.successText } } : {}),
                ...(x.failureSelector ? { failure: { selector: x.failureSelector, text: x.failureText } } : {}),
              }
            : null,
      });
    },

    reloadPage(site: CompiledSite): string {
      return reloadPage({ content: site.reloadContent, probeScriptUrl: `${PROBE_SCRIPT_PATH}?mode=reload` });
    },

    report(site, body, ctx): ProbeOutcome {
      const now = clock.now();
      const assessCtx: AssessContext = {
        siteId: site.id,
        srcIp: ctx.srcIp,
        userAgent: ctx.userAgent,
        now,
        powRequired: site.powDifficulty > 0,
        hostname: ctx.host,
      };
      const next = challengeFor(site);
      const assessed = probe.assessReport(body, assessCtx);
      if (!assessed.ok) {
        return {
          status: 400,
          cookies: [],
          body: {
            error: { code: assessed.error.code, message: assessed.error.message, field: assessed.error.field },
            ...(next ? { next } : {}),
          },
          detectionRecord: {
            _timestamp: Math.floor(now / 1000) * 1000,
            site_id: site.id,
            src_ip: ctx.srcIp,
            user_agent: ctx.userAgent,
            referrer: ctx.referrer,
            hostname: ctx.host,
            detection_result: 'refused',
            reason: assessed.error.message,
          },
        };
      }
      const assessment = assessed.value;
      const secure = ctx.scheme === 'https';
      const known = probe.tokens.verifyDeviceId(cookieValue(ctx.cookieHeader, site.identityCookieName));
      const identity = known.kind === 'valid' ? null : probe.tokens.newDeviceId();
      const deviceId = known.kind === 'valid' ? known.deviceId : identity!.deviceId;
      const cookies = identity ? [cookie(site.identityCookieName, identity.cookieValue, secure, IDENTITY_MAX_AGE)] : [];
      const record = { ...detectionRecord(assessment, assessCtx), device_id: deviceId };
      const bot = assessment.verdict === 'bot' && site.browserFeatureDetection;
      if (bot && site.runMode === 'block' && site.accessMethod !== 'bypass') {
        return {
          status: site.blockStatus,
          cookies,
          body: reportResponse({ ttlSeconds: site.tokenTtlSeconds, blockHtml: site.blockContent, next }),
          detectionRecord: record,
        };
      }
      const token = probe.tokens.issue({
        siteId: site.id,
        deviceId,
        ttlSeconds: site.tokenTtlSeconds,
        ...(site.ipLock ? { ip: ctx.srcIp } : {}),
        bot,
      });
      cookies.push(cookie(site.tokenCookieName, token, secure));
      return {
        status: 200,
        cookies,
        body: reportResponse({ ttlSeconds: site.tokenTtlSeconds, next }),
        detectionRecord: record,
      };
    },
  };
}
