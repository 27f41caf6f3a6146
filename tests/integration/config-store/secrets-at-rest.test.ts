import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_FILE_NAME, SECRET_KEY_FILE_NAME, readConfigDocument } from '#engine/config-store';
import { totpCode } from '#engine/accounts';
import { ApiClient } from '../../support/api-client.ts';
import { testAuthority, testCertificate } from '../../support/certificates.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

/**
 * Issue 19 item 4: every kind of secret set through the API is absent in clear from the
 * configuration file and from every GET answer, still works after a restart on the same data
 * folder, and a start with a wrong key stops without touching the file.
 */
const PASSWORD = 'Kettle#Blue7';
const BROKER_PASSWORD = 'Broker#Secret-7731';
const WEBHOOK_SECRET = 'webhook-hmac-secret-5150';
const SMTP_PASSWORD = 'Smtp#Relay-Secret-4410';
const DOMAIN = 'vault.example.com';

let dataDir: string;
let engine: TestEngine | undefined;
let admin: ApiClient;
const ids = { site: '', broker: '', tcp: '', rule: '', event: '' };
/** The administrator's recovery codes (two-factor is on for the account from setup on). */
let recoveryCodes: string[] = [];

/** Signs the administrator in: the password, then a recovery code as the second factor. */
async function signInAdmin(): Promise<number> {
  const first = await admin.request<{ challengeId: string }>('POST', '/session', {
    email: 'administrator@example.com',
    password: PASSWORD,
  });
  if (first.status !== 200) return first.status;
  const second = await admin.request<{ csrfToken: string }>('POST', '/session/second-factor', {
    challengeId: first.body.challengeId,
    recoveryCode: recoveryCodes.shift(),
  });
  if (second.status === 200) admin.csrf = second.body.csrfToken;
  return second.status;
}
const certificate = testCertificate(testAuthority(), [DOMAIN]);

async function start(): Promise<void> {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { dataDir, ruleSetLocations: [] });
  admin = new ApiClient(engine.url);
}

/** The secrets as the services see them (the store's document with its secrets opened). */
type SecretName =
  | 'tokenKey'
  | 'accessKey'
  | 'siteKey'
  | 'brokerPassword'
  | 'caKey'
  | 'clientKey'
  | 'intakeKey'
  | 'webhookSecret'
  | 'consoleKey'
  | 'consoleCaKey'
  | 'smtpPassword'
  | 'totpSecret';

async function storedSecrets(): Promise<Record<SecretName, string>> {
  const doc = await readConfigDocument(dataDir);
  const tcp = doc.logConfigs.find((c) => c.id === ids.tcp)!;
  return {
    tokenKey: doc.secrets.tokenKey,
    accessKey: doc.siteGlobal.accessKey,
    siteKey: doc.sites.find((s) => s.id === ids.site)!.certificate!.keyPem,
    brokerPassword: doc.logConfigs.find((c) => c.id === ids.broker)!.broker!.password,
    caKey: tcp.certificate!.caKeyPem,
    clientKey: tcp.certificate!.clientKeyPem,
    intakeKey: doc.intake?.serverKeyPem ?? '',
    webhookSecret: doc.rules.find((r) => r.id === ids.rule)!.notify.webhook!.secret,
    consoleKey: doc.consoleTls!.keyPem,
    consoleCaKey: doc.consoleTls!.ca.keyPem,
    smtpPassword: doc.admin.smtp!.password,
    totpSecret: doc.accounts[0]!.twoFactor!.secret,
  };
}

/** A PEM key's body without its armour lines, to find it however it is wrapped. */
const pemBody = (pem: string): string =>
  pem
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('-----'))
    .slice(0, 2)
    .join('\n');

