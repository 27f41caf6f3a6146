/**
 * Detection quality (issue 18 item 5): the labelled corpus of bench/eval/corpus.ts replayed through
 * each access method of Rampart and through nginx + ModSecurity v3 + the same Core Rule Set (Debian's
 * packages, CRS 3.3.4) at paranoia levels 1 and 2, in the same run:
 *
 *   npm run eval:detection
 *
 * - `proxy_*`: Rampart's reverse proxy (CNAME access), a site in block mode; it sees bodies. A request
 *   counts as blocked when the answer is not the origin's 200.
 * - `plugin_*`: the verdict endpoint as nginx's auth_request calls it (headers only, no body: an
 *   attack in a body is out of its reach by design), a site in monitor mode so one attack's
 *   one-minute denial does not decide the next request; blocked is `X-Rampart-Guard: OWASP`.
 * - `modsecurity_pl1_*` / `modsecurity_pl2_*`: nginx proxying to the same origin with ModSecurity on
 *   (request bodies inspected); blocked is a 403.
 * - Each Rampart method at `loose` (every rule group at paranoia level 1, Rampart's defaults),
 *   `normal` (every group at level 2, with that level's tokenizer check of level-2 SQL and XSS
 *   matches: engine/basic-rules/confirmation.ts) and `normal_opinion` (normal with the second
 *   opinion on: engine/basic-rules/second-opinion.ts).
 *
 * Prints, per side and level, `<side>_<level>_detection_pct` (attacks blocked),
 * `<side>_<level>_false_positive_pct` (benign requests blocked) and `<side>_<level>_accuracy_pct`,
 * and as comment lines the same per attack family / benign kind and per place in the request.
 * Every request carries a valid token for its site, so the probe never decides (for the second
 * opinion, every client is a probed browser), and comes from its own client address, so no client
 * has a history; benign requests are sent before attacks, so nothing an attack set off (a ban) can
 * count as a false positive.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { detectRuleSetDir } from '#engine/waf/ruleset';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { readConfigDocument } from '#engine/config-store';
import { freePort } from '../tests/support/engine.ts';
import { ApiClient } from '../tests/support/api-client.ts';
import { TestNginx } from '../tests/support/nginx.ts';
import { line, proxyListening, startEngineProcess } from './support.ts';
import { modsecurityConf } from './waf-mix.ts';
import { buildCorpus, type EvalRequest } from './eval/corpus.ts';

const CONCURRENCY = 8;
const GROUPS = ['001', '002', '003', '004', '005', '006', '007', '008', '009', '010', '011', '012'];
type Level = 'loose' | 'normal';
/** Rampart's variants: each level as it ships, and normal with the second opinion switched on. */
const VARIANTS: readonly { name: string; level: Level; secondOpinion: boolean }[] = [
  { name: 'loose', level: 'loose', secondOpinion: false },
  { name: 'normal', level: 'normal', secondOpinion: false },
  { name: 'normal_opinion', level: 'normal', secondOpinion: true },
];

/**
 * A client address per request (the second opinion counts a client's earlier blocks, and the
 * corpus is not one client): 127.a.b.c on loopback for the proxy, 10.a.b.c for the plugin's
 * X-Rampart-Remote-Addr.
 */
function clientAddresses(first: number): () => string {
  let n = 0;
  return () => {
    const k = n++;
    return `${first}.${(Math.floor(k / 64_516) % 254) + 1}.${(Math.floor(k / 254) % 254) + 1}.${(k % 254) + 1}`;
  };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  localAddress?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = {
      host: '127.0.0.1',
      port,
      method,
      path,
      headers,
      agent,
      ...(localAddress ? { localAddress } : {}),
    };
    const req = httpRequest(options, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.end(body);
  });
}

/** Runs `f` over the items, CONCURRENCY at a time, keeping the order of the results. */
async function pooled<T, R>(items: readonly T[], f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return out;
}

