/**
 * Verdict throughput and latency over HTTP keep-alive on loopback, the way nginx's auth_request
 * calls Rampart, against plain nginx proxying the same requests in the same run.
 *
 *   npm run bench:verdict
 *
 * The engine runs as its own process (the built bundle) and its CPU time is read from /proc, so
 * "per core" is verdicts per CPU-second of the engine. The reference is an nginx with one worker
 * proxying (keep-alive) to a second nginx that answers 204; its figure is requests per CPU-second of
 * the proxying worker. Throughput is driven by autocannon (in this process, 32 connections); the
 * half-load latency by hey at a fixed rate over 8 keep-alive connections.
 *
 * Two sites: the pipeline of the request-path issue (site, lists, threat store, token, bot verdict,
 * anti-bot rules, access log) with the basic application rules switched off (all 12 groups off: the
 * `verdict_*` lines), and a default site whose basic rules (CRS at loose, paranoia level 1, when a
 * rule set is installed) inspect every verdict too (the `*_basic_rules` lines).
 *
 * Then configuration writes: verdicts at the basic-rules half-load rate spread over that site and six
 * more, each with a different group switched off (more combinations than the engine keeps compiled
 * beside the all-groups one), first quietly (`verdict_p99_ms_mixed_groups`), then while another
 * client signs in every 250 ms, each sign-in writing the configuration (lastSignInAt)
 * (`verdict_p99_ms_during_config_write`, and the worst verdict in `verdict_max_ms_...`). A verdict
 * that compiled rules after a write would stall for 150-250 ms per combination here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { freePort } from '../tests/support/engine.ts';
import { ApiClient } from '../tests/support/api-client.ts';
import { TestNginx } from '../tests/support/nginx.ts';
import { cpuSeconds, childPids, startEngineProcess, line, p99AtRate as heyP99 } from './support.ts';
import { readConfigDocument } from '#engine/config-store';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 32;

interface Run {
  requests: number;
  perSecond: number;
  p99ms: number;
  cpu: number;
  errors: number;
}

async function load(url: string, headers: Record<string, string>, pids: number[], rate?: number): Promise<Run> {
  const before = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    headers,
    ...(rate ? { overallRate: rate } : {}),
  });
  const cpu = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) - before;
  const requests = result.requests.total;
  return {
    requests,
    perSecond: requests / DURATION,
    p99ms: result.latency.p99,
    cpu,
    errors: result.errors + result.timeouts + result['5xx'],
  };
}

/** The 99th percentile at a fixed rate (hey), in ms. */
const p99AtRate = (url: string, headers: Record<string, string>, rate: number, connections = 8): number =>
  heyP99(url, headers, { rate, seconds: DURATION, connections }).p99ms;