async function getText(path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${engine!.url}/api/v1${path}`, { headers: { cookie: admin.cookie ?? '' } });
  let bytes = Buffer.from(await response.arrayBuffer());
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  return { status: response.status, text: bytes.toString('utf8') };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'rampart-secrets-'));
  await start();
  expect((await admin.setup('administrator@example.com', PASSWORD)).status).toBe(201);
  const site = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'Vault',
    domain: DOMAIN,
    accessMethod: 'cname',
    cname: { http: false, https: true, originAddress: '127.0.0.1:9' },
  });
  expect(site.status, site.text).toBe(201);
  ids.site = site.body.id;
  const uploaded = await admin.request('PUT', `/sites/${ids.site}/certificate`, {
    certificate: certificate.chain,
    key: certificate.key,
  });
  expect(uploaded.status, uploaded.text).toBe(200);
  const common = { templateType: 'json', time: { mode: 'current' }, timezone: 'UTC', keyFields: { ip: 'src_ip' } };
  const broker = await admin.request<{ id: string }>('POST', '/log-configs', {
    ...common,
    name: 'Kafka app log',
    method: 'broker',
    broker: { address: '127.0.0.1:9', topic: 'app', account: 'svc', password: BROKER_PASSWORD, mechanism: 'plain' },
    fields: [{ kind: 'json', name: 'src_ip', type: 'string', source: 'ip', required: true }],
    sampleData: '{"ip":"203.0.113.9"}',
  });
  expect(broker.status, broker.text).toBe(201);
  ids.broker = broker.body.id;
  const tcp = await admin.request<{ id: string }>('POST', '/log-configs', {
    ...common,
    name: 'app over TLS',
    method: 'tcp',
    fields: [{ kind: 'json', name: 'src_ip', type: 'string', source: 'ip', required: true }],
    sampleData: '{"ip":"203.0.113.9"}',
  });
  expect(tcp.status, tcp.text).toBe(201);
  ids.tcp = tcp.body.id;
  const configs = await admin.request<{ items: { id: string; kind: string; siteId: string | null }[] }>(
    'GET',
    '/log-configs',
  );
  const access = configs.body.items.find((c) => c.kind === 'access' && c.siteId === ids.site)!;
  const event = await admin.request<{ id: string }>('POST', '/events', {
    kind: 'simple',
    name: 'Login attempt',
    sources: [access.id],
    relation: 'a',
    conditions: [{ label: 'a', field: 'request', filter: 'string', mode: 'regex', value: '^POST /login' }],
  });
  expect(event.status, event.text).toBe(201);
  ids.event = event.body.id;
  expect((await admin.request('POST', `/events/${ids.event}/enabled`, { enabled: true })).status).toBe(200);
  const rule = await admin.request<{ id: string }>('POST', '/rules', {
    name: 'Tell the SOC',
    siteId: ids.site,
    events: [ids.event],
    action: 'none',
    target: 'ip',
    durationSeconds: 60,
    notify: { webhook: { url: 'https://hooks.example.com/r', secret: WEBHOOK_SECRET } },
  });
  expect(rule.status, rule.text).toBe(201);
  ids.rule = rule.body.id;
  const smtp = await admin.request('PUT', '/system/smtp', {
    host: '127.0.0.1',
    port: 2525,
    secure: false,
    user: 'relay',
    password: SMTP_PASSWORD,
    from: 'Rampart <rampart@example.com>',
  });
  expect(smtp.status, smtp.text).toBe(200);
  const enrolment = await admin.request<{ secret: string }>('POST', '/me/two-factor/enrolment', {});
  expect(enrolment.status, enrolment.text).toBe(200);
  const confirmed = await admin.request<{ recoveryCodes: string[] }>('POST', '/me/two-factor/enrolment/confirm', {
    code: totpCode(enrolment.body.secret, Date.now()),
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  recoveryCodes = confirmed.body.recoveryCodes;
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('secrets at rest', () => {
  it('keeps every kind of secret out of the configuration file in clear', async () => {
    const secrets = await storedSecrets();
    expect(secrets.brokerPassword).toBe(BROKER_PASSWORD);
    expect(secrets.webhookSecret).toBe(WEBHOOK_SECRET);
    expect(secrets.siteKey).toBe(certificate.key);
    for (const generation of [CONFIG_FILE_NAME, `${CONFIG_FILE_NAME}.bak`]) {
      const file = await readFile(join(dataDir, generation), 'utf8');
      for (const [name, value] of Object.entries(secrets)) {
        if (value === '') continue;
        expect(file.includes(value), `${generation}: ${name}`).toBe(false);
        if (value.includes('-----BEGIN')) expect(file.includes(pemBody(value)), `${generation}: ${name}`).toBe(false);
      }
      expect(file).not.toMatch(/PRIVATE KEY-----/);
      expect(file).toContain('"enc:v1:');
    }
  });

  it('answers no stored secret on any GET route, only whether it is set', async () => {
    const secrets = await storedSecrets();
    const doc = (
      await admin.request<{ paths: Record<string, Record<string, { operationId: string }>> }>('GET', '/openapi.json')
    ).body;
    const params: Record<string, string> = { group: '001' };
    const idFor = (operationId: string): string =>
      /LogConfig/.test(operationId)
        ? ids.tcp
        : operationId === 'getRule'
          ? ids.rule
          : operationId === 'getEvent'
            ? ids.event
            : ids.site;
    // By design (the product's own): plugin bundles and edition B's global configuration carry the
    // Access Key, and a TCP configuration's bundle carries the client key senders install.
    const allowed: Record<string, string[]> = {
      getSiteGlobal: ['accessKey'],
      revealAccessKey: ['accessKey'],
      downloadSitePlugin: ['accessKey'],
      downloadLogConfigCertificate: ['clientKey'],
    };
    let walked = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      const op = methods.get;
      // The live tail is a stream of log records (no configuration in it).
      if (!op || op.operationId === 'tailLogs') continue;
      const route = path
        .replace(/^\/api\/v1/, '')
        .replace(/\{([^}]+)\}/g, (_, name: string) => params[name] ?? idFor(op.operationId));
      const answer = await getText(route);
      expect(answer.status, `${op.operationId} ${route}`).toBeLessThan(500);
      walked++;
      for (const [name, value] of Object.entries(secrets)) {
        if (value === '' || allowed[op.operationId]?.includes(name)) continue;
        expect(answer.text.includes(value), `${op.operationId} answers ${name}`).toBe(false);
        if (value.includes('-----BEGIN'))
          expect(answer.text.includes(pemBody(value)), `${op.operationId} answers ${name}`).toBe(false);
      }
    }
    expect(walked).toBeGreaterThan(20);
    const broker = await admin.request<{ broker: { passwordSet: boolean } }>('GET', `/log-configs/${ids.broker}`);
    expect(broker.body.broker.passwordSet).toBe(true);
    const rule = await admin.request<{ notify: { webhook: { url: string; secretSet: boolean } } }>(
      'GET',
      `/rules/${ids.rule}`,
    );
    expect(rule.body.notify.webhook).toEqual({ url: 'https://hooks.example.com/r', secretSet: true });
  });

  it('keeps a stored webhook secret when an update leaves it empty', async () => {
    const updated = await admin.request('PUT', `/rules/${ids.rule}`, {
      name: 'Tell the SOC team',
      siteId: ids.site,
      events: [ids.event],
      action: 'none',
      target: 'ip',
      durationSeconds: 60,
      notify: { webhook: { url: 'https://hooks.example.com/r2', secret: '' } },
    });
    expect(updated.status, updated.text).toBe(200);
    expect((await storedSecrets()).webhookSecret).toBe(WEBHOOK_SECRET);
  });

  it('opens the secrets again after a restart on the same data folder', async () => {
    const before = await storedSecrets();
    await engine!.stop();
    engine = undefined;
    await start();
    expect(await signInAdmin()).toBe(200);
    expect(await storedSecrets()).toEqual(before);
    // The TCP bundle the engine builds from its in-memory configuration holds the plain client key.
    const bundle = await getText(`/log-configs/${ids.tcp}/certificate`);
    expect(bundle.status).toBe(200);
    expect(bundle.text).toContain(pemBody(before.clientKey));
    const broker = await admin.request<{ broker: { passwordSet: boolean } }>('GET', `/log-configs/${ids.broker}`);
    expect(broker.body.broker.passwordSet).toBe(true);
  }, 60_000);

  it('refuses to start with a wrong key file, with exit code 78 and a clear message, and leaves the file', async () => {
    await engine!.stop();
    engine = undefined;
    const keyFile = join(dataDir, SECRET_KEY_FILE_NAME);
    const rightKey = await readFile(keyFile, 'utf8');
    const config = await readFile(join(dataDir, CONFIG_FILE_NAME), 'utf8');
    await writeFile(keyFile, `${randomBytes(32).toString('base64')}\n`);
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'engine/main.ts'], {
        env: { ...process.env, RAMPART_DATA: dataDir, RAMPART_LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('exit', (exit) => resolve({ code: exit, stderr: err }));
    });
    expect(code).toBe(78);
    expect(stderr).toContain(`The secret key in ${keyFile} does not open the secrets`);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(await readFile(join(dataDir, CONFIG_FILE_NAME), 'utf8')).toBe(config);
    await writeFile(keyFile, rightKey);
    await start();
    expect(await signInAdmin()).toBe(200);
  }, 60_000);
});