/** How one side judged each request: true when it blocked it. */
interface Side {
  name: string;
  judge(r: EvalRequest): Promise<boolean>;
}

const found = detectRuleSetDir();
if (!found) throw new Error("eval:detection needs Debian's modsecurity-crs package (/usr/share/modsecurity-crs)");

const dir = await mkdtemp(join(tmpdir(), 'rampart-eval-detection-'));
const nginxes: TestNginx[] = [];
let engine: Awaited<ReturnType<typeof startEngineProcess>> | undefined;

async function startNginx(name: string, http: string, main?: string): Promise<void> {
  const nginx = new TestNginx(join(dir, name));
  nginxes.push(nginx);
  await nginx.start(http, main ? { main } : {});
}

/** The origin answers 200 to everything: any other status on the way back is the WAF's. */
async function startOrigin(): Promise<number> {
  const port = await freePort();
  await startNginx(
    'origin',
    `    server {
        listen 127.0.0.1:${port};
        client_max_body_size 10m;
        location / { return 200 "ok\\n"; }
    }`,
  );
  return port;
}

async function startModsecurity(originPort: number, paranoia: 1 | 2): Promise<Side> {
  const rules = join(dir, `modsecurity-pl${paranoia}.conf`);
  const conf = modsecurityConf({ dir: found!.dir, setupFile: found!.options.setupFile }, false).replace(
    /^Include (.*\/rules\/\*\.conf)$/m,
    `SecAction "id:900000,phase:1,pass,nolog,t:none,setvar:tx.paranoia_level=${paranoia},setvar:tx.blocking_paranoia_level=${paranoia}"\nInclude $1`,
  );
  await writeFile(rules, conf);
  const port = await freePort();
  await startNginx(
    `modsec-pl${paranoia}`,
    `    server {
        listen 127.0.0.1:${port};
        client_max_body_size 10m;
        modsecurity on;
        modsecurity_rules_file ${rules};
        location / {
            proxy_pass http://127.0.0.1:${originPort};
            proxy_set_header Host $host;
        }
    }`,
    'load_module /usr/lib/nginx/modules/ngx_http_modsecurity_module.so;',
  );
  return {
    name: `modsecurity_pl${paranoia}`,
    judge: async (r) => (await send(port, r.method, r.uri, withBodyLength(r.headers, r.body), r.body)).status === 403,
  };
}

function withBodyLength(headers: Record<string, string>, body: string | undefined): Record<string, string> {
  return body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
}

async function setLevel(admin: ApiClient, siteId: string, level: Level, secondOpinion: boolean): Promise<void> {
  for (const group of GROUPS) {
    const res = await admin.request('PUT', `/sites/${siteId}/basic-rules/groups/${group}`, { enabled: true, level });
    if (res.status !== 200) throw new Error(`group ${group} of ${siteId} was not set to ${level}: ${res.status}`);
  }
  const res = await admin.request('PUT', `/sites/${siteId}/basic-rules/second-opinion`, { enabled: secondOpinion });
  if (res.status !== 200) throw new Error(`the second opinion of ${siteId} was not set: ${res.status}`);
}

