/**
 * The WAF on a fixed mix of benign and attack requests, CRS 3.3.4 at paranoia level 1 on both sides:
 * in process (CPU per request, p99 of the benign ones) and nginx + ModSecurity v3 + the same CRS
 * (Debian's nginx, libnginx-mod-http-modsecurity and modsecurity-crs; response body inspection off;
 * CPU of the one nginx worker per request), in the same run.
 *
 *   npm run bench:waf
 *
 * In process a second time with the CPU caches evicted before each inspection (8 MB of other memory
 * written), which is closer to what a request costs inside the server.
 *
 * Rampart over HTTP: the built engine in its own process, one plugin-access site in monitor mode (so
 * an attack's one-minute denial does not spare later requests their inspection), the mix sent to the
 * verdict endpoint as nginx's auth_request sends it, with the POST bodies forwarded as a gateway that
 * sends bodies does; the engine process's CPU over the run. The two HTTP servers take turns, three
 * runs each (BENCH_HTTP_ROUNDS, BENCH_SECONDS long), and each side's figure is its CPU over all its
 * runs: a machine that speeds up or slows down during the benchmark moves both sides alike.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createWaf, type WafRequest } from '#engine/waf';
import { loadRuleSet, detectRuleSetDir } from '#engine/waf/ruleset';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { freePort } from '../tests/support/engine.ts';
import { ApiClient } from '../tests/support/api-client.ts';
import { TestNginx } from '../tests/support/nginx.ts';
import { childPids, cpuSeconds, line, startEngineProcess } from './support.ts';
import { MIX, modsecurityConf, type MixEntry } from './waf-mix.ts';
import { readConfigDocument } from '#engine/config-store';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2000);
/** Alternating HTTP runs per side (each BENCH_SECONDS long). */
const HTTP_ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3);

const HEADERS: [string, string][] = [
  ['Host', 'shop.example.com'],
  [
    'User-Agent',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
  ],
  ['Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
  ['Accept-Language', 'en-GB,en;q=0.9'],
  ['Accept-Encoding', 'gzip, deflate, br'],
  ['Cookie', '_ga=GA1.2.345; session=abcdef0123456789'],
];

function wafRequest(m: MixEntry): WafRequest {
  const headers: [string, string][] = [...HEADERS];
  if (m.body !== undefined) {
    headers.push(
      ['Content-Type', m.contentType ?? 'text/plain'],
      ['Content-Length', String(Buffer.byteLength(m.body))],
    );
  }
  return {
    method: m.method,
    uri: m.path,
    protocol: 'HTTP/1.1',
    headers,
    body: m.body === undefined ? null : Buffer.from(m.body),
    remoteAddr: '198.51.100.20',
    remotePort: 50_000,
    serverAddr: '127.0.0.1',
    serverPort: 80,
  };
}

const found = detectRuleSetDir();
if (!found) throw new Error("bench:waf needs Debian's modsecurity-crs package (/usr/share/modsecurity-crs)");

// In process.
const ruleSet = await loadRuleSet(found.dir, found.options);
const waf = createWaf(ruleSet);
const requests = MIX.map(wafRequest);
for (let i = 0; i < 200; i++) for (const r of requests) waf.inspect(r); // JIT warm-up
const benignTimes: number[] = [];
let blocked = 0;
const cpu0 = process.cpuUsage();
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < requests.length; i++) {
    const t = performance.now();
    const outcome = waf.inspect(requests[i] as WafRequest);
    const us = (performance.now() - t) * 1000;
    if (MIX[i]?.attack) {
      if (outcome.interrupted) blocked++;
    } else benignTimes.push(us);
  }
}
const cpu = process.cpuUsage(cpu0);
const inProcessUs = (cpu.user + cpu.system) / (ROUNDS * requests.length);
benignTimes.sort((a, b) => a - b);
const p99 = benignTimes[Math.floor(benignTimes.length * 0.99)] ?? 0;

// In process with the caches cold, as in a server where HTTP parsing, logging and the rest of the
// pipeline run between two inspections: 8 MB of unrelated memory written before each one (only the
// inspection is timed; the median per request of the mix, so scheduling noise stays out).
const junk = new Int32Array((8 * 1024 * 1024) / 4);
const coldTimes: number[][] = requests.map(() => []);
for (let round = 0; round < Math.min(ROUNDS, 500); round++) {
  for (let i = 0; i < requests.length; i++) {
    for (let j = 0; j < junk.length; j += 16) junk[j] = ((junk[j] as number) + 1) | 0;
    const t = performance.now();
    waf.inspect(requests[i] as WafRequest);
    coldTimes[i]?.push((performance.now() - t) * 1000);
  }
}
const coldUs =
  coldTimes.reduce((sum, times) => sum + (times.sort((a, b) => a - b)[times.length >> 1] ?? 0), 0) / requests.length;

