/**
 * Events, rules and bans over a real engine: verdict requests make access records, a count event
 * fires on them, its rule bans the client's IP on the rule's site (and puts it in the threat store),
 * the next request gets REPUTATION, the trigger log holds the firing, the ban can be lifted by hand,
 * and bans and window state survive a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenService } from '#engine/probe';
import { ManualClock } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { rawRequest } from '../../support/http.ts';
import { readConfigDocument } from '#engine/config-store';

const clock = new ManualClock(Date.UTC(2026, 10, 27, 8, 0, 0));
let engine: TestEngine;
let admin: ApiClient;
let key: string;
let tokens: TokenService;
let siteId: string;
let otherSiteId: string;
let accessConfigId: string;

async function verdict(uri: string, remote: string, site = siteId): Promise<string | null> {
  const res = await rawRequest(`${engine.gatewayUrl}/_rampart/verdict`, {
    headers: {
      'x-rampart-site': site,
      'x-rampart-key': key,
      'x-original-uri': uri,
      'x-original-method': 'POST',
      host: 'shop.example.com',
      'x-rampart-remote-addr': remote,
      'x-request-id': 'req-' + Math.random().toString(16).slice(2),
      'user-agent':
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
      cookie: `rampart_token=${tokens.issue({ siteId: site, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 600, ip: remote, bot: false })}`,
    },
  });
  const guard = res.headers['x-rampart-guard'];
  return typeof guard === 'string' ? guard : res.status === 204 ? 'PASS' : `status ${res.status}`;
}

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { clock, ruleSetLocations: [] });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  const site = await admin.request<{ id: string }>('POST', '/sites', {
    name: 'shop',
    domain: 'shop.example.com',
    runMode: 'block',
    accessMethod: 'plugin',
  });
  siteId = site.body.id;
  otherSiteId = (
    await admin.request<{ id: string }>('POST', '/sites', {
      name: 'blog',
      domain: 'blog.example.com',
      runMode: 'block',
    })
  ).body.id;
  key = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
  const config = (await readConfigDocument(engine.dataDir)) as unknown as {
    secrets: { tokenKey: string };
  };
  tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), clock);
  const configs = await admin.request<{ items: { id: string; kind: string; siteId: string | null }[] }>(
    'GET',
    '/log-configs',
  );
  accessConfigId = configs.body.items.find((c) => c.kind === 'access' && c.siteId === siteId)!.id;
}, 60_000);
afterAll(() => engine?.dispose());

describe('events, rules and bans through the verdict', () => {
  let loginEvent: string;
  let bruteForce: string;

  it('creates events disabled, checks them as typed, and enables them', async () => {
    const check = await admin.request<{ problems: { field: string; code: string }[] }>('POST', '/events/check', {
      event: {
        kind: 'simple',
        name: 'login',
        sources: [accessConfigId],
        relation: 'a & (b',
        conditions: [{ label: 'a', field: 'request', filter: 'string', mode: 'regex', value: '^POST /login' }],
      },
    });
    expect(check.body.problems.map((p) => p.field)).toContain('relation');

    const simple = await admin.request<{ id: string; enabled: boolean }>('POST', '/events', {
      kind: 'simple',
      name: 'Login attempt',
      sources: [accessConfigId],
      relation: 'a',
      conditions: [{ label: 'a', field: 'request', filter: 'string', mode: 'regex', value: '^POST /login' }],
    });
    expect(simple.status, simple.text).toBe(201);
    expect(simple.body.enabled).toBe(false);
    loginEvent = simple.body.id;
    const count = await admin.request<{ id: string }>('POST', '/events', {
      kind: 'count',
      name: 'Login brute force',
      sources: [accessConfigId],
      triggerEvent: loginEvent,
      object: 'ip',
      window: { value: 1, unit: 'minute' },
      comparator: '>=',
      threshold: 5,
    });
    expect(count.status, count.text).toBe(201);
    bruteForce = count.body.id;
    for (const id of [loginEvent, bruteForce]) {
      const on = await admin.request<{ enabled: boolean }>('POST', `/events/${id}/enabled`, { enabled: true });
      expect(on.body.enabled, on.text).toBe(true);
    }
  });

  it('refuses to enable a preset without a log source (the console then opens the editor)', async () => {
    const res = await admin.request<{ error: { code: string } }>('POST', '/events/preset-login-failed/enabled', {
      enabled: true,
    });
    expect([res.status, res.body.error.code]).toEqual([409, 'EVENT_NO_SOURCE']);
  });

  it('a rule bans the IP when the event fires; the next request gets REPUTATION on its site only', async () => {
    const rule = await admin.request<{ id: string; priority: number }>('POST', '/rules', {
      name: 'Ban brute force',
      siteId,
      events: [bruteForce],
      action: 'block',
      target: 'ip',
      durationSeconds: 120,
    });
    expect(rule.status, rule.text).toBe(201);
    expect(rule.body.priority).toBe(1);

    for (let i = 0; i < 4; i++) expect(await verdict('/login', '198.51.100.7')).toBe('PASS');
    // The fifth attempt fires the event; its own verdict was decided before its record was written,
    // and the record waits (at most the merge wait) for nginx's log line before it is written.
    expect(await verdict('/login', '198.51.100.7')).toBe('PASS');
    await until(async () => (await admin.request<{ total: number }>('GET', '/bans')).body.total === 1);
    expect(await verdict('/products', '198.51.100.7')).toBe('REPUTATION');
    expect(await verdict('/products', '198.51.100.8')).toBe('PASS');
    // Edition B sites always consult the threat store, where the block put the IP for 300 s.
    expect(await verdict('/products', '198.51.100.7', otherSiteId)).toBe('REPUTATION');

    const bans = await admin.request<{
      items: {
        id: string;
        value: string;
        siteId: string;
        origin: { kind: string; ruleName: string; eventName: string };
      }[];
      threatStore: number;
    }>('GET', '/bans');
    expect(bans.body.items).toHaveLength(1);
    expect(bans.body.items[0]).toMatchObject({
      value: '198.51.100.7',
      siteId,
      origin: { kind: 'rule', ruleName: 'Ban brute force', eventName: 'Login brute force' },
    });
    expect(bans.body.threatStore).toBe(1);
  });

  it('writes each firing to the trigger log with the event, its rules and what it did', async () => {
    await engine.logStore.flush();
    const found = await admin.request<{ records: { record: Record<string, unknown> }[] }>('POST', '/logs/search', {
      log: 'trigger',
      range: { from: clock.now() - 3_600_000, to: clock.now() + 60_000 },
      query: `event_configure_id:${bruteForce}`,
      limit: 10,
    });
    expect(found.status, found.text).toBe(200);
    expect(found.body.records).toHaveLength(1);
    const record = found.body.records[0]!.record;
    expect(record).toMatchObject({ event_name: 'Login brute force', action: 'block', trigger_value: '198.51.100.7' });
    expect(String(record.triggered_rules)).toMatch(/^rule_/);
    expect(JSON.parse(String(record.event_meta))).toMatchObject({ key: '198.51.100.7' });
    // The simple event fired on each of the five records too.
    const simple = await admin.request<{ records: unknown[] }>('POST', '/logs/search', {
      log: 'trigger',
      range: { from: clock.now() - 3_600_000, to: clock.now() + 60_000 },
      query: `event_configure_id:${loginEvent}`,
      limit: 10,
    });
    expect(simple.body.records).toHaveLength(5);
  });

  it('an administrator lifts the ban and the client passes again', async () => {
    const bans = await admin.request<{ items: { id: string }[] }>('GET', '/bans');
    const lift = await admin.request('DELETE', `/bans/${bans.body.items[0]!.id}`);
    expect(lift.status).toBe(204);
    expect(await verdict('/products', '198.51.100.7')).toBe('PASS');
  });

  it('a ban added by hand holds for its duration and then passes', async () => {
    const ban = await admin.request<{ until: number; origin: unknown }>('POST', '/bans', {
      siteId,
      object: 'ip',
      value: '192.0.2.50',
      durationSeconds: 30,
      reason: 'seen in the firewall',
    });
    expect(ban.status, ban.text).toBe(201);
    expect(ban.body).toMatchObject({ origin: { kind: 'manual', accountName: 'root@example.com' } });
    expect(await verdict('/', '192.0.2.50')).toBe('REPUTATION');
    clock.advance(30_000);
    expect(await verdict('/', '192.0.2.50')).toBe('PASS');
    const bad = await admin.request<{ error: { field: string } }>('POST', '/bans', {
      siteId,
      object: 'ip',
      value: '',
      durationSeconds: 0,
    });
    expect(bad.status).toBe(400);
  });

  it('refuses to delete an event a rule uses, naming the rule', async () => {
    const res = await admin.request<{ error: { code: string; params: { rules: string } } }>(
      'DELETE',
      `/events/${bruteForce}`,
    );
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'IN_USE', params: { rules: 'Ban brute force' } });
  });

  it('a dry run over the stored records reports what would have fired, banning nobody', async () => {
    const run = await admin.request<{ records: number; firings: number; keys: { key: string; firings: number }[] }>(
      'POST',
      `/events/${bruteForce}/dry-run`,
      { from: clock.now() - 3_600_000, to: clock.now() + 1000 },
    );
    expect(run.status, run.text).toBe(200);
    expect(run.body.firings).toBeGreaterThanOrEqual(1);
    expect(run.body.keys[0]).toMatchObject({ key: '198.51.100.7' });
    const bans = await admin.request<{ total: number }>('GET', '/bans');
    expect(bans.body.total).toBe(0);
  });
});