/** The two Rampart access methods at both levels: four sites on one engine. */
async function startRampart(originPort: number): Promise<Side[]> {
  if (!process.env.BENCH_NO_BUILD) execFileSync(process.execPath, ['scripts/build-engine.mjs'], { stdio: 'ignore' });
  const gatewayPort = await freePort();
  const dataDir = join(dir, 'engine', 'data');
  engine = await startEngineProcess({
    RAMPART_DATA: dataDir,
    RAMPART_EDITION: 'B',
    RAMPART_CONSOLE_HOST: '127.0.0.1',
    RAMPART_CONSOLE_PORT: String(await freePort()),
    RAMPART_GATEWAY_HOST: '127.0.0.1',
    RAMPART_GATEWAY_PORT: String(gatewayPort),
    RAMPART_GATEWAY_LOG_PORT: String(await freePort()),
    RAMPART_INTAKE_PORT: String(await freePort()),
    RAMPART_PROXY_HOST: '127.0.0.1',
    RAMPART_LOG_LEVEL: 'warn',
  });
  const admin = new ApiClient(engine.consoleUrl);
  await admin.setup('eval@example.com', 'Kettle#Blue7');
  const ruleSet = await admin.request<{ state: string; version: string }>('GET', '/rule-set');
  if (ruleSet.body.state !== 'loaded') throw new Error('the engine found no Core Rule Set');
  console.log(`# rule set: CRS ${ruleSet.body.version} on both sides`);
  const global = await admin.request<{ accessKey: string }>('PUT', '/site-global', {
    tokenCookieName: 'rampart_token',
    identityCookieName: 'rampart_id',
    tokenExpirySeconds: 86_400,
    ipLock: false,
  });
  const config = (await readConfigDocument(dataDir)) as unknown as { secrets: { tokenKey: string } };
  const tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);
  const tokenFor = (siteId: string): string =>
    tokens.issue({ siteId, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 86_400 });
  const withToken = (headers: Record<string, string>, token: string): Record<string, string> => ({
    ...headers,
    cookie: headers.cookie ? `${headers.cookie}; rampart_token=${token}` : `rampart_token=${token}`,
  });

  const sides: Side[] = [];
  for (const { name: variant, level, secondOpinion } of VARIANTS) {
    const proxyPort = await freePort();
    const domain = `proxy-${variant.replace('_', '-')}.example.com`;
    const proxy = await admin.request<{ id: string }>('POST', '/sites', {
      name: `proxy ${variant}`,
      domain,
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
    if (proxy.status !== 201)
      throw new Error(`the CNAME site was not created: ${proxy.status} ${JSON.stringify(proxy.body)}`);
    await setLevel(admin, proxy.body.id, level, secondOpinion);
    await proxyListening(admin, proxyPort);
    const proxyToken = tokenFor(proxy.body.id);
    const proxyClient = clientAddresses(127);
    sides.push({
      name: `proxy_${variant}`,
      judge: async (r) => {
        const headers = withBodyLength(withToken({ ...r.headers, host: domain }, proxyToken), r.body);
        return (await send(proxyPort, r.method, r.uri, headers, r.body, proxyClient())).status !== 200;
      },
    });

    const pluginDomain = `plugin-${variant.replace('_', '-')}.example.com`;
    const plugin = await admin.request<{ id: string }>('POST', '/sites', {
      name: `plugin ${variant}`,
      domain: pluginDomain,
      runMode: 'monitor',
      accessMethod: 'plugin',
    });
    if (plugin.status !== 201) throw new Error(`the plugin site was not created: ${plugin.status}`);
    await setLevel(admin, plugin.body.id, level, secondOpinion);
    const pluginToken = tokenFor(plugin.body.id);
    const pluginClient = clientAddresses(10);
    sides.push({
      name: `plugin_${variant}`,
      judge: async (r) => {
        // As nginx's auth_request sends it: the client's headers and method, no body.
        const headers: Record<string, string> = {
          ...withToken({ ...r.headers, host: pluginDomain }, pluginToken),
          'x-rampart-site': plugin.body.id,
          'x-rampart-key': global.body.accessKey,
          'x-rampart-remote-addr': pluginClient(),
          'x-original-uri': r.uri,
          'x-original-method': r.method,
          ...(r.body === undefined ? {} : { 'x-original-content-length': String(Buffer.byteLength(r.body)) }),
        };
        const answer = await send(gatewayPort, 'GET', '/_rampart/verdict', headers);
        return answer.headers['x-rampart-guard'] === 'OWASP';
      },
    });
  }
  // Building the sites' rules happens on the engine's thread after each save: let it settle.
  await sleep(2_000);
  return sides;
}

interface Tally {
  total: number;
  blocked: number;
}

function tallyBy(requests: readonly EvalRequest[], blocked: readonly boolean[], key: (r: EvalRequest) => string) {
  const out = new Map<string, Tally>();
  requests.forEach((r, i) => {
    const k = key(r);
    const t = out.get(k) ?? { total: 0, blocked: 0 };
    t.total++;
    if (blocked[i]) t.blocked++;
    out.set(k, t);
  });
  return out;
}

const pct = (t: Tally): number => (t.total === 0 ? 0 : (100 * t.blocked) / t.total);

try {
  const corpus = buildCorpus();
  line('eval_attacks', corpus.attacks.length, 'requests');
  line('eval_benign', corpus.benign.length, 'requests');
  const originPort = await startOrigin();
  const sides = [
    await startModsecurity(originPort, 1),
    await startModsecurity(originPort, 2),
    ...(await startRampart(originPort)),
  ];
  const results = new Map<string, { attacks: boolean[]; benign: boolean[] }>();
  for (const side of sides) {
    const benign = await pooled(corpus.benign, (r) => side.judge(r));
    const attacks = await pooled(corpus.attacks, (r) => side.judge(r));
    // Still passing the first benign requests after the attacks: nothing the attacks set off
    // (a ban) was standing in for detection.
    const after = await pooled(corpus.benign.slice(0, 20), (r) => side.judge(r));
    const drift = after.filter((b, i) => b !== benign[i]).length;
    if (drift > 0) console.log(`# ${side.name}: ${drift} of 20 benign requests answered differently after the attacks`);
    results.set(side.name, { attacks, benign });
  }

  for (const side of sides) {
    const r = results.get(side.name)!;
    const detected = r.attacks.filter(Boolean).length;
    const falsePositives = r.benign.filter(Boolean).length;
    const accuracy = (100 * (detected + (r.benign.length - falsePositives))) / (r.attacks.length + r.benign.length);
    line(`${side.name}_detection_pct`, (100 * detected) / r.attacks.length, '%', 1);
    line(`${side.name}_false_positive_pct`, (100 * falsePositives) / r.benign.length, '%', 1);
    line(`${side.name}_accuracy_pct`, accuracy, '%', 1);
  }

  // Per group and per place, side by side.
  const names = sides.map((s) => s.name);
  console.log(`# detection by attack family (% blocked): ${names.join(' | ')}`);
  const attackGroups = (r: EvalRequest): string => r.group.replace(/-(upper|comments|mixed-case|clause)(-upper)?$/, '');
  for (const [label, key] of [
    ['family', attackGroups],
    ['place', (r: EvalRequest) => r.place],
  ] as const) {
    const rows = new Map<string, string[]>();
    for (const name of names) {
      for (const [k, t] of tallyBy(corpus.attacks, results.get(name)!.attacks, key)) {
        const row = rows.get(k) ?? [];
        row.push(`${pct(t).toFixed(1)}`);
        rows.set(k, row);
      }
    }
    for (const [k, row] of rows) {
      const total = corpus.attacks.filter((r) => key(r) === k).length;
      console.log(`#   attacks ${label} ${k} (${total}): ${row.join(' | ')}`);
    }
  }
  console.log(`# false positives by benign kind (% blocked): ${names.join(' | ')}`);
  for (const [label, key] of [
    ['kind', (r: EvalRequest) => r.group],
    ['place', (r: EvalRequest) => r.place],
  ] as const) {
    const rows = new Map<string, string[]>();
    for (const name of names) {
      for (const [k, t] of tallyBy(corpus.benign, results.get(name)!.benign, key)) {
        const row = rows.get(k) ?? [];
        row.push(`${pct(t).toFixed(1)}`);
        rows.set(k, row);
      }
    }
    for (const [k, row] of rows) {
      const total = corpus.benign.filter((r) => key(r) === k).length;
      console.log(`#   benign ${label} ${k} (${total}): ${row.join(' | ')}`);
    }
  }
} finally {
  agent.destroy();
  await engine?.stop();
  for (const nginx of nginxes) await nginx.stop();
  await rm(dir, { recursive: true, force: true });
}
