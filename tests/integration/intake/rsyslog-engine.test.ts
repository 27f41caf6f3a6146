import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueBundle } from '../../../engine/intake/certificates.ts';
import { ApiClient } from '../../support/api-client.ts';
import { freePort, startTestEngine, type TestEngine } from '../../support/engine.ts';
import { skipAllWithout } from '../../support/skip.ts';
import { freeUdpPort, rsyslogMissing } from './support.ts';

// Issue 14's rsyslog acceptance, through the whole engine: two log configurations made in the
// console API (plain_text and json), each bundle downloaded and installed as its README says (only
// the folder differs: a temporary one instead of /etc/rsyslog.d/rampart/<id>), one real rsyslogd
// per sending host receiving `logger` lines on a loopback UDP port and forwarding them over TLS;
// each line arrives parsed in its own configuration's log. A sender without a certificate, or with
// one from a foreign CA, is refused.

const RSYSLOGD = '/usr/sbin/rsyslogd';

async function until(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const PLAIN = {
  name: 'rsyslog plain',
  method: 'tcp',
  templateType: 'plain_text',
  time: { mode: 'extract', format: { custom: 'MMM DD hh:mm:ss' }, field: '^(\\w{3} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d)' },
  fields: [
    {
      kind: 'regex',
      name: 'host',
      type: 'string',
      regex: '^\\w{3} [ \\d]\\d [\\d:]{8} (\\S+)',
      group: 1,
      required: true,
    },
    {
      kind: 'regex',
      name: 'severity',
      type: 'string',
      regex: '^\\S+ +\\S+ \\S+ \\S+ (\\S+)',
      group: 1,
      required: false,
    },
    { kind: 'regex', name: 'message', type: 'string', regex: '\\]: (.*)$', group: 1, required: true },
    {
      kind: 'regex',
      name: 'src_ip',
      type: 'string',
      regex: 'from (\\d+\\.\\d+\\.\\d+\\.\\d+)',
      group: 1,
      required: false,
    },
  ],
  keyFields: { ip: 'src_ip' },
};

const JSON_CONFIG = {
  name: 'rsyslog json',
  method: 'tcp',
  templateType: 'json',
  time: { mode: 'extract', format: 'YYYY-MM-DD hh:mm:ss', field: 'timestamp' },
  fields: [
    { kind: 'json', name: 'host', source: 'host', type: 'string', required: true },
    { kind: 'json', name: 'message', source: 'message', type: 'string', required: true },
    { kind: 'json', name: 'app', source: 'app-name', type: 'string', required: false },
    { kind: 'json', name: 'severity', source: 'severity', type: 'string', required: false },
  ],
  keyFields: {},
};

describe('rsyslog senders with downloaded bundles, through the engine', () => {
  const reason = rsyslogMissing();
  skipAllWithout(reason);

  let engine: TestEngine;
  let admin: ApiClient;
  let dir = '';
  let intakePort = 0;
  const daemons: { process: ChildProcess; output: string[]; udpPort: number }[] = [];
  const ids: Record<'plain' | 'json', string> = { plain: '', json: '' };

  /** Unzips a configuration's bundle into its folder and starts an rsyslogd with its rsyslog.conf. */
  async function installBundle(id: string): Promise<{ process: ChildProcess; output: string[]; udpPort: number }> {
    const response = await fetch(`${engine.url}/api/v1/log-configs/${id}/certificate`, {
      headers: { cookie: admin.cookie ?? '' },
    });
    expect(response.status).toBe(200);
    const folder = join(dir, id);
    mkdirSync(join(folder, 'work'), { recursive: true });
    writeFileSync(join(folder, 'bundle.zip'), Buffer.from(await response.arrayBuffer()));
    execFileSync('unzip', ['-o', '-q', join(folder, 'bundle.zip'), '-d', folder]);
    const udpPort = await freeUdpPort();
    // The README's steps, in a temporary folder: the .pem files where the configuration names them,
    // and a UDP input for `logger` (the README says to enable imudp in /etc/rsyslog.conf).
    const bundled = readFileSync(join(folder, 'rsyslog.conf'), 'utf8').replaceAll(
      `/etc/rsyslog.d/rampart/${id}`,
      folder,
    );
    const config = [
      `global(workDirectory="${folder}/work")`,
      'module(load="imudp")',
      `input(type="imudp" address="127.0.0.1" port="${udpPort}")`,
      bundled,
    ].join('\n');
    writeFileSync(join(folder, 'rsyslogd.conf'), config);
    const child = spawn(RSYSLOGD, ['-n', '-f', join(folder, 'rsyslogd.conf'), '-i', join(folder, 'rsyslogd.pid')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const daemon = { process: child, output, udpPort };
    daemons.push(daemon);
    return daemon;
  }

  async function search(log: string, query: string): Promise<Record<string, unknown>[]> {
    const found = await admin.request<{ records: { record: Record<string, unknown> }[] }>('POST', '/logs/search', {
      log,
      range: { all: true },
      query,
    });
    expect(found.status, found.text).toBe(200);
    return found.body.records.map((r) => r.record);
  }

  beforeAll(async () => {
    if (reason !== undefined) return;
    dir = mkdtempSync(join(tmpdir(), 'rampart-rsyslog-engine-'));
    intakePort = await freePort();
    engine = await startTestEngine({ RAMPART_INTAKE_PORT: String(intakePort) }, { ruleSetLocations: [] });
    admin = new ApiClient(engine.url);
    await admin.setup('root@example.com', 'Kettle#Blue7');
    for (const [key, body] of [
      ['plain', PLAIN],
      ['json', JSON_CONFIG],
    ] as const) {
      const created = await admin.request<{ id: string }>('POST', '/log-configs', body);
      expect(created.status, created.text).toBe(201);
      ids[key] = created.body.id;
    }
  }, 60_000);

  afterAll(async () => {
    for (const daemon of daemons) {
      if (daemon.process.exitCode === null) {
        const exited = new Promise((resolve) => daemon.process.once('exit', resolve));
        daemon.process.kill('SIGTERM');
        await exited;
      }
    }
    await engine?.dispose();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('files each sender’s lines, parsed, under the configuration whose bundle it holds', async () => {
    const plain = await installBundle(ids.plain);
    const json = await installBundle(ids.json);
    const marker = `rampart-${Date.now()}`;
    const send = (daemon: typeof plain, text: string): void => {
      if (daemon.process.exitCode !== null) throw new Error(`rsyslogd exited: ${daemon.output.join('')}`);
      execFileSync('logger', ['-d', '-n', '127.0.0.1', '-P', String(daemon.udpPort), '-t', 'sshd', text]);
    };
    // rsyslogd opens its UDP input a moment after it starts, and UDP keeps nothing sent before.
    await until(
      async () => {
        send(plain, `${marker} Failed password from 203.0.113.7`);
        return (await search(`custom:${ids.plain}`, `message:*${marker}*`)).length > 0;
      },
      30_000,
      `a plain_text line through rsyslogd (${plain.output.join('')})`,
    );
    await until(
      async () => {
        send(json, `${marker} order placed`);
        return (await search(`custom:${ids.json}`, `message:*${marker}*`)).length > 0;
      },
      30_000,
      `a json line through rsyslogd (${json.output.join('')})`,
    );
    const [plainRecord] = await search(`custom:${ids.plain}`, `src_ip:203.0.113.7`);
    expect(plainRecord).toMatchObject({ parsed: 1, log_setting_id: ids.plain });
    expect(typeof plainRecord?.host).toBe('string');
    expect(String(plainRecord?.message)).toContain(`${marker} Failed password from 203.0.113.7`);
    const [jsonRecord] = await search(`custom:${ids.json}`, `message:*${marker}*`);
    expect(jsonRecord).toMatchObject({ app: 'sshd', parsed: 1, log_setting_id: ids.json });
    // Nothing crossed over: each log holds only its own sender's lines.
    expect(await search(`custom:${ids.plain}`, 'message:*order*')).toEqual([]);
    expect(await search(`custom:${ids.json}`, 'message:*Failed*')).toEqual([]);
  });

  it('refuses a sender without a certificate, or with one from a foreign CA', async () => {
    const refused = (options: { cert?: string; key?: string }): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: intakePort, rejectUnauthorized: false, ...options });
        socket.once('error', () => resolve('refused'));
        socket.once('close', () => resolve('refused'));
        socket.once('secureConnect', () => socket.write('Nov 27 08:15:05 host x [1]: from 198.51.100.1\n'));
        setTimeout(() => resolve('open'), 3000);
      });
    expect(await refused({})).toBe('refused');
    const foreign = issueBundle({ configId: 'foreign', configName: 'Foreign', now: Date.now() });
    expect(await refused({ cert: foreign.clientCertPem, key: foreign.clientKeyPem })).toBe('refused');
    expect(await search(`custom:${ids.plain}`, 'src_ip:198.51.100.1')).toEqual([]);
  });
});
