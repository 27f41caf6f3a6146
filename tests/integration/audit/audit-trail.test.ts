import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_LOG, QUERY_OPERATIONS, SUBJECTS } from '#engine/audit';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { TestSmtpServer } from '../../support/smtp.ts';
import { ApiClient, type ApiResponse } from '../../support/api-client.ts';
import { readConfigDocument } from '#engine/config-store';

const PASSWORD = 'Kettle#Blue7';
const USER_PASSWORD = 'Lantern#Red8';
const NEW_PASSWORD = 'Harbour#Grey9';
const BROKER_PASSWORD = 'Broker#Secret9';
const WEBHOOK_SECRET = 'webhook-hmac-secret-4242';

type Who = 'administrator' | 'user' | 'guest' | 'anonymous';

/** One API call the walk made, and what its audit record must say. */
interface Call {
  operationId: string;
  method: string;
  /** The route as declared, `/sites/:id`. */
  route: string;
  who: Who;
  status: number;
  resourceId?: string;
}

interface AuditRecord {
  account_id: string;
  account: string;
  account_role: string;
  src_ip: string;
  method: string;
  route: string;
  action: string;
  resource_kind: string;
  resource_id: string;
  status: number;
  outcome: string;
  error_code?: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  changed_fields?: string[];
}

interface Operation {
  operationId: string;
  method: string;
  route: string;
}

let engine: TestEngine;
let smtp: TestSmtpServer;
const clients = {} as Record<Who, ApiClient>;
const accountIds = {} as Record<Who, string>;
const calls: Call[] = [];
/** Secrets the walk typed or the engine made: none may be in the audit log. */
const typedSecrets = [PASSWORD, USER_PASSWORD, NEW_PASSWORD, BROKER_PASSWORD, WEBHOOK_SECRET];

/**
 * Calls an operation as `who` and notes the call. `route` is the declared path; `params` fill it in.
 */
async function call<T = Record<string, unknown>>(
  who: Who,
  operationId: string,
  method: string,
  route: string,
  options: { params?: Record<string, string>; body?: unknown; resourceId?: string } = {},
): Promise<ApiResponse<T>> {
  const path = route.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(options.params?.[name] ?? 'none'));
  const res = await clients[who].request<T>(method, path, options.body);
  calls.push({
    operationId,
    method,
    route,
    who,
    status: res.status,
    ...(options.resourceId !== undefined ? { resourceId: options.resourceId } : {}),
  });
  return res;
}

async function operations(): Promise<Operation[]> {
  const doc = (
    await new ApiClient(engine.url).request<{ paths: Record<string, Record<string, { operationId: string }>> }>(
      'GET',
      '/openapi.json',
    )
  ).body;
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      operationId: op.operationId,
      method: method.toUpperCase(),
      route: path.replace(/^\/api\/v1/, '').replace(/\{([^}]+)\}/g, ':$1'),
    })),
  );
}

async function auditRecords(): Promise<AuditRecord[]> {
  await engine.logStore.flush();
  return (await engine.logStore.read(AUDIT_LOG, { from: 0, to: Date.now() + 60_000 })) as unknown as AuditRecord[];
}

/** Every value of a secret field in the stored configuration (walked independently of the engine's masking list). */
function storedSecrets(doc: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown, key: string): void => {
    if (typeof value === 'string') {
      if (/^(passwordHash|accessKey|tokenKey|caKeyPem|clientKeyPem|serverKeyPem|keyPem|password|secret)$/.test(key))
        if (value.length >= 8) out.push(value);
      return;
    }
    if (Array.isArray(value)) value.forEach((item) => walk(item, key));
    else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(doc, '');
  return out;
}

