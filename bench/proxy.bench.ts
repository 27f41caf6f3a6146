/**
 * Rampart's reverse proxy (CNAME access, issue 17) with the WAF on, against nginx proxying the same
 * origin plainly and nginx + ModSecurity v3 + the same CRS 3.3.4, in the same run:
 *
 *   npm run bench:proxy
 *
 * The origin is a separate nginx serving a small page for each path of the mix (its CPU is not
 * counted). The three proxies each keep a keep-alive pool to it and set X-Forwarded-For / -Proto /
 * -Host and X-Real-IP. autocannon sends waf.bench.ts's mix (six everyday requests, two of them POSTs
 * with bodies, and four attacks) over 16 keep-alive connections; every request carries the site's
 * token cookie, so Rampart's benign requests reach the origin.
 *
 * - Rampart: the built engine in its own process, edition B, one CNAME site in block mode with the
 *   default basic rules (CRS at its defaults). It inspects request bodies (up to 128 KB) and the
 *   response's status, headers and body (text, JSON, XML and JavaScript types, up to 64 KB), and
 *   writes an access record per request.
 * - nginx + ModSecurity: request and response body access on (the same response types, up to 64 KB,
 *   ProcessPartial beyond), so both inspect the same; audit log off; nginx's access log on, buffered.
 * - nginx: plain proxy_pass, access log on, buffered.
 *
 * rps per core = requests completed / CPU seconds of the proxy's own process (the engine process;
 * the one nginx worker). The three take turns, BENCH_HTTP_ROUNDS runs each of BENCH_SECONDS, and each
 * figure is over all its runs, so a machine that speeds up or slows down moves them alike.
 * `proxy_p99_ms` is autocannon's latency p99 through Rampart at a fixed BENCH_P99_RATE requests per
 * second over 16 connections. `proxy_rps_per_core_rules_off` is Rampart again with the 12 basic-rule
 * groups off (once, after the rounds): the proxy's cost besides the rules.
 *
 * BENCH_PROFILE=<dir> writes the engine's CPU profile there (see bench/support.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { detectRuleSetDir } from '#engine/waf/ruleset';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { freePort } from '../tests/support/engine.ts';
import { ApiClient } from '../tests/support/api-client.ts';
import { TestNginx } from '../tests/support/nginx.ts';
import { childPids, cpuSeconds, line, proxyListening, startEngineProcess } from './support.ts';
import { MIX, modsecurityConf } from './waf-mix.ts';
import { readConfigDocument } from '#engine/config-store';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
/** Alternating runs per side (each BENCH_SECONDS long). */
const HTTP_ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);
/** The fixed load of the latency run through Rampart, requests per second. */
const P99_RATE = Number(process.env.BENCH_P99_RATE ?? 500);
const CONNECTIONS = 16;

