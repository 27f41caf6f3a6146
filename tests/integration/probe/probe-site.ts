import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DEFAULT_BLOCK_CONTENT,
  ProbeService,
  detectionRecord,
  probeScriptTag,
  reloadPage,
  renderProbeScript,
  reportResponse,
  MAX_REPORT_BYTES,
  type Assessment,
  type DetectionRecord,
} from '#engine/probe';
import { systemClock } from '#engine/shared';

export const SITE_ID = 'site_probe_test';

export interface SiteConfig {
  /** Proof-of-work difficulty; 0 = off. */
  difficulty: number;
  tokenTtlSeconds: number;
  /** Block bots at report time (block mode). */
  blockBots: boolean;
}

export interface Received {
  body: unknown;
  assessment: Assessment | null;
  error: { code: string; field: string | undefined; reason: unknown } | null;
  record: DetectionRecord | null;
}

/**
 * A tiny protected site on 127.0.0.1 wired the way the gateway API will be: `/app` needs a valid
 * token (else the reload response), `/page` and `/login` carry the probe in page mode, `/probe.js`
 * serves the script and `/report` takes reports.
 */
export class ProbeSite {
  readonly probe = new ProbeService({ secret: Buffer.alloc(32, 42), clock: systemClock });
  readonly received: Received[] = [];
  config: SiteConfig = { difficulty: 0, tokenTtlSeconds: 60, blockBots: true };
  #server: Server | undefined;
  #base = '';

  get base(): string {
    return this.#base;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.#base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits for a report matching the predicate. */
  async waitFor(predicate: (r: Received) => boolean, timeoutMs = 15_000): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(predicate);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no matching report; got ${JSON.stringify(this.received.map((r) => r.body))}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  #challenge() {
    return this.config.difficulty > 0
      ? this.probe.challenges.issueChallenge({
          siteId: SITE_ID,
          difficulty: this.config.difficulty,
          ttlSeconds: this.config.tokenTtlSeconds + 60,
        })
      : null;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.#base);
    const html = (body: string, status = 200) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(body);
    };
    switch (url.pathname) {
      case '/probe.js': {
        const mode = url.searchParams.get('mode') === 'page' ? 'page' : 'reload';
        const script = renderProbeScript({
          reportUrl: '/report',
          mode,
          challenge: this.#challenge(),
          account: {
            loginPath: '/login',
            usernameSelector: '#username',
            success: { selector: '#result', text: 'Welcome' },
            failure: { selector: '#result', text: 'Wrong password' },
          },
          asyncTimeoutMs: 300,
        });
        res.writeHead(200, { 'content-type': 'application/javascript', 'cache-control': 'no-store' });
        res.end(script);
        return;
      }
      case '/app': {
        const check = this.probe.tokens.verify(cookie(req, 'rp_token'), { siteId: SITE_ID, ip: '127.0.0.1' });
        if (check.kind !== 'valid') return html(reloadPage({ probeScriptUrl: '/probe.js?mode=reload' }), 412);
        return html(
          `<!DOCTYPE html><html><body><h1 id="app">Welcome to the shop</h1><p id="bot">${check.bot}</p></body></html>`,
        );
      }
      case '/page':
        return html(
          `<!DOCTYPE html><html><body><h1>Plain page</h1>${probeScriptTag('/probe.js?mode=page')}</body></html>`,
        );
      case '/login':
        return html(`<!DOCTYPE html><html><body>
<form id="f"><input id="username" name="username"><input id="password" type="password"><button id="go" type="submit">Sign in</button></form>
<div id="result"></div>
<script>
document.getElementById('f').onsubmit = function () {
  var user = document.getElementById('username').value;
  var pass = document.getElementById('password').value;
  setTimeout(function () {
    document.getElementById('result').innerHTML = pass === 'right' ? 'Welcome back, ' + user : 'Wrong password';
  }, 200);
  return false;
};
</script>
${probeScriptTag('/probe.js?mode=page')}</body></html>`);
      case '/report':
        return this.#report(req, res);
      default:
        res.writeHead(404).end();
    }
  }

  async #report(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    const ctx = {
      siteId: SITE_ID,
      srcIp: req.socket.remoteAddress ?? '',
      userAgent: req.headers['user-agent'] ?? '',
      now: Date.now(),
      powRequired: this.config.difficulty > 0,
      hostname: (req.headers.host ?? '').replace(/:\d+$/, ''),
    };
    const result = this.probe.assessReport(body, ctx);
    const next = this.#challenge();
    if (!result.ok) {
      this.received.push({
        body,
        assessment: null,
        record: null,
        error: { code: result.error.code, field: result.error.field, reason: result.error.params.reason },
      });
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { code: result.error.code, field: result.error.field },
          ...(next ? { next: { challenge: next.challenge, difficulty: next.difficulty } } : {}),
        }),
      );
      return;
    }
    const assessment = result.value;
    this.received.push({ body, assessment, record: detectionRecord(assessment, ctx), error: null });
    const identity = this.probe.tokens.verifyDeviceId(cookie(req, 'rp_id'));
    const device =
      identity.kind === 'valid' ? { deviceId: identity.deviceId, cookieValue: null } : this.probe.tokens.newDeviceId();
    const bot = assessment.verdict === 'bot';
    const token = this.probe.tokens.issue({
      siteId: SITE_ID,
      deviceId: device.deviceId,
      ttlSeconds: this.config.tokenTtlSeconds,
      ip: '127.0.0.1',
      bot,
    });
    const cookies = [`rp_token=${token}; Path=/; HttpOnly; SameSite=Lax`];
    if (device.cookieValue)
      cookies.push(`rp_id=${device.cookieValue}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000`);
    const blocked = bot && this.config.blockBots;
    res.writeHead(blocked ? 400 : 200, { 'content-type': 'application/json', 'set-cookie': cookies });
    res.end(
      JSON.stringify(
        reportResponse({
          ttlSeconds: this.config.tokenTtlSeconds,
          blockHtml: blocked ? DEFAULT_BLOCK_CONTENT : null,
          next,
        }),
      ),
    );
  }
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REPORT_BYTES) throw new Error('report too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