beforeAll(async () => {
  smtp = await new TestSmtpServer().start();
  engine = await startTestEngine({ ...smtp.env(), RAMPART_EDITION: 'B' }, { ruleSetLocations: [] });
  for (const who of ['administrator', 'user', 'guest', 'anonymous'] as const) clients[who] = new ApiClient(engine.url);
  const setup = await clients.administrator.setup('administrator@example.com', PASSWORD);
  expect(setup.status).toBe(201);
  calls.push({ operationId: 'completeSetup', method: 'POST', route: '/setup', who: 'administrator', status: 201 });
  accountIds.administrator = (setup.body as unknown as { account: { id: string } }).account.id;
  for (const role of ['user', 'guest'] as const) {
    const created = await call<{ account: { id: string } }>('administrator', 'createAccount', 'POST', '/accounts', {
      body: { email: `${role}@example.com`, role },
    });
    expect(created.status).toBe(201);
    accountIds[role] = created.body.account.id;
    const token = new URL(TestSmtpServer.linkIn(await smtp.waitFor(`${role}@example.com`))).searchParams.get('token');
    // The link's holder acts as its account: the record names it, and its activation is the change.
    const done = await call(role, 'completeLink', 'POST', '/links/complete', {
      body: { token, password: role === 'user' ? USER_PASSWORD : PASSWORD },
    });
    expect(done.status).toBe(204);
    const signedIn = await clients[role].signIn(`${role}@example.com`, role === 'user' ? USER_PASSWORD : PASSWORD);
    expect(signedIn.status).toBe(200);
    calls.push({ operationId: 'signIn', method: 'POST', route: '/session', who: role, status: 200 });
  }
});

afterAll(async () => {
  await engine?.dispose();
  await smtp?.stop();
});

