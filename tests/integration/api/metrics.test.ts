/**
 * Health and metrics (issue 19, item 6): after verdicts and a TLS intake's lines, `/metrics` holds
 * the counters with their labels and values in Prometheus's text format; it answers administrators
 * and the bearer token of RAMPART_METRICS_TOKEN, nobody else; `/api/v1/health` tells signed-in
 * callers which parts are up and anonymous ones only what it always did.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { rawRequest } from '../../support/http.ts';

const TOKEN = 'scrape-token-0123456789abcdef';
let engine: TestEngine;
let admin: ApiClient;
let intakePort: number;
let work: string;
let site: string;
let config: string;
const guards = new Map<string, number>();

async function check(uri: string): Promise<void> {
  const key = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
  const res = await rawRequest(`${engine.gatewayUrl}/_rampart/check`, {
    method: 'POST',
    headers: { 'x-rampart-site': site, 'x-rampart-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      method: 'GET',
      uri,
      remoteAddr: '198.51.100.30',
      headers: { host: 'shop.example.com', 'user-agent': 'Mozilla/5.0' },
    }),
  });
  expect(res.status, res.text).toBe(200);
  const guard = (JSON.parse(res.text) as { guard_status: string }).guard_status;
  guards.set(guard, (guards.get(guard) ?? 0) + 1);
}

/** Sends lines over the TLS intake with the configuration's downloaded certificate bundle. */
async function sendOverIntake(lines: string[]): Promise<void> {
  const response = await fetch(`${engine.url}/api/v1/log-configs/${config}/certificate`, {
    headers: { cookie: admin.cookie ?? '' },
  });
  const zip = join(work, 'bundle.zip');
  await writeFile(zip, Buffer.from(await response.arrayBuffer()));
  const file = (name: string): string => execFileSync('unzip', ['-p', zip, name]).toString();
  const socket = connect({
    host: '127.0.0.1',
    port: intakePort,
    cert: file('csr_cert.pem'),
    key: file('private_key.pem'),
    rejectUnauthorized: false,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  for (const line of lines) socket.write(`${line}\n`);
  socket.end();
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    const status = await admin.request<{ received: number }>('GET', `/log-configs/${config}/status`);
    if (status.body.received >= lines.length) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const scrape = (headers: Record<string, string> = {}): Promise<Response> => fetch(`${engine.url}/metrics`, { headers });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rampart-metrics-'));
  intakePort = await freePort();
  engine = await startTestEngine(
    { RAMPART_EDITION: 'B', RAMPART_INTAKE_PORT: String(intakePort), RAMPART_METRICS_TOKEN: TOKEN },
    { ruleSetLocations: [] },
  );
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  site = (
    await admin.request<{ id: string }>('POST', '/sites', {
      name: 'shop',
      domain: 'shop.example.com',
      runMode: 'block',
      accessMethod: 'plugin',
    })
  ).body.id;
  const created = await admin.request<{ id: string }>('POST', '/log-configs', {
    name: 'sshd',
    method: 'tcp',
    templateType: 'plain_text',
    time: { mode: 'extract', format: { custom: 'MMM DD hh:mm:ss' }, field: '^(\\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d)' },
    timezone: 'UTC',
    fields: [
      {
        kind: 'regex',
        name: 'src_ip',
        type: 'string',
        regex: 'from (\\d+\\.\\d+\\.\\d+\\.\\d+)',
        group: 1,
        required: true,
      },
    ],
    keyFields: { ip: 'src_ip' },
    sampleData: 'Nov 27 08:15:02 host sshd[1]: Failed password from 203.0.113.9 port 5022',
  });
  expect(created.status, created.text).toBe(201);
  config = created.body.id;
  for (const uri of ['/', '/cart', '/item?id=1']) await check(uri);
  await sendOverIntake([
    'Nov 27 08:15:02 host sshd[1]: Failed password from 203.0.113.9 port 5022',
    'Nov 27 08:15:03 host sshd[1]: Failed password from 203.0.113.10 port 5023',
    // no source address: the required field is missing, so it is discarded
    'Nov 27 08:15:04 host sshd[1]: session opened',
  ]);
}, 60_000);

afterAll(async () => {
  await engine?.dispose();
  await rm(work, { recursive: true, force: true });
});

describe('GET /metrics', () => {
  it('counts the verdicts by site and guard status, and what each source ingested', async () => {
    const res = await scrape({ cookie: admin.cookie ?? '' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect([...guards.values()].reduce((a, b) => a + b, 0)).toBe(3);
    for (const [guard, count] of guards)
      expect(text).toContain(`rampart_verdicts_total{site="${site}",guard_status="${guard}"} ${count}\n`);
    expect(text).toContain('rampart_ingest_records_total{source="tcp"} 3\n');
    expect(text).toContain('rampart_ingest_records_total{source="kafka"} 0\n');
    expect(text).toContain('rampart_ingest_records_total{source="gateway"} 3\n');
    expect(text).toContain(`rampart_ingest_discarded_total{config="${config}"} 1\n`);
  });

  it('times the WAF of every verdict and reports the store size and event-loop delay', async () => {
    const text = await (await scrape({ authorization: `Bearer ${TOKEN}` })).text();
    expect(text).toContain('rampart_waf_seconds_count 3\n');
    expect(text).toMatch(/^rampart_waf_seconds_bucket\{le="0\.00001"\} \d+$/m);
    expect(text).toMatch(/^rampart_log_store_bytes \d+$/m);
    expect(text).toMatch(/^rampart_event_loop_delay_seconds\{quantile="0\.99"\} [\d.e-]+$/m);
    // prom-client's default metrics, in this engine's own registry
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
  });

  it('refuses anonymous callers and a wrong token, and accepts the token of RAMPART_METRICS_TOKEN', async () => {
    const anonymous = await scrape();
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
    expect((await scrape({ authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await scrape({ authorization: TOKEN })).status).toBe(401);
    expect((await scrape({ authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('refuses a signed-in user who is not an administrator', async () => {
    const created = await admin.request<{ delivery: { link: string } }>('POST', '/accounts', {
      email: 'user@example.com',
      role: 'user',
    });
    const token = new URL(created.body.delivery.link).searchParams.get('token');
    const activated = await new ApiClient(engine.url).request('POST', '/links/complete', {
      token,
      password: 'Kettle#Blue7',
    });
    expect(activated.status).toBe(204);
    const user = new ApiClient(engine.url);
    await user.signIn('user@example.com', 'Kettle#Blue7');
    const res = await scrape({ cookie: user.cookie ?? '' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN_ROLE');
    expect((await user.request('GET', '/system/metrics')).status).toBe(403);
  });
});

describe('GET /api/v1/health', () => {
  it('tells anonymous callers only that the engine answers, and its version', async () => {
    const res = await new ApiClient(engine.url).request('GET', '/health');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['status', 'version']);
  });

  it('tells signed-in callers which parts are up', async () => {
    const res = await admin.request<{ parts: Record<string, unknown> }>('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body.parts).toMatchObject({
      gateway: { state: 'listening', port: Number(new URL(engine.gatewayUrl).port) },
      intake: { state: 'listening', port: intakePort },
      kafka: [],
      store: { state: 'open', message: null },
      disk: { state: expect.stringMatching(/^(ok|over)$/) as unknown, minFreeRatio: 0.1, maxBytes: null },
    });
  });
});

describe('GET /api/v1/system/metrics', () => {
  it('gives the console its headline figures', async () => {
    const res = await admin.request<Record<string, unknown>>('GET', '/system/metrics');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      verdicts: [...guards].map(([guardStatus, count]) => ({ guardStatus, count })),
      ingest: { tcp: 3, kafka: 0, gateway: 3 },
    });
    expect(typeof res.body.storeBytes).toBe('number');
  });
});
