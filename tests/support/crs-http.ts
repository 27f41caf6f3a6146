/**
 * A site protected by Rampart behind a real nginx, for the CRS regression cases that judge what a
 * web server answers (status-only and expect_error cases): the engine (edition B) with the site's
 * basic rules at very strict (paranoia level 4) in block mode, the site's downloaded plugin bundle
 * in Debian's nginx, and an upstream on loopback that answers 200 to everything (like go-ftw's
 * albedo backend). Requests go over raw TCP sockets, byte for byte as given.
 *
 * Only the WAF decides. Rampart has no switch that turns the token stage off in block mode (anti-bot
 * off only drops the user-agent rules; the pass and check lists skip the WAF too), so a request the
 * WAF lets through would get the token stage's reload response. The gateway therefore does what a
 * real browser does once: it reports to the probe endpoint, gets a token and sends that token cookie
 * with every case, so a request the WAF passes reaches the upstream. To keep the token itself
 * neutral: browser feature detection is off (the report is not a real browser's), IP lock is off
 * (each case comes from its own loopback address, because a client the WAF blocked is denied for a
 * minute), the threat store is not queried (no bans from events), and the token is one with fewer
 * than three of the characters CRS counts as SQL specials in cookies (942421 at paranoia level 4
 * fires at three); a plain GET with it must reach the upstream, which `startCrsGateway` checks. The site's block status is 403,
 * the status CRS expects of a ModSecurity deny.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from './api-client.ts';
import { freePort, startTestEngine, type TestEngine } from './engine.ts';
import { NGINX, TestNginx } from './nginx.ts';
import { nginxLogFormat } from '#engine/gateways';

export const HAS_NGINX = existsSync(NGINX);

/** The site's token cookie name (edition B: the global one). */
const TOKEN_COOKIE = 'rampart_token';
const BLOCK_STATUS = 403;
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

/** What came back for one raw request. */
export interface RawOutcome {
  /** The status of the first response line, or null when none came (closed, reset, timed out, HTTP/0.9). */
  status: number | null;
  /** Why there was no status: 'closed', 'timeout', 'reset' or the socket error's code. */
  error?: string;
  /** The first bytes of the answer, for reports. */
  head: string;
}

/** The WAF's view of one request, from the site's access log. */
export interface AccessEntry {
  guardStatus: string;
  rules: string;
}

export interface CrsGateway {
  port: number;
  /** The token cookie (`name=value`) to add to each case's request. */
  tokenCookie: string;
  /** Sends bytes from `from` (a loopback address) and reads the status line. */
  send(bytes: Buffer, from: string, timeoutMs?: number): Promise<RawOutcome>;
  /** The access record of the last request from `from`, if the request reached Rampart. */
  lastAccess(from: string): Promise<AccessEntry | undefined>;
  stop(): Promise<void>;
}

export function sendRaw(port: number, bytes: Buffer, from: string, timeoutMs = 5000): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from });
    let got = Buffer.alloc(0);
    let done = false;
    const finish = (error?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = got.toString('latin1');
      const m = /^HTTP\/\d\.\d (\d{3})/.exec(text);
      const head = text.slice(0, 200);
      if (m) resolve({ status: Number(m[1]), head });
      else resolve({ status: null, error: error ?? (got.length > 0 ? 'no status line' : 'closed'), head });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (/\r?\n/.test(got.toString('latin1'))) finish();
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (e: NodeJS.ErrnoException) => finish(e.code === 'ECONNRESET' ? 'reset' : (e.code ?? e.message)));
  });
}

