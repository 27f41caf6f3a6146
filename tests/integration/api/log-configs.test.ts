/**
 * Log configurations over a real engine (spec 2.2, issue 14): a custom TCP configuration is made,
 * its certificate bundle downloaded, and a TLS sender with that bundle gets its lines parsed into
 * the configuration's log (searchable at once, indexed on its key fields), with the raw log showing
 * every line (the parsed ones read from the configuration's log) and the failures counted and kept with their reason; edit rules, copies, unique names,
 * read-only access configurations, the live preview in both languages, quick add, regeneration
 * cutting off the old bundle, and bad input answered with the field that is wrong.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';

const PASSWORD = 'Kettle#Blue7';
let engine: TestEngine;
let admin: ApiClient;
let intakePort: number;
let work: string;

interface View {
  id: string;
  name: string;
  kind: string;
  method: string | null;
  log: string | null;
  fields: unknown[];
  certificate: { fingerprint: string } | null;
  broker: { passwordSet: boolean } | null;
}

const plainText = (name: string) => ({
  name,
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
    { kind: 'regex', name: 'user', type: 'string', regex: 'user=(\\w+)', group: 1, required: false },
    { kind: 'regex', name: 'port', type: 'integer', regex: 'port (\\d+)', group: 1, required: false },
  ],
  keyFields: { ip: 'src_ip', user: 'user' },
  sampleData: 'Nov 27 08:15:02 host sshd[1]: Failed password for user=root from 203.0.113.9 port 5022',
});

/** The files of a downloaded bundle. */
async function unzip(zip: Buffer): Promise<(name: string) => string> {
  const file = join(work, `bundle-${Math.random().toString(36).slice(2)}.zip`);
  await writeFile(file, zip);
  return (name) => execFileSync('unzip', ['-p', file, name]).toString();
}

async function download(id: string): Promise<Buffer> {
  const response = await fetch(`${engine.url}/api/v1/log-configs/${id}/certificate`, {
    headers: { cookie: admin.cookie ?? '' },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/zip');
  return Buffer.from(await response.arrayBuffer());
}

/** A TLS sender with a bundle's certificate; resolves once the server accepted it (or rejects). */
function sender(files: (name: string) => string): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: '127.0.0.1',
      port: intakePort,
      cert: files('csr_cert.pem'),
      key: files('private_key.pem'),
      // anon mode (spec 4.1): the sender does not check the server.
      rejectUnauthorized: false,
    });
    socket.once('secureConnect', () => resolve(socket));
    socket.once('error', reject);
  });
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rampart-logcfg-'));
  intakePort = await freePort();
  engine = await startTestEngine(
    { RAMPART_EDITION: 'B', RAMPART_INTAKE_PORT: String(intakePort) },
    { ruleSetLocations: [] },
  );
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', PASSWORD);
}, 60_000);

afterAll(async () => {
  await engine?.dispose();
  await rm(work, { recursive: true, force: true });
});