const dir = await mkdtemp(join(tmpdir(), 'rampart-bench-verdict-'));
if (!process.env.BENCH_NO_BUILD) execFileSync(process.execPath, ['scripts/build-engine.mjs'], { stdio: 'ignore' });
const consolePort = await freePort();
const gatewayPort = await freePort();
const engine = await startEngineProcess({
  RAMPART_DATA: join(dir, 'data'),
  RAMPART_CONSOLE_PORT: String(consolePort),
  RAMPART_GATEWAY_HOST: '127.0.0.1',
  RAMPART_GATEWAY_PORT: String(gatewayPort),
  RAMPART_LOG_LEVEL: 'warn',
});
const nginx = new TestNginx(join(dir, 'nginx'));
try {
  const admin = new ApiClient(engine.consoleUrl);
  await admin.setup('bench@example.com', 'Kettle#Blue7');
  const global = await admin.request<{ accessKey: string }>('PUT', '/site-global', {
    tokenCookieName: 'rampart_token',
    identityCookieName: 'rampart_id',
    tokenExpirySeconds: 86_400,
    ipLock: false,
  });
  const site = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'bench',
    domain: 'shop.example.com',
    runMode: 'block',
  });
  const bare = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'bench-no-rules',
    domain: 'shop.example.com',
    runMode: 'block',
  });
  for (const group of ['001', '002', '003', '004', '005', '006', '007', '008', '009', '010', '011', '012']) {
    await admin.request('PUT', `/sites/${bare.body.id}/basic-rules/groups/${group}`, {
      enabled: false,
      level: 'loose',
    });
  }
  const ruleSet = await admin.request<{ state: string; version: string | null }>('GET', '/rule-set');
  const config = (await readConfigDocument(join(dir, 'data'))) as unknown as {
    secrets: { tokenKey: string };
  };
  const tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);
  const token = tokens.issue({ siteId: site.body.id, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 86_400 });
  const bareToken = tokens.issue({ siteId: bare.body.id, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 86_400 });

  const base: Record<string, string> = {
    'x-rampart-site': site.body.id,
    'x-rampart-key': global.body.accessKey,
    'x-original-uri': '/products/42?ref=home',
    'x-original-method': 'GET',
    'x-rampart-remote-addr': '198.51.100.20',
    'x-rampart-scheme': 'https',
    'x-request-id': '5f2b3c4d5e6f70819293a4b5c6d7e8f9',
    host: 'shop.example.com',
    'user-agent':
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
    accept: 'text/html,application/xhtml+xml',
    'accept-language': 'en-GB,en;q=0.9',
  };
  const valid = { ...base, cookie: `_ga=GA1.2.3; rampart_id=x; rampart_token=${token}` };
  const verdictUrl = `http://127.0.0.1:${gatewayPort}/_rampart/verdict`;
  const pid = engine.child.pid!;

  const bareBase = { ...base, 'x-rampart-site': bare.body.id };
  const bareValid = { ...bareBase, cookie: `_ga=GA1.2.3; rampart_id=x; rampart_token=${bareToken}` };
  await load(verdictUrl, valid, [pid]); // warm-up: JIT, caches, LevelDB
  await load(verdictUrl, bareValid, [pid]);
  const validRun = await load(verdictUrl, bareValid, [pid]);
  const missingRun = await load(verdictUrl, bareBase, [pid]);
  const half = Math.round(validRun.perSecond / 2);
  const halfP99 = p99AtRate(verdictUrl, bareValid, half);
  const rulesRun = await load(verdictUrl, valid, [pid]);
  const rulesMissingRun = await load(verdictUrl, base, [pid]);
  const rulesHalf = Math.round(rulesRun.perSecond / 2);
  const rulesHalfP99 = p99AtRate(verdictUrl, valid, rulesHalf);

  const mixedSites = [site.body.id];
  for (const group of ['001', '002', '003', '004', '005', '006']) {
    const created = await admin.request<{ id: string }>('POST', '/sites', {
      name: `bench-off-${group}`,
      domain: 'shop.example.com',
      runMode: 'block',
    });
    await admin.request('PUT', `/sites/${created.body.id}/basic-rules/groups/${group}`, {
      enabled: false,
      level: 'loose',
    });
    mixedSites.push(created.body.id);
  }
  const mixedRequests = mixedSites.map((id) => ({
    method: 'GET' as const,
    path: '/_rampart/verdict',
    headers: {
      ...base,
      'x-rampart-site': id,
      cookie: `_ga=GA1.2.3; rampart_id=x; rampart_token=${tokens.issue({ siteId: id, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 86_400 })}`,
    },
  }));
  const mixed = (): Promise<autocannon.Result> =>
    autocannon({
      url: `http://127.0.0.1:${gatewayPort}`,
      connections: 8,
      duration: DURATION,
      overallRate: rulesHalf,
      requests: mixedRequests,
    });
  await mixed(); // warm-up: every site's runtime built
  const mixedQuiet = await mixed();
  const signIns = new ApiClient(engine.consoleUrl);
  let writing = true;
  let writes = 0;
  const writer = (async () => {
    while (writing) {
      if ((await signIns.signIn('bench@example.com', 'Kettle#Blue7')).status === 200) writes++;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  const mixedWrites = await mixed();
  writing = false;
  await writer;

  // Reference: nginx proxying the same requests (one worker) to an nginx that answers 204.
  const proxyPort = await freePort();
  const backendPort = await freePort();
  const backend = new TestNginx(join(dir, 'nginx-backend'));
  await backend.start(`    server { listen 127.0.0.1:${backendPort}; location / { return 204; } }`);
  await nginx.start(`    upstream backend { server 127.0.0.1:${backendPort}; keepalive 64; }
    server {
        listen 127.0.0.1:${proxyPort};
        location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }`);
  const workers = childPids(nginx.pid!);
  const nginxUrl = `http://127.0.0.1:${proxyPort}/products/42?ref=home`;
  await load(nginxUrl, bareValid, workers);
  const nginxRun = await load(nginxUrl, bareValid, workers);
  await backend.stop();

  line('verdict_per_core_valid_token', validRun.requests / validRun.cpu, '/s');
  line('verdict_per_core_missing_token', missingRun.requests / missingRun.cpu, '/s');
  line('verdict_cpu_us_valid_token', (validRun.cpu / validRun.requests) * 1e6, 'us', 1);
  line('verdict_cpu_us_missing_token', (missingRun.cpu / missingRun.requests) * 1e6, 'us', 1);
  line('verdict_throughput_valid_token', validRun.perSecond, '/s');
  line('verdict_p99_ms_full_load', validRun.p99ms, 'ms', 2);
  line('verdict_half_load_rate', half, '/s');
  line('verdict_p99_ms_half_load', halfP99, 'ms', 2);
  console.log(
    `# basic rules: ${ruleSet.body.state === 'loaded' ? `CRS ${ruleSet.body.version ?? '?'} at loose (paranoia level 1)` : 'no rule set installed'}`,
  );
  line('verdict_per_core_valid_token_basic_rules', rulesRun.requests / rulesRun.cpu, '/s');
  line('verdict_per_core_missing_token_basic_rules', rulesMissingRun.requests / rulesMissingRun.cpu, '/s');
  line('verdict_cpu_us_valid_token_basic_rules', (rulesRun.cpu / rulesRun.requests) * 1e6, 'us', 1);
  line('verdict_half_load_rate_basic_rules', rulesHalf, '/s');
  line('verdict_p99_ms_half_load_basic_rules', rulesHalfP99, 'ms', 2);
  console.log(
    `# ${mixedSites.length} sites, ${mixedSites.length} combinations of groups, at ${rulesHalf}/s; ${writes} sign-ins (configuration writes) during the second run`,
  );
  line('verdict_p99_ms_mixed_groups', mixedQuiet.latency.p99, 'ms', 2);
  line('verdict_p99_ms_during_config_write', mixedWrites.latency.p99, 'ms', 2);
  line('verdict_max_ms_during_config_write', mixedWrites.latency.max, 'ms', 2);
  line('nginx_proxy_per_core', nginxRun.requests / nginxRun.cpu, '/s');
  line('nginx_proxy_throughput', nginxRun.perSecond, '/s');
  line(
    'verdict_vs_nginx_proxy_per_core_ratio',
    validRun.requests / validRun.cpu / (nginxRun.requests / nginxRun.cpu),
    '',
    2,
  );
  const errors = [validRun, missingRun, rulesRun, rulesMissingRun].map((r) => r.errors);
  for (const r of [mixedQuiet, mixedWrites]) errors.push(r.errors + r.timeouts + r['5xx']);
  if (errors.some((e) => e > 0)) {
    console.log(
      `# errors (valid, missing, with rules valid, missing, mixed groups quiet, during writes): ${errors.join(', ')}`,
    );
  }
} finally {
  await nginx.stop();
  await engine.stop();
  await rm(dir, { recursive: true, force: true });
}
