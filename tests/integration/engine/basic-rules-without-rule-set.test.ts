/**
 * A fresh install without a Core Rule Set: the rule-set status says it is missing, and the access
 * record of every request a site's rule groups should have inspected says so (`waf_rule_set:
 * "missing"`), also when a custom rule blocked it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { rawRequest } from '../../support/http.ts';

let engine: TestEngine;
let admin: ApiClient;
let key: string;

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { ruleSetLocations: [] });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  key = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
});
afterAll(async () => {
  await engine?.dispose();
});

async function check(site: string, uri: string): Promise<{ action: string }> {
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
  return JSON.parse(res.text) as { action: string };
}

async function recordOf(site: string, uri: string): Promise<Record<string, unknown> | undefined> {
  await engine.logStore.flush();
  const records = await engine.logStore.read(`access:${site}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
  return records.find((r) => r.request === `GET ${uri} HTTP/1.1`);
}

describe('an install without a Core Rule Set', () => {
  it('reports the rule set as missing', async () => {
    const status = await admin.request<{ state: string; ruleCount: number; lastError: { message: string } }>(
      'GET',
      '/rule-set',
    );
    expect(status.body).toMatchObject({ state: 'missing', ruleCount: 0 });
    expect(status.body.lastError.message).toMatch(/modsecurity-crs/);
  });

  it('says in the access record that no rule set inspected the request', async () => {
    const site = (
      await admin.request<{ id: string }>('POST', '/sites', {
        name: 'bare',
        domain: 'bare.example.com',
        runMode: 'block',
        accessMethod: 'plugin',
      })
    ).body.id;
    const attack = "/item?id=1'%20OR%20'1'='1";
    await check(site, attack);
    expect(await recordOf(site, attack)).toMatchObject({ waf_triggered_rules: '', waf_rule_set: 'missing' });
  });

  it('says so too when a custom rule blocked the request', async () => {
    const site = (
      await admin.request<{ id: string }>('POST', '/sites', {
        name: 'custom',
        domain: 'custom.example.com',
        runMode: 'block',
        accessMethod: 'plugin',
      })
    ).body.id;
    const rule = await admin.request('POST', `/sites/${site}/custom-rules`, {
      name: 'admin area',
      location: 'url',
      conditions: [{ location: 'url', pattern: '^/admin' }],
    });
    expect(rule.status, rule.text).toBe(201);
    expect((await check(site, '/admin/users')).action).toBe('block');
    expect(await recordOf(site, '/admin/users')).toMatchObject({
      waf_triggered_categories: 'custom',
      waf_rule_set: 'missing',
    });
  });
});