describe('a custom TCP log configuration', () => {
  let config: View;

  it('is created with its own certificate bundle, which holds a working rsyslog configuration', async () => {
    const created = await admin.request<View>('POST', '/log-configs', plainText('sshd'));
    expect(created.status, created.text).toBe(201);
    config = created.body;
    expect(config).toMatchObject({ kind: 'custom', method: 'tcp', log: `custom:${config.id}` });
    expect(config.certificate?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const files = await unzip(await download(config.id));
    expect(files('ca_cert.pem')).toContain('BEGIN CERTIFICATE');
    expect(files('private_key.pem')).toContain('PRIVATE KEY');
    expect(files('rsyslog.conf')).toMatch(new RegExp(`port="${intakePort}"`));
    expect(files('rsyslog.conf')).toContain('StreamDriverAuthMode="anon"');
  });

  it('parses what a sender with that bundle sends into its log, searchable and indexed on its key fields', async () => {
    const socket = await sender(await unzip(await download(config.id)));
    socket.write('Nov 27 08:15:02 host sshd[1]: Failed password for user=root from 203.0.113.9 port 5022\n');
    socket.write('Nov 27 08:15:03 host sshd[1]: Failed password for user=admin from 203.0.113.10 port 5023\n');
    // no source address: the required field is missing, so the record is discarded (spec 7)
    socket.write('Nov 27 08:15:04 host sshd[1]: session opened\n');
    socket.end();
    const status = await until(
      async () =>
        (
          await admin.request<{ received: number; parsed: number; discarded: number }>(
            'GET',
            `/log-configs/${config.id}/status`,
          )
        ).body,
      (s) => s.received >= 3,
    );
    expect(status).toMatchObject({ received: 3, parsed: 2, discarded: 1 });
    const full = await admin.request<{
      failed: { code: string; field: string; reason: string; params: Record<string, unknown>; line: string }[];
      tcp: { connectionsTotal: number; listening: boolean; address: string };
    }>('GET', `/log-configs/${config.id}/status`);
    expect(full.body.failed[0]).toMatchObject({
      code: 'required_field_missing',
      field: 'src_ip',
      reason: 'Required field must not be empty: src_ip',
      params: { field: 'src_ip' },
    });
    expect(full.body.failed[0]?.line).toContain('session opened');
    expect(full.body.tcp.connectionsTotal).toBe(1);
    expect(full.body.tcp).toMatchObject({ listening: true, address: `127.0.0.1:${intakePort}` });

    const found = await admin.request<{ records: { record: Record<string, unknown> }[]; plan: string }>(
      'POST',
      '/logs/search',
      {
        log: `custom:${config.id}`,
        range: { all: true },
        query: 'src_ip:203.0.113.9',
      },
    );
    expect(found.status, found.text).toBe(200);
    expect(found.body.plan).toBe('index');
    expect(found.body.records).toHaveLength(1);
    expect(found.body.records[0]?.record).toMatchObject({
      src_ip: '203.0.113.9',
      user: 'root',
      port: 5022,
      parsed: 1,
      log_setting_id: config.id,
    });
    // key field `user` is indexed too
    const byUser = await admin.request<{ plan: string; records: unknown[] }>('POST', '/logs/search', {
      log: `custom:${config.id}`,
      range: { all: true },
      query: 'user:admin',
    });
    expect(byUser.body).toMatchObject({ plan: 'index' });
    expect(byUser.body.records).toHaveLength(1);
    // the raw log keeps every line, the failed one with parsed 0 and its reason
    const raw = await admin.request<{ records: { record: Record<string, unknown> }[] }>('POST', '/logs/search', {
      log: 'raw',
      range: { all: true },
      query: 'parsed:0',
    });
    expect(raw.body.records.map((r) => r.record)).toEqual([
      expect.objectContaining({
        parsed: 0,
        reason: 'Required field must not be empty: src_ip',
        log_setting_id: config.id,
      }),
    ]);
    // ...and the parsed ones, read from the configuration's log with the raw log's fields only
    const lines = await admin.request<{ records: { record: Record<string, unknown> }[] }>('POST', '/logs/search', {
      log: 'raw',
      range: { all: true },
      query: `log_setting_id:${config.id}`,
    });
    expect(lines.body.records.map((r) => r.record.raw_data)).toEqual([
      expect.stringContaining('session opened'),
      expect.stringContaining('user=admin'),
      expect.stringContaining('user=root'),
    ]);
    expect(lines.body.records.map((r) => Object.keys(r.record).sort())).toContainEqual([
      '_timestamp',
      'log_id',
      'log_setting_id',
      'parsed',
      'raw_data',
    ]);
    // the log picker names it
    const logs = await admin.request<{ items: { log: string; label: string; kind: string }[] }>('GET', '/logs');
    expect(logs.body.items).toContainEqual(
      expect.objectContaining({ log: `custom:${config.id}`, label: 'sshd', kind: 'custom' }),
    );
  });

  it('refuses a sender whose bundle was regenerated', async () => {
    const old = await unzip(await download(config.id));
    const regenerated = await admin.request<View>('POST', `/log-configs/${config.id}/certificate`);
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.certificate?.fingerprint).not.toBe(config.certificate?.fingerprint);
    await expect(
      sender(old).then(
        (socket) =>
          new Promise((resolve, reject) => {
            // TLS 1.3 reports a refused client certificate after the handshake: the server closes.
            socket.once('close', () => reject(new Error('closed')));
            socket.once('error', reject);
            socket.write('Nov 27 08:15:05 host x: from 198.51.100.1\n', () => setTimeout(() => resolve('open'), 1000));
          }),
      ),
    ).rejects.toThrow();
    const fresh = await sender(await unzip(await download(config.id)));
    fresh.end();
  });

  it('keeps its field areas and method in an edit, and its name unique', async () => {
    const changed = plainText('sshd');
    changed.fields = changed.fields.slice(0, 2);
    const edit = await admin.request<{ error: { code: string; field: string; params: { code: string } } }>(
      'PUT',
      `/log-configs/${config.id}`,
      changed,
    );
    expect(edit.status).toBe(400);
    expect(edit.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'fields',
      params: { code: 'fields_locked' },
    });
    const renamed = await admin.request<View>('PUT', `/log-configs/${config.id}`, {
      ...plainText('sshd logs'),
      keyFields: { ip: 'src_ip' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.name).toBe('sshd logs');
    const twin = await admin.request<{ error: { code: string } }>('POST', '/log-configs', plainText('sshd logs'));
    expect(twin.status).toBe(409);
    expect(twin.body.error.code).toBe('NAME_TAKEN');
  });

  it('is copied under a new name with a certificate of its own, and deleted', async () => {
    const copy = await admin.request<View>('POST', `/log-configs/${config.id}/copy`, {});
    expect(copy.status, copy.text).toBe(201);
    expect(copy.body.name).toBe('sshd logs copy');
    expect(copy.body.certificate?.fingerprint).not.toBe(config.certificate?.fingerprint);
    expect((await admin.request('DELETE', `/log-configs/${copy.body.id}`)).status).toBe(204);
    expect((await admin.request('GET', `/log-configs/${copy.body.id}`)).status).toBe(404);
  });
});

describe('configurations that are refused', () => {
  it('names every problem: no required field, a regex that could backtrack, a group out of range, an unknown zone', async () => {
    const config = plainText('bad');
    config.fields = [
      { kind: 'regex', name: 'a', type: 'string', regex: '(x+)\\1', group: 1, required: false },
      { kind: 'regex', name: 'b', type: 'string', regex: '(y)', group: 3, required: false },
    ];
    const response = await admin.request<{ error: { problems: { field: string; params: { code: string } }[] } }>(
      'POST',
      '/log-configs',
      { ...config, timezone: 'Mars/Olympus' },
    );
    expect(response.status).toBe(400);
    const problems = response.body.error.problems.map((p) => [p.field, p.params.code]);
    expect(problems).toEqual(
      expect.arrayContaining([
        ['fields', 'required_field_none'],
        ['fields[0].regex', 'regex_not_linear'],
        ['fields[1].group', 'group_out_of_range'],
        ['timezone', 'timezone_unknown'],
      ]),
    );
  });

  it('refuses a BROKER configuration without its broker, and a shape the schema does not know', async () => {
    const broker = await admin.request<{ error: { field: string } }>('POST', '/log-configs', {
      ...plainText('k'),
      method: 'broker',
    });
    expect(broker.status).toBe(400);
    expect(broker.body.error.field).toBe('broker');
    // the test engine may reach loopback brokers only (RAMPART_KAFKA_BROKERS_ALLOWED)
    const far = await admin.request<{ error: { field: string; params: { code: string } } }>('POST', '/log-configs', {
      ...plainText('k'),
      method: 'broker',
      broker: { address: '10.9.9.9:9092', topic: 'logs' },
    });
    expect(far.status).toBe(400);
    expect(far.body.error).toMatchObject({ field: 'broker.address', params: { code: 'broker_not_allowed' } });
    const extra = await admin.request('POST', '/log-configs', { ...plainText('k'), surprise: 1 });
    expect(extra.status).toBe(400);
  });

  it('keeps an access configuration read-only but lets it be copied into a TCP one', async () => {
    const site = await admin.request<{ id: string }>('POST', '/sites', { name: 'Shop', domain: 'shop.example.com' });
    const access = (await admin.request<{ items: View[] }>('GET', '/log-configs')).body.items.find(
      (c) => c.kind === 'access',
    );
    expect(access).toMatchObject({ kind: 'access', method: null, log: null });
    const edit = await admin.request<{ error: { params: { code: string } } }>(
      'PUT',
      `/log-configs/${access?.id}`,
      plainText('x'),
    );
    expect(edit.status).toBe(400);
    expect(edit.body.error.params.code).toBe('log_config_read_only');
    expect((await admin.request('DELETE', `/log-configs/${access?.id}`)).status).toBe(400);
    const copy = await admin.request<View>('POST', `/log-configs/${access?.id}/copy`, { name: 'Shop access over TCP' });
    expect(copy.status, copy.text).toBe(201);
    expect(copy.body).toMatchObject({ kind: 'custom', method: 'tcp', name: 'Shop access over TCP' });
    expect(site.status).toBe(201);
  });
});

describe('the form helpers', () => {
  it('previews a sample: the record, or the failure in the asked language', async () => {
    const config = plainText('preview');
    const parsed = await admin.request<{ outcome: string; record: Record<string, unknown> }>(
      'POST',
      '/log-configs/preview',
      {
        config,
        sample: config.sampleData,
      },
    );
    expect(parsed.body).toMatchObject({
      outcome: 'parsed',
      record: { src_ip: '203.0.113.9', user: 'root', port: 5022 },
    });
    const zh = await admin.request<{ outcome: string; text: string }>('POST', '/log-configs/preview', {
      config,
      sample: 'Nov 27 08:15:04 host sshd[1]: session opened',
      locale: 'zh-CN',
    });
    expect(zh.body).toEqual({
      outcome: 'failed',
      code: 'required_field_missing',
      field: 'src_ip',
      text: '必要字段不允许为空: src_ip',
    });
  });

  it('guesses json fields from a sample, and says why a sample is not JSON', async () => {
    const guessed = await admin.request<{ fields: { name: string; source: string; type: string }[] }>(
      'POST',
      '/log-configs/guess-fields',
      {
        sample: '{"ip":"10.0.0.1","n":3,"t":1.5,"u":{"name":"bob"}}',
        templateType: 'json',
      },
    );
    expect(guessed.body.fields.map((f) => [f.source, f.type])).toEqual([
      ['ip', 'string'],
      ['n', 'integer'],
      ['t', 'float'],
      ['u.name', 'string'],
    ]);
    const bad = await admin.request<{ error: { field: string } }>('POST', '/log-configs/guess-fields', {
      sample: '{oops',
      templateType: 'json',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('sample');
  });
});