// nginx + ModSecurity v3 + the same CRS, one worker, serving a static file.
const dir = await mkdtemp(join(tmpdir(), 'rampart-bench-waf-'));
const nginx = new TestNginx(join(dir, 'nginx'));
let modsecUs: number;
let modsecBlocked: number;
interface Measured {
  cpu: number;
  requests: number;
  blocked: number;
}
let measureModsec: (() => Promise<Measured>) | undefined;
try {
  await mkdir(join(dir, 'www'), { recursive: true });
  for (const m of MIX) {
    const file = join(dir, 'www', (m.path.split('?')[0] ?? '/').replace(/\/$/, '/index.html'));
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, '<html><body>ok</body></html>\n');
  }
  const rules = join(dir, 'modsecurity.conf');
  await writeFile(rules, modsecurityConf({ dir: found.dir, setupFile: found.options.setupFile }, false));
  const port = await freePort();
  await nginx.start(
    `    server {
        listen 127.0.0.1:${port};
        root ${join(dir, 'www')};
        modsecurity on;
        modsecurity_rules_file ${rules};
        error_page 405 =200 $uri;
    }`,
    { main: 'load_module /usr/lib/nginx/modules/ngx_http_modsecurity_module.so;' },
  );
  const workers = childPids(nginx.pid ?? 0);
  const cannonRequests = MIX.map((m) => ({
    method: m.method,
    path: m.path,
    headers: Object.fromEntries([
      ...HEADERS,
      ...(m.body ? [['Content-Type', m.contentType ?? 'text/plain']] : []),
    ]) as Record<string, string>,
    ...(m.body ? { body: m.body } : {}),
  }));
  const run = () =>
    autocannon({ url: `http://127.0.0.1:${port}`, connections: 16, duration: DURATION, requests: cannonRequests });
  await run(); // warm-up
  measureModsec = async () => {
    const before = workers.reduce((s, pid) => s + cpuSeconds(pid), 0);
    const result = await run();
    const used = workers.reduce((s, pid) => s + cpuSeconds(pid), 0) - before;
    return { cpu: used, requests: result.requests.total, blocked: result['4xx'] };
  };
} catch (error) {
  await stopModsec();
  throw error;
}
let modsecStopped = false;
async function stopModsec(): Promise<void> {
  if (modsecStopped) return;
  modsecStopped = true;
  await nginx.stop();
  await rm(dir, { recursive: true, force: true });
}

