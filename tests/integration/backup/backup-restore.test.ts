import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackup, readHeader, restoreBackup, writeArchive } from '#engine/backup';
import { SCHEMA_VERSION, SECRET_KEY_FILE_NAME } from '#engine/config-store';
import { systemClock } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { TestSmtpServer } from '../../support/smtp.ts';
import { ApiClient } from '../../support/api-client.ts';
import { rawRequest } from '../../support/http.ts';

const PASSWORD = 'Kettle#Blue7';
const PASSPHRASE = 'correct horse battery staple';
const run = promisify(execFile);

let work: string;
let smtp: TestSmtpServer;
let original: TestEngine;
let admin: ApiClient;
let siteId = '';

/** What an administrator sees of the configuration: the views a restore must give back. */
async function views(client: ApiClient): Promise<Record<string, unknown>> {
  const get = async (path: string): Promise<unknown> => {
    const res = await client.request('GET', path);
    expect(res.status, `GET ${path}: ${res.text}`).toBe(200);
    return res.body;
  };
  const strip = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value), (key: string, v: unknown) =>
      // Runtime state, not configuration: connection status, heartbeats, counters, sessions.
      ['connected', 'lastHeartbeatAt', 'status', 'lastSignInAt', 'counters', 'runtime'].includes(key) ? undefined : v,
    ) as unknown;
  return {
    sites: strip(await get('/sites')),
    site: strip(await get(`/sites/${siteId}`)),
    siteGlobal: await get('/site-global'),
    customRules: await get(`/sites/${siteId}/custom-rules`),
    basicRules: strip(await get(`/sites/${siteId}/basic-rules`)),
    events: strip(await get('/events')),
    rules: strip(await get('/rules')),
    accounts: strip(await get('/accounts')),
    ipLists: await get('/ip-lists'),
    logConfigs: strip(await get('/log-configs')),
    storage: (strip(await get('/storage')) as { retentionDays: unknown }).retentionDays,
  };
}

/** What the verdict says of a few requests to the site (plug-in-less check with the Access Key). */
async function verdicts(engine: TestEngine, key: string): Promise<string[]> {
  const out: string[] = [];
  for (const [uri, ip] of [
    ['/products', '198.51.100.30'],
    ['/admin/users', '198.51.100.30'],
    ['/products', '192.0.2.7'],
  ] as const) {
    const res = await rawRequest(`${engine.gatewayUrl}/_rampart/check`, {
      method: 'POST',
      headers: { 'x-rampart-site': siteId, 'x-rampart-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        method: 'GET',
        uri,
        remoteAddr: ip,
        headers: { host: 'shop.example.com', 'user-agent': 'Mozilla/5.0' },
      }),
    });
    expect(res.status, res.text).toBe(200);
    out.push((JSON.parse(res.text) as { action: string }).action);
  }
  return out;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rampart-backup-'));
  smtp = await new TestSmtpServer().start();
  original = await startTestEngine({ ...smtp.env(), RAMPART_EDITION: 'B' }, { ruleSetLocations: [] });
  admin = new ApiClient(original.url);
  expect((await admin.setup('root@example.com', PASSWORD)).status).toBe(201);
  const site = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'Shop',
    domain: 'shop.example.com',
    runMode: 'block',
    blockList: { pathEnabled: true, paths: ['^/admin'] },
  });
  expect(site.status, site.text).toBe(201);
  siteId = site.body.id;
  const custom = await admin.request('POST', `/sites/${siteId}/custom-rules`, {
    name: 'No wp-login',
    location: 'url',
    conditions: [{ location: 'url', name: '', pattern: 'wp-login' }],
  });
  expect(custom.status, custom.text).toBe(201);
  const access = (
    await admin.request<{ items: { id: string; kind: string; siteId: string | null }[] }>('GET', '/log-configs')
  ).body.items.find((c) => c.kind === 'access' && c.siteId === siteId)!;
  const event = await admin.request<{ id: string }>('POST', '/events', {
    kind: 'simple',
    name: 'Login attempt',
    sources: [access.id],
    relation: 'a',
    conditions: [{ label: 'a', field: 'request', filter: 'string', mode: 'regex', value: '^POST /login' }],
  });
  expect(event.status, event.text).toBe(201);
  await admin.request('POST', `/events/${event.body.id}/enabled`, { enabled: true });
  const rule = await admin.request('POST', '/rules', {
    name: 'Ban logins',
    siteId,
    events: [event.body.id],
    action: 'block',
    target: 'ip',
    durationSeconds: 600,
  });
  expect(rule.status, rule.text).toBe(201);
  expect((await admin.request('PUT', '/ip-lists', { pass: ['10.0.0.0/8'], block: ['192.0.2.7'] })).status).toBe(200);
  expect((await admin.request('POST', '/accounts', { email: 'ops@example.com', role: 'user' })).status).toBe(201);
  expect((await admin.request('PUT', '/storage', { retentionDays: { access: 9 } })).status).toBe(200);
  original.logStore.append(`access:${siteId}`, {
    _timestamp: Date.now() - 60_000,
    src_ip: '203.0.113.9',
    request: 'GET /kept-in-the-backup HTTP/1.1',
    status: 200,
    guard_status: 'PASS',
  });
});