const HOST = 'shop.example.com';
const HEADERS: [string, string][] = [
  ['Host', HOST],
  [
    'User-Agent',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  ],
  ['Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
  ['Accept-Language', 'en-GB,en;q=0.9'],
  ['Accept-Encoding', 'gzip, deflate, br'],
];

/** A small page (about 600 bytes) for every path; JavaScript for the script. */
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<link rel="stylesheet" href="/static/app.css"></head>
<body><header><nav><a href="/">Home</a> <a href="/products">Products</a> <a href="/cart">Cart</a></nav></header>
<main><h1>Blue shoes</h1><p>Comfortable running shoes in blue, sizes 36 to 46, free delivery over 50 EUR.</p>
<ul><li>Breathable mesh</li><li>Cushioned sole</li><li>Reflective strips</li></ul>
<form action="/api/cart" method="post"><input type="hidden" name="item" value="42"><button>Add to cart</button></form>
</main><footer>&copy; 2026 Example Shop</footer><script src="/static/app.js?v=1234"></script></body></html>
`;
const SCRIPT = `(function(){var b=document.querySelector('button');if(b){b.addEventListener('click',function(){b.textContent='Added';});}})();\n`;

/** The proxy headers nginx sets as Rampart's proxy does, with a keep-alive pool to the origin. */
const NGINX_PROXY = `            proxy_pass http://origin;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Real-IP $remote_addr;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-Host $host;`;

const upstream = (originPort: number): string => `    upstream origin {
        server 127.0.0.1:${originPort};
        keepalive 64;
        keepalive_requests 1000000;
    }`;

interface Measured {
  cpu: number;
  requests: number;
  ok: number;
  refused: number;
  failed: number;
}

const empty = (): Measured => ({ cpu: 0, requests: 0, ok: 0, refused: 0, failed: 0 });

interface Side {
  name: string;
  url: string;
  /** CPU seconds the side's proxy process(es) have used so far. */
  cpu: () => number;
  total: Measured;
}

const found = detectRuleSetDir();
if (!found) throw new Error("bench:proxy needs Debian's modsecurity-crs package (/usr/share/modsecurity-crs)");

const dir = await mkdtemp(join(tmpdir(), 'rampart-bench-proxy-'));
const nginxes: TestNginx[] = [];
let engine: Awaited<ReturnType<typeof startEngineProcess>> | undefined;

async function startNginx(name: string, http: string, main?: string): Promise<TestNginx> {
  const nginx = new TestNginx(join(dir, name));
  nginxes.push(nginx);
  await nginx.start(http, main ? { main } : {});
  return nginx;
}

/** The pids of an nginx's workers, whose CPU is the proxy's. */
function workersOf(nginx: TestNginx): number[] {
  const workers = childPids(nginx.pid ?? 0);
  if (workers.length === 0) throw new Error(`nginx in ${nginx.prefix} has no worker`);
  return workers;
}

let results: { side: Side; measured: Measured }[] | undefined;
let p99ms: number | undefined;
let rulesOff: Measured | undefined;
try {
  // The origin: nginx serving the page for every path (a POST answered like a GET).
  const www = join(dir, 'www');
  for (const m of MIX) {
    const path = m.path.split('?')[0] ?? '/';
    const file = join(www, path.endsWith('/') ? `${path}index.html` : path);
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, path.endsWith('.js') ? SCRIPT : PAGE);
  }
  const originPort = await freePort();
  await startNginx(
    'origin',
    `    include /etc/nginx/mime.types;
    default_type text/html;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:${originPort};
        root ${www};
        error_page 405 =200 $uri;
    }`,
  );

  // nginx proxying plainly.
  const plainPort = await freePort();
  const plain = await startNginx(
    'plain',
    `${upstream(originPort)}
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:${plainPort};
        access_log ${join(dir, 'plain', 'logs', 'access.log')} combined buffer=64k;
        location / {
${NGINX_PROXY}
        }
    }`,
  );

  // nginx + ModSecurity v3 + CRS, request and response bodies inspected.
  const rules = join(dir, 'modsecurity.conf');
  await writeFile(rules, modsecurityConf({ dir: found.dir, setupFile: found.options.setupFile }, true));
  const modsecPort = await freePort();
  const modsec = await startNginx(
    'modsec',
    `${upstream(originPort)}
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:${modsecPort};
        access_log ${join(dir, 'modsec', 'logs', 'access.log')} combined buffer=64k;
        modsecurity on;
        modsecurity_rules_file ${rules};
        location / {
${NGINX_PROXY}
        }
    }`,
    'load_module /usr/lib/nginx/modules/ngx_http_modsecurity_module.so;',
  );

  // Rampart: the built engine, one CNAME site in block mode.
  if (!process.env.BENCH_NO_BUILD) execFileSync(process.execPath, ['scripts/build-engine.mjs'], { stdio: 'ignore' });
  const engineDir = join(dir, 'engine');
  engine = await startEngineProcess({
    RAMPART_DATA: join(engineDir, 'data'),
    RAMPART_EDITION: 'B',
    RAMPART_CONSOLE_HOST: '127.0.0.1',
    RAMPART_CONSOLE_PORT: String(await freePort()),
    RAMPART_GATEWAY_HOST: '127.0.0.1',
    RAMPART_GATEWAY_PORT: String(await freePort()),
    RAMPART_GATEWAY_LOG_PORT: String(await freePort()),
    RAMPART_INTAKE_PORT: String(await freePort()),
    RAMPART_PROXY_HOST: '127.0.0.1',
    RAMPART_LOG_LEVEL: 'warn',
  });
  const admin = new ApiClient(engine.consoleUrl);
  await admin.setup('bench@example.com', 'Kettle#Blue7');
  const ruleSet = await admin.request<{ state: string }>('GET', '/rule-set');
  if (ruleSet.body.state !== 'loaded') throw new Error('the engine found no Core Rule Set');
  const proxyPort = await freePort();
  const site = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'bench',
    domain: HOST,
    runMode: 'block',
    accessMethod: 'cname',
    cname: {
      http: true,
      https: false,
      httpPort: proxyPort,
      originProtocol: 'http',
      originAddress: `127.0.0.1:${originPort}`,
    },
  });
  if (site.status !== 201) throw new Error(`the CNAME site was not created: ${site.status}`);
  await proxyListening(admin, proxyPort);
  const config = (await readConfigDocument(join(engineDir, 'data'))) as unknown as {
    secrets: { tokenKey: string };
  };
  const tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);
  const token = tokens.issue({ siteId: site.body.id, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 86_400 });

  // The same requests to every side: the nginx ones ignore the token cookie.
  const requests = MIX.map((m) => ({
    method: m.method,
    path: m.path,
    headers: Object.fromEntries([
      ...HEADERS,
      ['Cookie', `_ga=GA1.2.345; session=abcdef0123456789; rampart_token=${token}`],
      ...(m.body ? [['Content-Type', m.contentType ?? 'text/plain']] : []),
    ]) as Record<string, string>,
    ...(m.body ? { body: m.body } : {}),
  }));
  const enginePid = engine.child.pid ?? 0;
  const sum = (pids: number[]) => () => pids.reduce((s, pid) => s + cpuSeconds(pid), 0);
  const sides: Side[] = [
    { name: 'nginx', url: `http://127.0.0.1:${plainPort}`, cpu: sum(workersOf(plain)), total: empty() },
    { name: 'nginx + ModSecurity', url: `http://127.0.0.1:${modsecPort}`, cpu: sum(workersOf(modsec)), total: empty() },
  ];
  const rampartSide: Side = {
    name: 'Rampart',
    url: `http://127.0.0.1:${proxyPort}`,
    cpu: () => cpuSeconds(enginePid),
    total: empty(),
  };
  sides.push(rampartSide);
  const load = (url: string, overallRate?: number) =>
    autocannon({
      url,
      connections: CONNECTIONS,
      duration: DURATION,
      requests,
      ...(overallRate === undefined ? {} : { overallRate }),
    });
  const measure = async (side: Side): Promise<Measured> => {
    const before = side.cpu();
    const result = await load(side.url);
    return {
      cpu: side.cpu() - before,
      requests: result.requests.total,
      ok: result['2xx'],
      refused: result['4xx'],
      failed: result['5xx'] + result.errors + result.timeouts,
    };
  };
  await idle(enginePid); // the site's rules compiled
  for (const side of sides) await load(side.url); // warm-up (JIT, pools)
  // The three take turns so a change in the machine's speed weighs on every side alike.
  for (let round = 0; round < HTTP_ROUNDS; round++) {
    for (const side of sides) {
      const m = await measure(side);
      for (const key of ['cpu', 'requests', 'ok', 'refused', 'failed'] as const) side.total[key] += m[key];
    }
  }
  results = sides.map((side) => ({ side, measured: side.total }));
  const latency = await load(rampartSide.url, P99_RATE);
  p99ms = latency.latency.p99;
  console.log(
    `# latency run: ${P99_RATE} requests/s over ${CONNECTIONS} connections, ${latency.requests.total} requests, p50 ${latency.latency.p50} ms`,
  );
  // The same requests with the 12 rule groups off: what the proxy costs besides the rules (HTTP both
  // ways, undici, the rest of the pipeline, the access log). Measured once, after the rounds, and
  // once the engine is quiet (each change builds the site's rules anew on the engine's thread).
  const changing = performance.now();
  for (const group of ['001', '002', '003', '004', '005', '006', '007', '008', '009', '010', '011', '012']) {
    await admin.request('PUT', `/sites/${site.body.id}/basic-rules/groups/${group}`, {
      enabled: false,
      level: 'loose',
    });
  }
  const changed = (performance.now() - changing) / 1000;
  const quiet = await idle(enginePid);
  console.log(
    `# rule groups off: the 12 changes took ${changed.toFixed(1)} s, then the engine was busy ${quiet.toFixed(1)} s`,
  );
  await load(rampartSide.url);
  rulesOff = await measure(rampartSide);
} finally {
  await engine?.stop();
  for (const nginx of nginxes) await nginx.stop();
  await rm(dir, { recursive: true, force: true });
}