/** The characters 942420 / 942421 count in cookies; 942421 (paranoia level 4) fires at three. */
const CRS_SQL_SPECIALS = /[~!@#$%^&*()\-+={}[\]|:;"'`<>]/g;

export interface CrsGatewayOptions {
  /**
   * The rule set the engine runs (its .conf and .data folder and its crs-setup.conf.example), laid
   * out as a CRS release for PUT /rule-set; the engine's auto-detected one (Debian's CRS 3.3.4) when absent.
   */
  ruleSet?: { rules: string; setup: string };
  /**
   * What sits in front of the site: nginx with the plugin bundle (default), or Rampart's own
   * reverse proxy (a CNAME site), which gives the WAF request bodies and responses.
   */
  via?: 'nginx' | 'proxy';
}

export async function startCrsGateway(options: CrsGatewayOptions = {}): Promise<CrsGateway> {
  const dir = await mkdtemp(join(tmpdir(), 'rampart-crs-http-'));
  let engine: TestEngine | undefined;
  let upstream: Server | undefined;
  let nginx: TestNginx | undefined;
  const stop = async (): Promise<void> => {
    await nginx?.stop();
    if (upstream) await new Promise((resolve) => upstream?.close(resolve));
    await engine?.dispose();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // Finding a token without CRS's special characters may take more reports than one address may send a minute.
    engine = await startTestEngine({ RAMPART_EDITION: 'B', RAMPART_REPORTS_PER_MINUTE: '1000' });
    const admin = new ApiClient(engine.url);
    const call = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await admin.request<T>(method, path, body);
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
      return res.body;
    };
    const setup = await admin.setup('crs@example.com', 'Kettle#Blue7');
    if (setup.status !== 201) throw new Error(`setup: ${setup.status} ${setup.text}`);
    if (options.ruleSet !== undefined) {
      const release = join(dir, 'crs');
      await mkdir(release);
      await symlink(options.ruleSet.rules, join(release, 'rules'));
      await symlink(options.ruleSet.setup, join(release, 'crs-setup.conf.example'));
      const status = await call<{ state: string; lastError: { message: string } | null }>('PUT', '/rule-set', {
        dir: release,
      });
      if (status.state !== 'loaded' || status.lastError)
        throw new Error(`rule set ${options.ruleSet.rules}: ${status.lastError?.message ?? status.state}`);
    }
    await call('PUT', '/site-global', {
      tokenCookieName: TOKEN_COOKIE,
      identityCookieName: 'rampart_id',
      tokenExpirySeconds: 86_400,
      ipLock: false,
    });
    const via = options.via ?? 'nginx';
    const server = createServer((req, response) => {
      req.resume();
      req.on('end', () => {
        response.setHeader('Content-Type', 'text/plain');
        response.end('upstream\n');
      });
    });
    upstream = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const upstreamPort = (server.address() as { port: number }).port;
    const port = await freePort();
    const site = await call<{ id: string }>('POST', '/sites', {
      name: 'CRS regression',
      domain: 'localhost',
      runMode: 'block',
      accessMethod: via === 'proxy' ? 'cname' : 'plugin',
      blockStatus: BLOCK_STATUS,
      browserFeatureDetection: false,
      queryThreatStore: false,
      ...(via === 'proxy'
        ? { cname: { http: true, https: false, httpPort: port, originAddress: `127.0.0.1:${upstreamPort}` } }
        : {}),
    });
    const { groups } = await call<{ groups: { id: string; ruleCount: number }[] }>(
      'GET',
      `/sites/${site.id}/basic-rules`,
    );
    if (groups.length !== 12 || groups.some((g) => g.ruleCount === 0))
      throw new Error('the Core Rule Set is not loaded (12 groups with rules expected)');
    for (const g of groups)
      await call('PUT', `/sites/${site.id}/basic-rules/groups/${g.id}`, { enabled: true, level: 'very_strict' });

    if (via === 'proxy') await proxyListening(port);
    else nginx = await startNginx(engine, admin, site.id, dir, port, upstreamPort);

    const tokenCookie = await obtainToken(port);
    const probe = await sendRaw(
      port,
      Buffer.from(
        `GET / HTTP/1.1\r\nHost: localhost\r\nUser-Agent: ${BROWSER_UA}\r\nCookie: ${tokenCookie}\r\nConnection: close\r\n\r\n`,
      ),
      '127.0.0.2',
    );
    if (probe.status !== 200)
      throw new Error(
        `a plain GET with the token did not reach the upstream: ${probe.status ?? probe.error} ${probe.head}`,
      );

    const running = engine;
    return {
      port,
      tokenCookie,
      send: (bytes, from, timeoutMs) => sendRaw(port, bytes, from, timeoutMs),
      lastAccess: async (from) => {
        await running.logStore.flush();
        const records = await running.logStore.read(`access:${site.id}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
        const last = records.findLast((r) => r.src_ip === from);
        const text = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) ? v.join(',') : '');
        return last === undefined
          ? undefined
          : { guardStatus: text(last.guard_status), rules: text(last.waf_triggered_rules) };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** nginx with the site's plugin bundle (downloaded through the console API) in front of the upstream. */
async function startNginx(
  engine: TestEngine,
  admin: ApiClient,
  siteId: string,
  dir: string,
  port: number,
  upstreamPort: number,
): Promise<TestNginx> {
  const res = await fetch(`${engine.url}/api/v1/sites/${siteId}/plugin`, {
    headers: { cookie: admin.cookie ?? '' },
  });
  if (res.status !== 200) throw new Error(`plugin bundle: ${res.status}`);
  const tarball = join(dir, 'bundle.tar.gz');
  await writeFile(tarball, Buffer.from(await res.arrayBuffer()));
  execFileSync('tar', ['xzf', tarball, '-C', dir]);
  const folder = join(dir, `rampart-nginx-${siteId}`);
  const gatewayPort = new URL(engine.gatewayUrl).port;
  // Short client timeouts: a case that announces a body it never sends ends in 2 s.
  const nginx = new TestNginx(join(dir, 'nginx'));
  try {
    await nginx.start(`${nginxLogFormat()}
    upstream rampart_engine { server 127.0.0.1:${gatewayPort}; keepalive 16; }
    upstream rampart_pages { server 127.0.0.1:${gatewayPort}; keepalive 16; }
    server {
        listen 127.0.0.1:${port};
        server_name localhost;
        client_header_timeout 2s;
        client_body_timeout 2s;
        send_timeout 2s;
        include ${folder}/rampart-site.conf;
        location / {
            include ${folder}/rampart-protect.conf;
            proxy_pass http://127.0.0.1:${upstreamPort};
        }
    }`);
  } catch (error) {
    await nginx.stop();
    throw error;
  }
  return nginx;
}

/** Waits until the reverse proxy listens on the CNAME site's port (it follows site changes in 250 ms). */
async function proxyListening(port: number): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`the reverse proxy does not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function postReport(port: number, body: string): Promise<{ status: number; cookies: string[]; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/_rampart/report',
        agent: false,
        headers: {
          host: 'localhost',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': BROWSER_UA,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, cookies: res.headers['set-cookie'] ?? [], text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Reports to the probe endpoint through nginx, as a browser's probe would, until a neutral token
 * comes back (tokens differ in their issue time and device id; the site's tag in them is fixed).
 */
async function obtainToken(port: number): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const report = JSON.stringify({ v: 1, mode: 'reload', event: 'load', signs: [], fp: '0123456789abcdef' });
    // Host: localhost, the site's domain (the reverse proxy routes by it).
    const res = await postReport(port, report);
    const cookie = res.cookies.map((c) => c.split(';')[0] ?? '').find((c) => c.startsWith(`${TOKEN_COOKIE}=`));
    if (res.status !== 200 || cookie === undefined) throw new Error(`probe report: ${res.status} ${res.text}`);
    if ((cookie.slice(TOKEN_COOKIE.length + 1).match(CRS_SQL_SPECIALS) ?? []).length < 3) return cookie;
  }
  throw new Error('no token with fewer than three CRS special characters in 50 reports');
}