afterAll(async () => {
  await original?.dispose();
  await smtp?.stop();
  await rm(work, { recursive: true, force: true });
});

describe('backup and restore', () => {
  it('restores into a fresh install the same sites, rules, events, accounts and keys, and the logs', async () => {
    const file = join(work, 'full.rbk');
    const summary = await createBackup({
      dataDir: original.dataDir,
      file,
      passphrase: PASSPHRASE,
      logs: original.logStore.entries(),
      engineVersion: original.version,
      clock: systemClock,
    });
    expect(summary.files).toBeGreaterThanOrEqual(1);
    expect(summary.logEntries).toBeGreaterThan(0);
    const archive = await readFile(file);
    // Encrypted: neither the Access Key nor a site name is in the file in clear.
    const before = await views(admin);
    expect(archive.includes(Buffer.from((before.siteGlobal as { accessKey: string }).accessKey))).toBe(false);
    expect(archive.includes(Buffer.from('shop.example.com'))).toBe(false);

    const fresh = join(work, 'fresh');
    const restored = await restoreBackup({ file, passphrase: PASSPHRASE, dataDir: fresh, clock: systemClock });
    expect(restored.header.schemaVersion).toBe(SCHEMA_VERSION);
    // The secret key travels in the (encrypted) archive, so the fresh install opens the sealed secrets.
    expect(await readFile(join(fresh, SECRET_KEY_FILE_NAME), 'utf8')).toBe(
      await readFile(join(original.dataDir, SECRET_KEY_FILE_NAME), 'utf8'),
    );
    const engine = await startTestEngine(
      { ...smtp.env(), RAMPART_EDITION: 'B' },
      { dataDir: fresh, ruleSetLocations: [] },
    );
    try {
      const client = new ApiClient(engine.url);
      // The administrator signs in with the same password: accounts came back with their hashes.
      expect((await client.signIn('root@example.com', PASSWORD)).status).toBe(200);
      expect(await views(client)).toEqual(before);
      // The same answers to the same requests: the site's lists and the global lists came back.
      const key = (before.siteGlobal as { accessKey: string }).accessKey;
      const expected = await verdicts(original, key);
      expect(new Set(expected).size).toBeGreaterThan(1);
      expect(await verdicts(engine, key)).toEqual(expected);
      const found = await client.request<{ records: { record: { request: string } }[] }>('POST', '/logs/search', {
        log: `access:${siteId}`,
        range: { all: true },
      });
      expect(found.body.records.map((r) => r.record.request)).toContain('GET /kept-in-the-backup HTTP/1.1');
    } finally {
      await engine.stop();
    }
  });

  it('leaves the logs out unless asked, and works from the command line with the passphrase on standard input', async () => {
    const file = join(work, 'cli.rbk');
    const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
    const cli = join(process.cwd(), 'engine', 'backup', 'cli.ts');
    const withInput = (args: string[]): Promise<{ stdout: string }> => {
      const child = run(tsx, [cli, ...args], { env: { ...process.env, RAMPART_LOG_LEVEL: 'silent' } });
      child.child.stdin?.end(`${PASSPHRASE}\n`);
      return child;
    };
    const created = await withInput(['create', '--data', original.dataDir, '--out', file]);
    expect(created.stdout).toMatch(/wrote .*cli\.rbk: \d+ files, 0 log entries/);
    expect((await readHeader(file)).header).toMatchObject({ format: 1, logs: false, schemaVersion: SCHEMA_VERSION });
    const target = join(work, 'cli-restore');
    const restored = await withInput(['restore', '--in', file, '--data', target]);
    expect(restored.stdout).toContain('restored');
    const config = JSON.parse(await readFile(join(target, 'config.json'), 'utf8')) as { sites: { id: string }[] };
    expect(config.sites.map((s) => s.id)).toEqual([siteId]);
    expect((await readdir(target)).includes('logs')).toBe(false);
  });

  it('refuses a wrong passphrase and a changed byte, leaving the target as it was', async () => {
    const file = join(work, 'checked.rbk');
    await createBackup({
      dataDir: original.dataDir,
      file,
      passphrase: PASSPHRASE,
      engineVersion: '0.1.0',
      clock: systemClock,
    });
    const target = join(work, 'untouched');
    await expect(
      restoreBackup({ file, passphrase: 'not the passphrase', dataDir: target, clock: systemClock }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', params: { reason: 'backup_passphrase' } });
    const bytes = await readFile(file);
    bytes[bytes.length - 40] = bytes[bytes.length - 40]! ^ 0x01;
    const changed = join(work, 'changed.rbk');
    await writeFile(changed, bytes);
    await expect(
      restoreBackup({ file: changed, passphrase: PASSPHRASE, dataDir: target, clock: systemClock }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(readdir(target)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(work)).filter((name) => name.includes('restoring'))).toEqual([]);
  });

  it('refuses an archive from a newer Rampart, and a target that is not empty', async () => {
    const newer = join(work, 'newer.rbk');
    await writeArchive(
      newer,
      PASSPHRASE,
      { engineVersion: '9.0.0', schemaVersion: SCHEMA_VERSION + 1, createdAt: Date.now(), logs: false },
      (async function* () {})(),
    );
    await expect(
      restoreBackup({ file: newer, passphrase: PASSPHRASE, dataDir: join(work, 'n'), clock: systemClock }),
    ).rejects.toMatchObject({ params: { reason: 'backup_newer' } });
    const future = join(work, 'future-format.rbk');
    const bytes = await readFile(newer);
    await writeFile(future, Buffer.from(bytes.toString('latin1').replace('"format":1', '"format":2'), 'latin1'));
    await expect(readHeader(future)).rejects.toMatchObject({ params: { reason: 'backup_newer' } });

    const file = join(work, 'occupied.rbk');
    await createBackup({
      dataDir: original.dataDir,
      file,
      passphrase: PASSPHRASE,
      engineVersion: '0.1.0',
      clock: systemClock,
    });
    const occupied = join(work, 'occupied');
    await mkdir(occupied);
    await writeFile(join(occupied, 'config.json'), '{}');
    await expect(
      restoreBackup({ file, passphrase: PASSPHRASE, dataDir: occupied, clock: systemClock }),
    ).rejects.toMatchObject({
      params: { reason: 'backup_target_not_empty' },
    });
    const replaced = await restoreBackup({
      file,
      passphrase: PASSPHRASE,
      dataDir: occupied,
      replace: true,
      clock: systemClock,
    });
    expect(replaced.previous).toMatch(/occupied\.before-restore-/);
    expect(await readFile(join(replaced.previous!, 'config.json'), 'utf8')).toBe('{}');
  });
});

describe('backup and restore from the console', () => {
  it('downloads an archive, stages it, and the next start restores it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rampart-console-backup-'));
    let engine = await startTestEngine({ ...smtp.env(), RAMPART_EDITION: 'B' }, { dataDir, ruleSetLocations: [] });
    try {
      const client = new ApiClient(engine.url);
      expect((await client.setup('root@example.com', PASSWORD)).status).toBe(201);
      const site = await client.request<{ id: string }>('POST', '/sites', { name: 'Kept', domain: 'kept.example.com' });
      expect(site.status).toBe(201);
      const short = await client.request<{ error: { field: string } }>('POST', '/system/backup', {
        passphrase: 'short',
      });
      expect([short.status, short.body.error.field]).toEqual([400, 'passphrase']);
      const response = await fetch(`${engine.url}/api/v1/system/backup`, {
        method: 'POST',
        headers: { cookie: client.cookie ?? '', 'x-csrf-token': client.csrf ?? '', 'content-type': 'application/json' },
        body: JSON.stringify({ passphrase: PASSPHRASE, logs: true }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toMatch(/attachment; filename="rampart-backup-.*\.rbk"/);
      const archive = Buffer.from(await response.arrayBuffer());
      const file = join(work, 'console.rbk');
      await writeFile(file, archive);
      expect((await readHeader(file)).header).toMatchObject({ logs: true, schemaVersion: SCHEMA_VERSION });

      expect((await client.request('DELETE', `/sites/${site.body.id}`)).status).toBe(204);
      const upload = { fileName: 'console.rbk', contentBase64: archive.toString('base64') };
      const wrong = await client.request<{ error: { field: string } }>('POST', '/system/restore', {
        ...upload,
        passphrase: 'not the passphrase',
      });
      expect([wrong.status, wrong.body.error.field]).toEqual([400, 'passphrase']);
      const staged = await client.request('POST', '/system/restore', { ...upload, passphrase: PASSPHRASE });
      expect(staged.status, staged.text).toBe(202);
      expect(staged.body).toMatchObject({ pending: true, logs: true, schemaVersion: SCHEMA_VERSION });
      // Until the next start nothing changes.
      expect((await client.request<{ items: unknown[] }>('GET', '/sites')).body.items).toEqual([]);

      await engine.stop();
      engine = await startTestEngine({ ...smtp.env(), RAMPART_EDITION: 'B' }, { dataDir, ruleSetLocations: [] });
      const after = new ApiClient(engine.url);
      expect((await after.signIn('root@example.com', PASSWORD)).status).toBe(200);
      const sites = await after.request<{ items: { id: string; name: string }[] }>('GET', '/sites');
      expect(sites.body.items.map((s) => s.name)).toEqual(['Kept']);
      const kept = (await readdir(join(dataDir, '..'))).filter((name) =>
        name.startsWith(`${basename(dataDir)}.before-restore-`),
      );
      expect(kept).toHaveLength(1);
      await rm(join(dataDir, '..', kept[0]!), { recursive: true, force: true });
    } finally {
      await engine.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