/** Waits until a process uses under 5% of a core over half a second; answers how long that took. */
async function idle(pid: number): Promise<number> {
  const started = performance.now();
  let cpu = cpuSeconds(pid);
  for (;;) {
    await sleep(500);
    const now = cpuSeconds(pid);
    if (now - cpu < 0.025 || performance.now() - started > 120_000) return (performance.now() - started) / 1000;
    cpu = now;
  }
}

if (results === undefined || p99ms === undefined || rulesOff === undefined)
  throw new Error('the benchmark did not finish');
const perCore = (m: Measured): number => m.requests / m.cpu;
for (const { side, measured } of results) {
  console.log(
    `# ${side.name}: ${measured.requests} requests in ${measured.cpu.toFixed(2)} CPU s; 2xx ${((100 * measured.ok) / measured.requests).toFixed(1)}%, 4xx ${((100 * measured.refused) / measured.requests).toFixed(1)}%, failed ${measured.failed}`,
  );
}
const [nginx, modsec, rampart] = results.map((r) => r.measured);
if (!nginx || !modsec || !rampart) throw new Error('a side was not measured');
line('proxy_rps_per_core', perCore(rampart), 'req/s', 0);
line('proxy_p99_ms', p99ms, 'ms', 1);
line('nginx_proxy_rps_per_core', perCore(nginx), 'req/s', 0);
line('nginx_modsecurity_rps_per_core', perCore(modsec), 'req/s', 0);
line('proxy_vs_nginx_modsecurity_ratio', perCore(rampart) / perCore(modsec), '', 2);
line('proxy_vs_nginx_ratio', perCore(rampart) / perCore(nginx), '', 2);
line('proxy_rps_per_core_rules_off', perCore(rulesOff), 'req/s', 0);