// Rampart over HTTP: the verdict endpoint of the built engine, as a gateway calls it.
let rampartUs: number;
let rampartOffUs: number;
let rampartBlocked: number;
const engineDir = await mkdtemp(join(tmpdir(), 'rampart-bench-waf-engine-'));
if (!process.env.BENCH_NO_BUILD) execFileSync(process.execPath, ['scripts/build-engine.mjs'], { stdio: 'ignore' });
const gatewayPort = await freePort();
const engine = await startEngineProcess({
  RAMPART_DATA: join(engineDir, 'data'),
  RAMPART_CONSOLE_PORT: String(await freePort()),
  RAMPART_GATEWAY_HOST: '127.0.0.1',
  RAMPART_GATEWAY_PORT: String(gatewayPort),
  RAMPART_LOG_LEVEL: 'warn',
});
try {
  const admin = new ApiClient(engine.consoleUrl);
  await admin.setup('bench@example.com', 'Kettle#Blue7');
  const ruleSet = await admin.request<{ state: string; version: string }>('GET', '/rule-set');
  if (ruleSet.body.state !== 'loaded') throw new Error('the engine found no Core Rule Set');
  const key = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
  const site = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'bench',
    domain: 'shop.example.com',
    runMode: 'monitor',
    accessMethod: 'plugin',
  });
  const config = (await readConfigDocument(join(engineDir, 'data'))) as unknown as {
    secrets: { tokenKey: string };
  };
  const tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);
  const token = tokens.issue({ siteId: site.body.id, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 86_400 });
  const verdictRequests = MIX.map((m) => {
    const headers: Record<string, string> = {
      'x-rampart-site': site.body.id,
      'x-rampart-key': key,
      'x-rampart-remote-addr': '198.51.100.20',
      'x-original-uri': m.path,
      'x-original-method': m.method,
      ...Object.fromEntries(HEADERS.map(([n, v]) => [n.toLowerCase(), v])),
    };
    headers.cookie = `${headers.cookie ?? ''}; rampart_token=${token}`;
    if (m.body !== undefined) headers['content-type'] = m.contentType ?? 'text/plain';
    const method: 'GET' | 'POST' = m.body === undefined ? 'GET' : 'POST';
    return { method, path: '/_rampart/verdict', headers, ...(m.body ? { body: m.body } : {}) };
  });
  const pid = engine.child.pid ?? 0;
  const run = () =>
    autocannon({
      url: `http://127.0.0.1:${gatewayPort}`,
      connections: 16,
      duration: DURATION,
      requests: verdictRequests,
    });
  await run(); // warm-up
  // ModSecurity and Rampart take turns, HTTP_ROUNDS runs each, so a change in the machine's speed
  // during the benchmark weighs on both sides of the ratio alike.
  const modsec: Measured = { cpu: 0, requests: 0, blocked: 0 };
  const rampart: Measured = { cpu: 0, requests: 0, blocked: 0 };
  if (measureModsec === undefined) throw new Error('nginx + ModSecurity did not start');
  for (let round = 0; round < HTTP_ROUNDS; round++) {
    const m = await measureModsec();
    modsec.cpu += m.cpu;
    modsec.requests += m.requests;
    modsec.blocked += m.blocked;
    const before = cpuSeconds(pid);
    const result = await run();
    rampart.cpu += cpuSeconds(pid) - before;
    rampart.requests += result.requests.total;
    if (result.errors + result.timeouts + result['5xx'] > 0)
      console.log(`# rampart errors: ${result.errors + result.timeouts + result['5xx']}`);
  }
  await stopModsec();
  modsecUs = (modsec.cpu / modsec.requests) * 1e6;
  modsecBlocked = modsec.blocked / modsec.requests;
  rampartUs = (rampart.cpu / rampart.requests) * 1e6;
  // Monitor mode answers 204; what would have been blocked is in the access log's guard status.
  const sample = await Promise.all(
    verdictRequests.map(async (r) => {
      const res = await fetch(`http://127.0.0.1:${gatewayPort}/_rampart/verdict`, {
        method: r.method,
        headers: r.headers,
        ...(r.body ? { body: r.body } : {}),
      });
      return res.headers.get('x-rampart-guard') === 'OWASP';
    }),
  );
  rampartBlocked = sample.filter(Boolean).length / sample.length;
  // The same requests with the 12 rule groups off: what the endpoint costs besides the rules (HTTP,
  // the rest of the pipeline, the access log).
  for (const group of ['001', '002', '003', '004', '005', '006', '007', '008', '009', '010', '011', '012']) {
    await admin.request('PUT', `/sites/${site.body.id}/basic-rules/groups/${group}`, {
      enabled: false,
      level: 'loose',
    });
  }
  await run();
  const offBefore = cpuSeconds(pid);
  const off = await run();
  rampartOffUs = ((cpuSeconds(pid) - offBefore) / off.requests.total) * 1e6;
} finally {
  await stopModsec();
  await engine.stop();
  await rm(engineDir, { recursive: true, force: true });
}

line('waf_cpu_us_per_request_in_process', inProcessUs, 'us', 1);
line('waf_p99_us_benign_in_process', p99, 'us', 1);
line('waf_us_per_request_in_process_cold_caches', coldUs, 'us', 1);
line('waf_cpu_us_per_request_modsecurity', modsecUs, 'us', 1);
line('waf_cpu_us_per_request_rampart', rampartUs, 'us', 1);
line('waf_ratio_vs_modsecurity', modsecUs / rampartUs, '', 2);
line('waf_cpu_us_per_request_rampart_rules_off', rampartOffUs, 'us', 1);
line('waf_ratio_modsecurity_vs_in_process', modsecUs / inProcessUs, '', 2);
line('waf_attacks_blocked_in_process', (100 * blocked) / (ROUNDS * MIX.filter((m) => m.attack).length), '%', 1);
line('waf_blocked_share_rampart_http', 100 * rampartBlocked, '%', 1);
line('waf_4xx_share_modsecurity', 100 * modsecBlocked, '%', 1);