describe('the audit trail', () => {
  it('records every changing route of the permission table, with who, what and the outcome', async () => {
    const admin = 'administrator' as const;
    // Sessions: a failed sign-in (the e-mail tried, no account), then sign-out and in again.
    const failed = await clients.anonymous.request('POST', '/session', {
      email: 'user@example.com',
      password: 'Wrong#Pass1',
    });
    expect(failed.status).toBe(401);
    calls.push({ operationId: 'signIn', method: 'POST', route: '/session', who: 'anonymous', status: 401 });

    // Sites (B): create, update, anti-bot, copy, delete; refused for a guest and for no one.
    const site = await call<{ id: string }>(admin, 'createSite', 'POST', '/sites', {
      body: { name: 'Shop', domain: 'shop.example.com' },
    });
    expect(site.status, site.text).toBe(201);
    const siteId = site.body.id;
    expect(
      (await call('guest', 'createSite', 'POST', '/sites', { body: { name: 'x', domain: 'x.example.com' } })).status,
    ).toBe(403);
    expect(
      (await call('anonymous', 'deleteSite', 'DELETE', '/sites/:id', { params: { id: siteId }, resourceId: siteId }))
        .status,
    ).toBe(401);
    const update = await call(admin, 'updateSite', 'PUT', '/sites/:id', {
      params: { id: siteId },
      body: { name: 'Shop', domain: 'shop.example.com', runMode: 'block' },
      resourceId: siteId,
    });
    expect(update.status, update.text).toBe(200);
    expect(
      (
        await call(admin, 'updateSiteAntiBot', 'PUT', '/sites/:id/anti-bot', {
          params: { id: siteId },
          body: { enabled: true, scanner: true, scriptTool: true, otherCrawler: false },
          resourceId: siteId,
        })
      ).status,
    ).toBe(200);
    const copy = await call<{ id: string }>(admin, 'copySite', 'POST', '/sites/:id/copy', { params: { id: siteId } });
    expect(copy.status, copy.text).toBe(201);
    expect(
      (
        await call(admin, 'deleteSite', 'DELETE', '/sites/:id', {
          params: { id: copy.body.id },
          resourceId: copy.body.id,
        })
      ).status,
    ).toBe(204);
    const badSite = await call(admin, 'updateSite', 'PUT', '/sites/:id', {
      params: { id: siteId },
      body: { name: '', domain: 'shop.example.com' },
      resourceId: siteId,
    });
    expect(badSite.status).toBe(400);

    // Global configuration, Access Key, gateway address.
    expect(
      (
        await call(admin, 'updateSiteGlobal', 'PUT', '/site-global', {
          body: { tokenCookieName: 'rp_token', identityCookieName: 'rp_id', tokenExpirySeconds: 120, ipLock: true },
        })
      ).status,
    ).toBe(200);
    const keyBefore = (await clients.administrator.request<{ accessKey: string }>('GET', '/site-global')).body
      .accessKey;
    expect((await call(admin, 'rotateAccessKey', 'POST', '/site-global/access-key', { body: {} })).status).toBe(200);
    const keyAfter = (await clients.administrator.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
    typedSecrets.push(keyBefore, keyAfter);
    expect(
      (await call(admin, 'setGatewayAddress', 'PUT', '/gateway-address', { body: { address: '192.0.2.10:9081' } }))
        .status,
    ).toBe(200);

    // Basic rules and the rule set (no Core Rule Set installed here: what needs one is refused).
    expect(
      (
        await call(admin, 'updateBasicRuleGroup', 'PUT', '/sites/:id/basic-rules/groups/:group', {
          params: { id: siteId, group: '001' },
          body: { enabled: false, level: 'strict' },
          resourceId: '001',
        })
      ).status,
    ).toBeLessThan(500);
    const custom = await call<{ id: string }>(admin, 'createCustomRule', 'POST', '/sites/:id/custom-rules', {
      params: { id: siteId },
      body: { name: 'No admin', location: 'url', conditions: [{ location: 'url', name: '', pattern: '^/admin' }] },
    });
    expect(custom.status).toBeLessThan(500);
    const ruleId = custom.status === 201 ? custom.body.id : 'none';
    await call(admin, 'updateCustomRule', 'PUT', '/sites/:id/custom-rules/:ruleId', {
      params: { id: siteId, ruleId },
      body: {
        name: 'No admin pages',
        location: 'url',
        conditions: [{ location: 'url', name: '', pattern: '^/admin' }],
      },
      resourceId: ruleId,
    });
    await call(admin, 'deleteCustomRule', 'DELETE', '/sites/:id/custom-rules/:ruleId', {
      params: { id: siteId, ruleId },
      resourceId: ruleId,
    });
    const exclusion = await call<{ id: string }>(admin, 'createWafExclusion', 'POST', '/sites/:id/waf-exclusions', {
      params: { id: siteId },
      body: { ruleId: 942100, target: 'ARGS:q', path: '/search', reason: 'Search box takes SQL examples' },
    });
    expect(exclusion.status).toBe(201);
    await call(admin, 'deleteWafExclusion', 'DELETE', '/sites/:id/waf-exclusions/:exclusionId', {
      params: { id: siteId, exclusionId: exclusion.body.id },
      resourceId: exclusion.body.id,
    });
    expect(
      (
        await call(admin, 'setContentTypes', 'PUT', '/sites/:id/basic-rules/content-types', {
          params: { id: siteId },
          body: { types: ['application/json', 'text/plain'] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(admin, 'setSecondOpinion', 'PUT', '/sites/:id/basic-rules/second-opinion', {
          params: { id: siteId },
          body: { enabled: true },
        })
      ).status,
    ).toBe(200);
    await call(admin, 'setRuleSetDir', 'PUT', '/rule-set', { body: { dir: '/nonexistent/crs' } });
    await call(admin, 'uploadRuleSet', 'POST', '/rule-set/upload', { body: {} });
    await call(admin, 'downloadRuleSet', 'POST', '/rule-set/download', { body: { version: 'latest' } });

    // Log configurations: a BROKER one with a password, a TCP one with its private keys.
    const broker = await call<{ id: string }>(admin, 'createLogConfig', 'POST', '/log-configs', {
      body: {
        name: 'Kafka app log',
        method: 'broker',
        broker: { address: '127.0.0.1:9', topic: 'app', account: 'svc', password: BROKER_PASSWORD, mechanism: 'plain' },
        templateType: 'json',
        time: { mode: 'current' },
        timezone: 'UTC',
        fields: [{ kind: 'json', name: 'src_ip', type: 'string', source: 'ip', required: true }],
        keyFields: { ip: 'src_ip' },
        sampleData: '{"ip":"203.0.113.9"}',
      },
    });
    expect(broker.status, broker.text).toBe(201);
    const copied = await call<{ id: string }>(admin, 'copyLogConfig', 'POST', '/log-configs/:id/copy', {
      params: { id: broker.body.id },
    });
    expect(copied.status, copied.text).toBe(201);
    const tcp = await call<{ id: string }>(admin, 'createLogConfig', 'POST', '/log-configs', {
      body: {
        name: 'sshd',
        method: 'tcp',
        templateType: 'plain_text',
        time: { mode: 'current' },
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
        sampleData: 'Failed password for root from 203.0.113.9 port 5022',
      },
    });
    expect(tcp.status, tcp.text).toBe(201);
    const regenerated = await call(admin, 'regenerateLogConfigCertificate', 'POST', '/log-configs/:id/certificate', {
      params: { id: tcp.body.id },
      resourceId: tcp.body.id,
    });
    expect(regenerated.status, regenerated.text).toBeLessThan(300);
    await call(admin, 'updateLogConfig', 'PUT', '/log-configs/:id', {
      params: { id: broker.body.id },
      body: {
        name: 'Kafka app log',
        method: 'broker',
        broker: { address: '127.0.0.1:9', topic: 'app2', account: 'svc', mechanism: 'plain' },
        templateType: 'json',
        time: { mode: 'current' },
        timezone: 'UTC',
        fields: [{ kind: 'json', name: 'src_ip', type: 'string', source: 'ip', required: true }],
        keyFields: { ip: 'src_ip' },
        sampleData: '{"ip":"203.0.113.9"}',
      },
      resourceId: broker.body.id,
    });
    await call(admin, 'regenerateLogConfigCertificate', 'POST', '/log-configs/:id/certificate', {
      params: { id: broker.body.id },
      resourceId: broker.body.id,
    });
    await call(admin, 'deleteLogConfig', 'DELETE', '/log-configs/:id', {
      params: { id: broker.body.id },
      resourceId: broker.body.id,
    });

    // Events, rules, bans, IP lists.
    const configs = (
      await clients.administrator.request<{ items: { id: string; kind: string; siteId: string | null }[] }>(
        'GET',
        '/log-configs',
      )
    ).body.items;
    const accessConfigId = configs.find((c) => c.kind === 'access' && c.siteId === siteId)!.id;
    const event = await call<{ id: string }>(admin, 'createEvent', 'POST', '/events', {
      body: {
        kind: 'simple',
        name: 'Login attempt',
        sources: [accessConfigId],
        relation: 'a',
        conditions: [{ label: 'a', field: 'request', filter: 'string', mode: 'regex', value: '^POST /login' }],
      },
    });
    expect(event.status, event.text).toBe(201);
    const eventId = event.body.id;
    expect(
      (
        await call(admin, 'setEventEnabled', 'POST', '/events/:id/enabled', {
          params: { id: eventId },
          body: { enabled: true },
          resourceId: eventId,
        })
      ).status,
    ).toBe(200);
    await call(admin, 'updateEvent', 'PUT', '/events/:id', {
      params: { id: eventId },
      body: {
        kind: 'simple',
        name: 'Login attempts',
        sources: [accessConfigId],
        relation: 'a',
        conditions: [{ label: 'a', field: 'request', filter: 'string', mode: 'regex', value: '^POST /login' }],
      },
      resourceId: eventId,
    });
    const eventCopy = await call<{ id: string }>(admin, 'copyEvent', 'POST', '/events/:id/copy', {
      params: { id: eventId },
    });
    const rule = await call<{ id: string }>(admin, 'createRule', 'POST', '/rules', {
      body: {
        name: 'Ban logins',
        siteId,
        events: [eventId],
        action: 'block',
        target: 'ip',
        durationSeconds: 60,
        notify: { webhook: { url: 'https://hooks.example.com/r', secret: WEBHOOK_SECRET } },
      },
    });
    expect(rule.status, rule.text).toBe(201);
    await call(admin, 'updateRule', 'PUT', '/rules/:id', {
      params: { id: rule.body.id },
      body: { name: 'Ban logins', siteId, events: [eventId], action: 'block', target: 'ip', durationSeconds: 120 },
      resourceId: rule.body.id,
    });
    const ruleCopy = await call<{ id: string }>(admin, 'copyRule', 'POST', '/rules/:id/copy', {
      params: { id: rule.body.id },
    });
    await call(admin, 'deleteRule', 'DELETE', '/rules/:id', {
      params: { id: ruleCopy.body.id ?? 'none' },
      resourceId: ruleCopy.body.id ?? 'none',
    });
    await call(admin, 'deleteRule', 'DELETE', '/rules/:id', { params: { id: rule.body.id }, resourceId: rule.body.id });
    await call(admin, 'deleteEvent', 'DELETE', '/events/:id', {
      params: { id: eventCopy.body.id ?? 'none' },
      resourceId: eventCopy.body.id ?? 'none',
    });
    const ban = await call<{ id: string }>(admin, 'createBan', 'POST', '/bans', {
      body: { siteId, object: 'ip', value: '192.0.2.50', durationSeconds: 60, reason: 'seen in the firewall' },
    });
    expect(ban.status, ban.text).toBe(201);
    expect(
      (await call(admin, 'liftBan', 'DELETE', '/bans/:id', { params: { id: ban.body.id }, resourceId: ban.body.id }))
        .status,
    ).toBe(204);
    expect(
      (await call('user', 'setIpLists', 'PUT', '/ip-lists', { body: { pass: ['10.0.0.0/8'], block: ['192.0.2.1'] } }))
        .status,
    ).toBe(200);
    // A body that is not JSON is refused before any handler runs: recorded all the same.
    const garbled = await clients.user.request('PUT', '/ip-lists', undefined, { rawBody: '{"pass": [' });
    expect(garbled.status).toBe(400);
    calls.push({ operationId: 'setIpLists', method: 'PUT', route: '/ip-lists', who: 'user', status: 400 });

    // Logs and storage.
    expect(
      (await call(admin, 'updateStorage', 'PUT', '/storage', { body: { retentionDays: { access: 7 } } })).status,
    ).toBe(200);
    await call(admin, 'exportLogs', 'POST', '/logs/export', {
      body: { log: `access:${siteId}`, range: { last: '1h' }, format: 'ndjson' },
      resourceId: `access:${siteId}`,
    });
    await call(admin, 'purgeLogs', 'POST', '/storage/purge', {
      body: { log: `access:${siteId}`, confirm: 'not the name' },
      resourceId: `access:${siteId}`,
    });

    // Licence (refused: not a licence file).
    await call(admin, 'importLicence', 'POST', '/licence', { body: {} });
    await call(admin, 'renewPurchase', 'POST', '/licence/purchases/:orderNumber/renew', {
      params: { orderNumber: 'ORD-1' },
      resourceId: 'ORD-1',
    });

    // Accounts: role, disable, enable, resend, reset, delete; a user changes a password.
    const guestId = accountIds.guest;
    for (const [operationId, method, route, body] of [
      ['changeAccountRole', 'PUT', '/accounts/:id/role', { role: 'user' }],
      ['disableAccount', 'POST', '/accounts/:id/disable', undefined],
      ['enableAccount', 'POST', '/accounts/:id/enable', undefined],
      ['resendActivationEmail', 'POST', '/accounts/:id/activation-email', undefined],
      ['resetAccountPassword', 'POST', '/accounts/:id/password-reset', undefined],
    ] as const) {
      const res = await call(admin, operationId, method, route, { params: { id: guestId }, body, resourceId: guestId });
      expect(res.status, `${operationId}: ${res.text}`).toBeLessThan(500);
    }
    expect(
      (
        await call('user', 'changeMyPassword', 'PUT', '/me/password', {
          body: { currentPassword: USER_PASSWORD, newPassword: NEW_PASSWORD },
          resourceId: accountIds.user,
        })
      ).status,
    ).toBeLessThan(500);
    expect(
      (await call(admin, 'deleteAccount', 'DELETE', '/accounts/:id', { params: { id: guestId }, resourceId: guestId }))
        .status,
    ).toBe(204);
    expect(
      (
        await call('user', 'deleteAccount', 'DELETE', '/accounts/:id', {
          params: { id: accountIds.administrator },
          resourceId: accountIds.administrator,
        })
      ).status,
    ).toBe(403);

    // Every changing route not walked above is called once with an empty body (refused, or done).
    const walked = new Set(calls.map((c) => c.operationId));
    const changing = (await operations()).filter((o) => o.method !== 'GET' && !QUERY_OPERATIONS.has(o.operationId));
    for (const op of changing) {
      if (walked.has(op.operationId) || op.operationId === 'signOut') continue;
      const res = await call(admin, op.operationId, op.method, op.route, {
        body: op.method === 'DELETE' ? undefined : {},
      });
      expect(res.status, `${op.operationId}: ${res.text}`).toBeLessThan(500);
    }
    // Reads sent with POST leave no record.
    const searched = await clients.administrator.request('POST', '/logs/search', {
      log: AUDIT_LOG,
      range: { all: true },
    });
    expect(searched.status).toBe(200);
    expect((await call(admin, 'signOut', 'DELETE', '/session')).status).toBe(204);

    const records = await auditRecords();
    if (process.env.AUDIT_DEBUG)
      console.log(
        records
          .map(
            (r) =>
              `${r.action} ${r.status} ${r.error_code ?? ''} ${r.resource_kind}:${r.resource_id} ${(r.changed_fields ?? []).join(',')}`,
          )
          .join('\n'),
      );
    expect(records.map((r) => `${r.action} ${r.status}`)).toEqual(calls.map((c) => `${c.operationId} ${c.status}`));
    const problems: string[] = [];
    records.forEach((record, i) => {
      const expected = calls[i]!;
      const who = expected.who === 'anonymous' ? undefined : expected.who;
      const want = {
        account_id: who ? accountIds[who] : '',
        method: expected.method,
        route: `/api/v1${expected.route}`,
        outcome: expected.status < 400 ? 'success' : 'failure',
        src_ip: '127.0.0.1',
        ...(expected.resourceId !== undefined ? { resource_id: expected.resourceId } : {}),
      };
      for (const [field, value] of Object.entries(want)) {
        const got = record[field as keyof AuditRecord];
        if (got !== value)
          problems.push(`${i} ${expected.operationId}: ${field} ${JSON.stringify(got)} != ${JSON.stringify(value)}`);
      }
      if (expected.status >= 400 && !record.error_code) problems.push(`${i} ${expected.operationId}: no error code`);
      if (expected.status >= 400 && (record.before !== undefined || record.after !== undefined))
        problems.push(`${i} ${expected.operationId}: a refused call keeps before or after`);
    });
    expect(problems).toEqual([]);

    // Every changing operation of the API left at least one record.
    const recorded = new Set(records.map((r) => r.action));
    expect(changing.map((o) => o.operationId).filter((id) => !recorded.has(id))).toEqual([]);
    expect(records.some((r) => QUERY_OPERATIONS.has(r.action))).toBe(false);
  });

  it('names only real operations in its tables: queries are POST, subjects are changing operations', async () => {
    const methods = new Map((await operations()).map((o) => [o.operationId, o.method]));
    expect([...QUERY_OPERATIONS].filter((id) => methods.get(id) !== 'POST')).toEqual([]);
    expect(
      Object.keys(SUBJECTS).filter((id) => !['POST', 'PUT', 'PATCH', 'DELETE'].includes(methods.get(id) ?? '')),
    ).toEqual([]);
  });

  it('keeps the before and after of a changed object, and what changed', async () => {
    const records = await auditRecords();
    const update = records.find((r) => r.action === 'updateSite' && r.outcome === 'success')!;
    expect(update.resource_kind).toBe('site');
    expect(update.before).toMatchObject({ name: 'Shop', runMode: 'monitor' });
    expect(update.after).toMatchObject({ name: 'Shop', runMode: 'block' });
    expect(update.changed_fields).toContain('runMode');
    const created = records.find((r) => r.action === 'createSite' && r.outcome === 'success')!;
    expect(created.before).toBeUndefined();
    expect(created.after).toMatchObject({ name: 'Shop', domain: 'shop.example.com' });
    const deleted = records.find((r) => r.action === 'deleteSite' && r.outcome === 'success')!;
    expect(deleted.before).toMatchObject({ name: expect.stringContaining('Shop') as unknown });
    expect(deleted.after).toBeUndefined();
    const rotated = records.find((r) => r.action === 'rotateAccessKey')!;
    expect(rotated.changed_fields).toEqual(['accessKey']);
    const activation = records.find((r) => r.action === 'completeLink')!;
    expect(activation).toMatchObject({
      account: 'user@example.com',
      resource_kind: 'account',
      before: { activated: false, passwordHash: null },
      after: { activated: true, passwordHash: '[masked]' },
    });
    expect(activation.changed_fields).toEqual(expect.arrayContaining(['activated', 'passwordHash']));
    const refusedSignIn = records.find((r) => r.action === 'signIn' && r.status === 401)!;
    expect(refusedSignIn).toMatchObject({
      account: 'user@example.com',
      account_id: '',
      error_code: expect.any(String) as unknown,
    });
    const guestRefused = records.find((r) => r.action === 'createSite' && r.status === 403)!;
    expect(guestRefused).toMatchObject({
      account: 'guest@example.com',
      account_role: 'guest',
      error_code: 'FORBIDDEN_ROLE',
    });
  });

  it('holds no secret in clear: passwords, Access Keys, broker passwords, private keys, webhook secrets', async () => {
    const stored = JSON.stringify(await auditRecords());
    const config = (await readConfigDocument(engine.dataDir)) as unknown;
    const secrets = [...typedSecrets, ...storedSecrets(config)];
    expect(secrets.length).toBeGreaterThan(8);
    for (const secret of secrets)
      expect(stored.includes(secret), `a secret of ${secret.length} characters`).toBe(false);
    expect(stored).not.toMatch(/PRIVATE KEY-----/);
    expect(stored).toContain('[masked]');
  });

  it('is a log administrators pick and search on the search page; guests do not see it', async () => {
    const admin = new ApiClient(engine.url);
    expect((await admin.signIn('administrator@example.com', PASSWORD)).status).toBe(200);
    const logs = await admin.request<{ items: { log: string; kind: string }[] }>('GET', '/logs');
    expect(logs.body.items).toContainEqual(expect.objectContaining({ log: AUDIT_LOG, kind: 'audit' }));
    const found = await admin.request<{ records: { record: AuditRecord }[] }>('POST', '/logs/search', {
      log: AUDIT_LOG,
      range: { all: true },
      query: 'action:rotateAccessKey',
    });
    expect(found.status, found.text).toBe(200);
    expect(found.body.records.map((r) => r.record.action)).toEqual(['rotateAccessKey']);
    const storage = await admin.request<{ retentionDays: Record<string, number> }>('GET', '/storage');
    expect(storage.body.retentionDays.audit).toBe(365);

    const guest = new ApiClient(engine.url);
    expect((await guest.signIn('user@example.com', NEW_PASSWORD)).status).toBe(200);
    const reader = new ApiClient(engine.url);
    const createdGuest = await admin.request<{ account: { id: string } }>('POST', '/accounts', {
      email: 'reader@example.com',
      role: 'guest',
    });
    const token = new URL(TestSmtpServer.linkIn(await smtp.waitFor('reader@example.com'))).searchParams.get('token');
    await reader.request('POST', '/links/complete', { token, password: PASSWORD });
    expect(createdGuest.status).toBe(201);
    expect((await reader.signIn('reader@example.com', PASSWORD)).status).toBe(200);
    const guestLogs = await reader.request<{ items: { log: string }[] }>('GET', '/logs');
    expect(guestLogs.body.items.map((l) => l.log)).not.toContain(AUDIT_LOG);
    const refused = await reader.request<{ error: { code: string } }>('POST', '/logs/search', {
      log: AUDIT_LOG,
      range: { all: true },
    });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'FORBIDDEN_ROLE']);
  });
});
