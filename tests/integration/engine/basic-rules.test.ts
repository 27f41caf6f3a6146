/**
 * Basic application rules through the real engine with Debian's CRS 3.3.4: groups and levels over
 * the API, a paranoia-level-3 rule that fires only at strict and very strict, custom rules and their
 * validation, the one-minute denial of a plugin-access client, the access log's waf_* fields, and
 * the rule-set source (broken directory refused with file and line, archive upload).
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenService } from '#engine/probe';
import { ManualClock } from '#engine/shared';
import { DEBIAN_LOCATION } from '#engine/waf/ruleset';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { rawRequest } from '../../support/http.ts';
import { skipAllWithout } from '../../support/skip.ts';
import { readConfigDocument } from '#engine/config-store';

const haveCrs = existsSync(join(DEBIAN_LOCATION.dir, 'rules'));
const clock = new ManualClock(Date.UTC(2026, 10, 22, 9, 0, 0));
let engine: TestEngine;
let admin: ApiClient;
let key: string;
let tokens: TokenService;
let work: string;
const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

interface CheckResult {
  action: string;
  guard_status: string;
  waf_triggered_rules: string[];
  waf_triggered_categories: string[];
  waf_triggered_score: number;
}

async function createSite(name: string, body: Record<string, unknown>): Promise<string> {
  const res = await admin.request<{ id: string }>('POST', '/sites', { name, domain: `${name}.example.com`, ...body });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/** A browser token for the site, bound to the address, issued now (the test's clock). */
const tokenFor = (site: string, ip: string): string =>
  tokens.issue({ siteId: site, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 600, ip, bot: false });

/**
 * A verdict as a gateway asks for it, by default with a valid token so only the rules decide
 * (`token: null` sends none).
 */
async function verdict(
  site: string,
  uri: string,
  ip = '198.51.100.20',
  token: string | null = tokenFor(site, ip),
): Promise<{ status: number; guard: string }> {
  const res = await rawRequest(`${engine.gatewayUrl}/_rampart/verdict`, {
    headers: {
      host: 'shop.example.com',
      'user-agent': UA,
      accept: 'text/html',
      ...(token === null ? {} : { cookie: `rampart_token=${token}` }),
      'x-rampart-site': site,
      'x-rampart-key': key,
      'x-original-uri': uri,
      'x-original-method': 'GET',
      'x-rampart-remote-addr': ip,
    },
  });
  return { status: res.status, guard: String(res.headers['x-rampart-guard'] ?? '') };
}

/** The plug-in-less check, which answers with the rule ids. */
async function check(
  site: string,
  request: { uri: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<CheckResult> {
  const res = await rawRequest(`${engine.gatewayUrl}/_rampart/check`, {
    method: 'POST',
    headers: { 'x-rampart-site': site, 'x-rampart-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      method: request.method ?? 'GET',
      uri: request.uri,
      remoteAddr: '198.51.100.30',
      headers: {
        host: 'shop.example.com',
        'user-agent': UA,
        accept: 'text/html',
        ...(request.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(request.body)) }),
        ...request.headers,
      },
      ...(request.body === undefined ? {} : { bodyBase64: Buffer.from(request.body).toString('base64') }),
    }),
  });
  expect(res.status, res.text).toBe(200);
  return JSON.parse(res.text) as CheckResult;
}

beforeAll(async () => {
  if (!haveCrs) return;
  work = await mkdtemp(join(tmpdir(), 'rampart-basic-rules-'));
  engine = await startTestEngine({ RAMPART_EDITION: 'B', RAMPART_WAF_COMPAT_LOG: join(work, 'compat.log') }, { clock });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
  key = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
  const config = (await readConfigDocument(engine.dataDir)) as unknown as {
    secrets: { tokenKey: string };
  };
  tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), clock);
});
afterAll(async () => {
  await engine?.dispose();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('basic rules with CRS 3.3.4', () => {
  skipAllWithout(
    haveCrs ? undefined : `Debian's CRS 3.3.4 is not installed (${DEBIAN_LOCATION.dir}): run npm run setup:system`,
  );
  it('reports the loaded rule set', async () => {
    const status = await admin.request<{ state: string; source: string; version: string; ruleCount: number }>(
      'GET',
      '/rule-set',
    );
    expect(status.body).toMatchObject({ state: 'loaded', source: 'detected', version: '3.3.4' });
    expect(status.body.ruleCount).toBeGreaterThanOrEqual(196);
  });

  it('lists 12 groups at loose by default, with the rule count of each level', async () => {
    const site = await createSite('groups', { runMode: 'monitor', accessMethod: 'plugin' });
    const res = await admin.request<{
      groups: { id: string; enabled: boolean; level: string; enabledRuleCount: number; ruleCount: number }[];
    }>('GET', `/sites/${site}/basic-rules`);
    expect(res.body.groups.map((g) => g.id)).toEqual([
      '001',
      '002',
      '003',
      '004',
      '005',
      '006',
      '007',
      '008',
      '009',
      '010',
      '011',
      '012',
    ]);
    expect(res.body.groups.every((g) => g.enabled && g.level === 'loose')).toBe(true);
    const sqli = res.body.groups.find((g) => g.id === '008')!;
    const strict = await admin.request<{ enabledRuleCount: number; level: string }>(
      'PUT',
      `/sites/${site}/basic-rules/groups/008`,
      {
        enabled: true,
        level: 'strict',
      },
    );
    expect(strict.body.level).toBe('strict');
    expect(strict.body.enabledRuleCount).toBeGreaterThan(sqli.enabledRuleCount);
    const rules = await admin.request<{ items: { id: number; level: number; enabled: boolean }[] }>(
      'GET',
      `/sites/${site}/basic-rules/groups/008/rules`,
    );
    expect(rules.body.items.find((r) => r.id === 942251)).toMatchObject({ level: 3, enabled: true });
    expect(rules.body.items.find((r) => r.id === 942100)).toMatchObject({ level: 1, enabled: true });
    expect(rules.body.items.filter((r) => r.enabled)).toHaveLength(strict.body.enabledRuleCount);

    const bad = await admin.request('PUT', `/sites/${site}/basic-rules/groups/008`, {
      enabled: true,
      level: 'paranoid',
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { field: 'level' } });
    expect(
      (await admin.request('PUT', `/sites/${site}/basic-rules/groups/013`, { enabled: true, level: 'loose' })).status,
    ).toBe(404);
  });

  it('a paranoia-level-3 rule (942251) fires only when its group is strict or very strict', async () => {
    const site = await createSite('levels', { runMode: 'monitor', accessMethod: 'plugin' });
    const attack = { uri: '/search?q=x%20having%20y' };
    const seen: Record<string, boolean> = {};
    for (const level of ['loose', 'normal', 'strict', 'very_strict']) {
      await admin.request('PUT', `/sites/${site}/basic-rules/groups/008`, { enabled: true, level });
      seen[level] = (await check(site, attack)).waf_triggered_rules.includes('942251');
    }
    expect(seen).toEqual({ loose: false, normal: false, strict: true, very_strict: true });
    // Switched off, the group's rules do not run at any level.
    await admin.request('PUT', `/sites/${site}/basic-rules/groups/008`, { enabled: false, level: 'very_strict' });
    expect((await check(site, attack)).waf_triggered_rules.filter((id) => id.startsWith('942'))).toEqual([]);
  });

  it('blocks attacks of several groups with OWASP and writes the rule ids, categories and score to the access log', async () => {
    const site = await createSite('attacks', { runMode: 'block', accessMethod: 'plugin' });
    const attacks: [string, string][] = [
      ['942100', "/item?id=1'%20OR%20'1'='1"],
      ['941100', '/search?q=%3Cscript%3Ealert(1)%3C/script%3E'],
      ['930120', '/download?file=../../../../etc/passwd'],
      ['932160', '/ping?host=127.0.0.1;cat%20/etc/passwd'],
    ];
    for (const [i, [, uri]] of attacks.entries()) {
      expect(await verdict(site, uri, `203.0.113.${10 + i}`), uri).toEqual({ status: 403, guard: 'OWASP' });
    }
    expect(await verdict(site, '/products/42?ref=home&q=blue+shoes', '203.0.113.99')).toEqual({
      status: 204,
      guard: 'PASS',
    });
    await engine.logStore.flush();
    const records = await engine.logStore.read(`access:${site}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    for (const [i, [id, uri]] of attacks.entries()) {
      const record = records.find((r) => r.src_ip === `203.0.113.${10 + i}`);
      expect(record, uri).toBeDefined();
      expect(String(record?.waf_triggered_rules).split(',')).toContain(id);
      expect(record?.guard_status).toBe('OWASP');
      expect(Number(record?.waf_triggered_score)).toBeGreaterThanOrEqual(5);
      expect(String(record?.waf_triggered_categories)).not.toBe('');
    }
  });

  it('at level normal, a level-2 SQL rule counts only when the SQL tokenizer confirms it; at strict it counts as written', async () => {
    const site = await createSite('level-check', { runMode: 'block', accessMethod: 'plugin' });
    await admin.request('PUT', `/sites/${site}/basic-rules/groups/008`, { enabled: true, level: 'normal' });
    const prose = '/search?q=select+the+best+option+from+the+list';
    // CRS's 942260 (paranoia level 2) fires on the sentence; the tokenizer finds no SQL in it.
    expect(await verdict(site, prose, '203.0.113.55')).toEqual({ status: 204, guard: 'PASS' });
    // SQL the tokenizer confirms still blocks.
    expect(await verdict(site, "/item?id=1'%20OR%20'1'='1", '203.0.113.56')).toEqual({ status: 403, guard: 'OWASP' });
    await admin.request('PUT', `/sites/${site}/basic-rules/groups/008`, { enabled: true, level: 'strict' });
    expect(await verdict(site, prose, '203.0.113.57')).toEqual({ status: 403, guard: 'OWASP' });

    await engine.logStore.flush();
    const records = await engine.logStore.read(`access:${site}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    const byIp = (ip: string) => records.find((r) => r.src_ip === ip);
    expect(String(byIp('203.0.113.55')?.waf_triggered_rules).split(',')).toContain('942260');
    expect(String(byIp('203.0.113.55')?.waf_level_check)).toMatch(
      /^cleared 5 -> 0 \(threshold 5\): 942260 ARGS:q: no SQL -5/,
    );
    expect(byIp('203.0.113.56')?.guard_status).toBe('OWASP');
    expect(String(byIp('203.0.113.57')?.waf_triggered_rules).split(',')).toContain('942260');
    expect(byIp('203.0.113.57')?.waf_level_check).toBe('');
  });

  it('the second opinion, when switched on, clears a level-2 SQL rule on prose and says why; attacks stay blocked', async () => {
    const site = await createSite('opinion', { runMode: 'block', accessMethod: 'plugin' });
    // At strict the level checks nothing: the opinion's own tokenizer check decides.
    await admin.request('PUT', `/sites/${site}/basic-rules/groups/008`, { enabled: true, level: 'strict' });
    const prose = '/search?q=select+the+best+option+from+the+list';
    // Off by default: CRS's 942260 (paranoia level 2) blocks the sentence.
    expect((await admin.request('GET', `/sites/${site}/basic-rules/second-opinion`)).body).toEqual({ enabled: false });
    expect(await verdict(site, prose, '203.0.113.60')).toEqual({ status: 403, guard: 'OWASP' });

    const on = await admin.request('PUT', `/sites/${site}/basic-rules/second-opinion`, { enabled: true });
    expect(on.status, on.text).toBe(200);
    const refused = await admin.request('PUT', `/sites/${site}/basic-rules/second-opinion`, { enabled: 'yes' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('enabled');
    expect(await verdict(site, prose, '203.0.113.61')).toEqual({ status: 204, guard: 'PASS' });
    // SQL the tokenizer confirms, and level-1 rules, still block.
    expect(await verdict(site, "/item?id=1'%20OR%20'1'='1", '203.0.113.62')).toEqual({ status: 403, guard: 'OWASP' });

    await engine.logStore.flush();
    const records = await engine.logStore.read(`access:${site}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    const byIp = (ip: string) => records.find((r) => r.src_ip === ip);
    const off = byIp('203.0.113.60');
    expect(String(off?.waf_triggered_rules).split(',')).toContain('942260');
    expect(off?.waf_second_opinion).toBe('');
    const cleared = byIp('203.0.113.61');
    expect(cleared?.guard_status).toBe('PASS');
    expect(String(cleared?.waf_triggered_rules).split(',')).toContain('942260');
    expect(String(cleared?.waf_second_opinion)).toMatch(/^cleared 5 -> 0 \(threshold 5\): 942260 ARGS:q: no SQL -5/);
    expect(byIp('203.0.113.62')).toMatchObject({ guard_status: 'OWASP' });
  });

  it('the second opinion weighs the site’s learned normal and the age of a browser’s token', async () => {
    const site = await createSite('learned', { runMode: 'block', accessMethod: 'plugin' });
    await admin.request('PUT', `/sites/${site}/basic-rules/groups/006`, { enabled: true, level: 'normal' });
    await admin.request('PUT', `/sites/${site}/basic-rules/second-opinion`, { enabled: true });
    const partner = '/go?ref=https%3A%2F%2Fpartner.example.org%2Fspring-sale';
    // Nothing learned yet, no token: CRS's 931130 (paranoia level 2, an off-site link) blocks it.
    expect((await verdict(site, partner, '203.0.113.90', null)).guard).toBe('OWASP');
    // The site's own links in the same parameter, from five clients: clean, so they are learned.
    for (let i = 0; i < 50; i++)
      expect(
        (await verdict(site, `/go?ref=https%3A%2F%2Fshop.example.com%2Fitem-${i}`, `203.0.113.${100 + (i % 5)}`)).guard,
      ).toBe('PASS');
    // Now the off-site link has the parameter's usual shape: 2 points off, under the threshold (the
    // verdict then asks for the missing token).
    expect((await verdict(site, partner, '203.0.113.91', null)).guard).toBe('TOKEN_MISS');
    // A link far longer than the parameter ever carries adds 2 points instead.
    const long = `/go?ref=https%3A%2F%2Fpartner.example.org%2F${'a'.repeat(120)}`;
    expect((await verdict(site, long, '203.0.113.92', null)).guard).toBe('OWASP');
    // A browser whose token was issued 6 minutes ago (5 or more, no block since): 4 points off, not 3.
    const settled = tokenFor(site, '203.0.113.93');
    clock.advance(6 * 60_000);
    expect((await verdict(site, `${long}&x=2`, '203.0.113.93', settled)).guard).toBe('PASS');

    await engine.logStore.flush();
    const records = await engine.logStore.read(`access:${site}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    const opinionOf = (ip: string) => String(records.find((r) => r.src_ip === ip)?.waf_second_opinion);
    expect(opinionOf('203.0.113.90')).toBe('kept 5 -> 5 (threshold 5): no signal');
    expect(opinionOf('203.0.113.91')).toBe(
      'cleared 5 -> 3 (threshold 5): ARGS:ref on /go: letters, digits, slashes, punctuation, up to 63 characters as usual (50 requests) -2',
    );
    expect(opinionOf('203.0.113.92')).toMatch(
      /^kept 5 -> 7 \(threshold 5\): ARGS:ref on \/go: 1\d\d characters, usually up to 63 \(50 requests\) \+2$/,
    );
    expect(opinionOf('203.0.113.93')).toMatch(
      /^cleared 5 -> 3 \(threshold 5\): probed browser, token 6 min old -4; ARGS:ref on \/go: .* \+2$/,
    );
  });

  it('denies a plugin-access client for one minute after a basic rule fired', async () => {
    const site = await createSite('denial', { runMode: 'block', accessMethod: 'plugin' });
    expect((await verdict(site, "/item?id=1'%20OR%20'1'='1", '203.0.113.50')).guard).toBe('OWASP');
    expect(await verdict(site, '/products/42', '203.0.113.50')).toEqual({ status: 403, guard: 'OWASP' });
    expect(await verdict(site, '/products/42', '203.0.113.51')).toEqual({ status: 204, guard: 'PASS' });
    clock.advance(61_000);
    expect(await verdict(site, '/products/42', '203.0.113.50')).toEqual({ status: 204, guard: 'PASS' });
  });

  it('a false positive answered from its stored record: proposed, previewed, excluded, learned', async () => {
    const site = await createSite('exceptions', { runMode: 'monitor', accessMethod: 'plugin' });
    const uri = "/search?q=1'%20OR%20'1'='1&page=2";
    // The same request from three clients, seven times each: a pattern, not a lone attacker.
    for (let i = 0; i < 21; i++) expect((await verdict(site, uri, `203.0.113.${70 + (i % 3)}`)).guard).toBe('OWASP');
    await engine.logStore.flush();
    const found = await admin.request<{ records: { id: string; record: Record<string, unknown> }[] }>(
      'POST',
      '/logs/search',
      { log: `access:${site}`, range: { all: true }, query: 'guard_status:OWASP' },
    );
    expect(found.status, found.text).toBe(200);
    const stored = found.body.records[0]!;
    expect(String(stored.record.waf_triggered_targets)).toContain('942100 ARGS:q');

    const proposals = await admin.request<{
      items: { ruleId: number; target: string; path: string }[];
      request: string;
    }>('POST', `/sites/${site}/waf-exclusions/proposals`, { recordId: stored.id });
    expect(proposals.status, proposals.text).toBe(200);
    expect(proposals.body.items).toContainEqual(
      expect.objectContaining({ ruleId: 942100, target: 'ARGS:q', path: '/search' }),
    );
    expect(proposals.body.items.every((p) => p.path === '/search')).toBe(true);

    // Each proposal alone reaches all 21 records; together they clear them.
    const { ruleId, target, path } = proposals.body.items[0]!;
    const preview = await admin.request<{ examined: number; matched: number; cleared: number; partial: boolean }>(
      'POST',
      `/sites/${site}/waf-exclusions/preview`,
      { ruleId, target, path },
    );
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toMatchObject({ examined: 21, matched: 21, partial: false });

    const suggestions = await admin.request<{
      items: { ruleId: number; target: string; requests: number; clients: number }[];
    }>('POST', `/sites/${site}/waf-exclusions/suggestions`, {});
    expect(suggestions.status, suggestions.text).toBe(200);
    expect(suggestions.body.items).toContainEqual(
      expect.objectContaining({ ruleId: 942100, target: 'ARGS:q', path: '/search', requests: 21, clients: 3 }),
    );

    for (const p of proposals.body.items) {
      const made = await admin.request('POST', `/sites/${site}/waf-exclusions`, {
        ruleId: p.ruleId,
        target: p.target,
        path: p.path,
        reason: 'Search box for SQL tutorials',
      });
      expect(made.status, made.text).toBe(201);
    }
    expect((await verdict(site, uri, '203.0.113.80')).guard).toBe('PASS');
    // Another parameter of the same path is still inspected.
    expect((await verdict(site, "/search?text=1'%20OR%20'1'='1", '203.0.113.81')).guard).toBe('OWASP');
    const again = await admin.request('POST', `/sites/${site}/waf-exclusions/proposals`, { recordId: stored.id });
    expect(again.body).toMatchObject({ items: [] });

    // A record of another site is refused by name.
    const other = await createSite('exceptions-other', { runMode: 'monitor', accessMethod: 'plugin' });
    const refused = await admin.request<{ field?: string }>('POST', `/sites/${other}/waf-exclusions/proposals`, {
      recordId: stored.id,
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('recordId');
  });

  it('refuses hostile exclusion and second-opinion input with a 4xx naming the field, and goes on', async () => {
    const site = await createSite('hostile', { runMode: 'block', accessMethod: 'plugin' });
    const base = `/sites/${site}/waf-exclusions`;
    const valid = { ruleId: 942100, target: 'ARGS:q', path: '/search', reason: 'Search box takes SQL examples' };
    const refusals: [string, string, unknown, string][] = [
      ['POST', base, { ...valid, ruleId: '942100' }, 'ruleId'],
      ['POST', base, { ...valid, ruleId: 1.5 }, 'ruleId'],
      ['POST', base, { ...valid, ruleId: -1 }, 'ruleId'],
      ['POST', base, { ...valid, ruleId: 1e12 }, 'ruleId'],
      ['POST', base, { ...valid, target: 'ARGS:q\u0000x' }, 'target'],
      ['POST', base, { ...valid, target: 'A'.repeat(10_000) }, 'target'],
      ['POST', base, { ...valid, path: 'search' }, 'path'],
      ['POST', base, { ...valid, path: '/a*/b' }, 'path'],
      ['POST', base, { ...valid, path: `/${'p'.repeat(5_000)}` }, 'path'],
      ['POST', base, { ...valid, reason: '   ' }, 'reason'],
      ['POST', base, { ...valid, reason: 'r'.repeat(100_000) }, 'reason'],
      ['POST', base, { ...valid, extra: true }, 'extra'],
      ['POST', `${base}/proposals`, { recordId: '' }, 'recordId'],
      ['POST', `${base}/proposals`, { recordId: 'x'.repeat(4_000) }, 'recordId'],
      ['POST', `${base}/preview`, { ...valid, range: { last: 'forever' } }, 'range'],
      ['PUT', `/sites/${site}/basic-rules/second-opinion`, { enabled: 1 }, 'enabled'],
      ['PUT', `/sites/${site}/basic-rules/second-opinion`, { enabled: true, more: 1 }, 'more'],
    ];
    for (const [method, path, body, field] of refusals) {
      const res = await admin.request(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      expect(res.text, `${method} ${path}`).toContain(field);
    }
    const notJson = await admin.request('POST', base, undefined, {
      rawBody: '{"ruleId": 9421',
      contentType: 'application/json',
    });
    expect(notJson.status).toBe(400);
    const unknownRecord = await admin.request('POST', `${base}/proposals`, { recordId: 'bm90LWEtcmVjb3Jk' });
    expect([400, 404]).toContain(unknownRecord.status);
    expect((await admin.request('DELETE', `${base}/ex_missing`)).status).toBe(404);
    expect((await admin.request('POST', '/sites/site_missing/waf-exclusions', valid)).status).toBe(404);
    expect(
      (await admin.request('PUT', '/sites/site_missing/basic-rules/second-opinion', { enabled: true })).status,
    ).toBe(404);
    // Nothing was stored, and the engine still answers and stores a valid exclusion.
    expect((await admin.request<{ items: unknown[] }>('GET', base)).body.items).toEqual([]);
    expect((await admin.request('POST', base, valid)).status).toBe(201);
    expect((await admin.request('GET', `/sites/${site}/basic-rules/second-opinion`)).body).toEqual({ enabled: false });
  });

  it('monitor mode logs the rule ids without blocking', async () => {
    const site = await createSite('monitored', { runMode: 'monitor', accessMethod: 'plugin' });
    expect(await verdict(site, "/item?id=1'%20OR%20'1'='1", '203.0.113.60')).toEqual({ status: 204, guard: 'OWASP' });
    expect(await verdict(site, '/products/42', '203.0.113.60')).toEqual({ status: 204, guard: 'PASS' });
  });

  it('custom rules: validated, enforced, switched off and deleted', async () => {
    const site = await createSite('custom', { runMode: 'block', accessMethod: 'plugin' });
    const base = { name: 'No admin', remark: 'the admin area is internal', enabled: true };
    const invalid = await admin.request('POST', `/sites/${site}/custom-rules`, {
      ...base,
      location: 'url',
      conditions: [{ location: 'url', name: '', pattern: '^/admin(' }],
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ error: { field: 'conditions.0.pattern' } });
    const backref = await admin.request('POST', `/sites/${site}/custom-rules`, {
      ...base,
      location: 'url',
      conditions: [{ location: 'url', name: '', pattern: '(a)\\1' }],
    });
    expect(backref.body).toMatchObject({ error: { field: 'conditions.0.pattern' } });
    expect(backref.text).toMatch(/linear time/);
    const header = await admin.request('POST', `/sites/${site}/custom-rules`, {
      ...base,
      location: 'header_value',
      conditions: [{ location: 'header_value', name: '.*', pattern: 'x' }],
    });
    expect(header.body).toMatchObject({ error: { field: 'location' } });
    expect(header.text).toMatch(/plugin access/);

    const created = await admin.request<{ id: string; attackType: string; direction: string }>(
      'POST',
      `/sites/${site}/custom-rules`,
      {
        ...base,
        location: 'url',
        conditions: [{ location: 'url', name: '', pattern: '^/admin(/|$)' }],
      },
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ attackType: 'custom', direction: 'request' });
    const taken = await admin.request('POST', `/sites/${site}/custom-rules`, {
      ...base,
      location: 'url',
      conditions: [{ location: 'url', name: '', pattern: 'x' }],
    });
    expect(taken.body).toMatchObject({ error: { code: 'NAME_TAKEN', field: 'name' } });

    expect(await verdict(site, '/admin/users', '203.0.113.70')).toEqual({ status: 403, guard: 'OWASP' });
    expect(await verdict(site, '/administrator', '203.0.113.71')).toEqual({ status: 204, guard: 'PASS' });
    await engine.logStore.flush();
    const records = await engine.logStore.read(`access:${site}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    expect(records.find((r) => r.src_ip === '203.0.113.70')).toMatchObject({
      waf_triggered_rules: created.body.id,
      waf_triggered_categories: 'custom',
    });

    const off = await admin.request('PUT', `/sites/${site}/custom-rules/${created.body.id}`, {
      ...base,
      enabled: false,
      location: 'url',
      conditions: [{ location: 'url', name: '', pattern: '^/admin(/|$)' }],
    });
    expect(off.status, off.text).toBe(200);
    expect(await verdict(site, '/admin/users', '203.0.113.72')).toEqual({ status: 204, guard: 'PASS' });
    expect((await admin.request('GET', `/sites/${site}/custom-rules`)).body).toMatchObject({
      items: [{ id: created.body.id, enabled: false }],
    });
    expect((await admin.request('DELETE', `/sites/${site}/custom-rules/${created.body.id}`)).status).toBe(204);
    expect((await admin.request('DELETE', `/sites/${site}/custom-rules/${created.body.id}`)).status).toBe(404);
  });

  it('bad bodies and requests get defined results without crashing the engine', async () => {
    const site = await createSite('bad-input', { runMode: 'monitor', accessMethod: 'plugin' });
    const json = await check(site, {
      uri: '/api/cart',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"item": 42, "qty": ',
    });
    expect(json.waf_triggered_rules).toContain('200002');
    const multipart = await check(site, {
      uri: '/upload',
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue\r\n--xy',
    });
    expect(multipart.guard_status).toBe('OWASP');
    const manyParams = Array.from({ length: 5000 }, (_, i) => `p${i}=${i}`).join('&');
    const many = await check(site, { uri: `/list?${manyParams.slice(0, 8000)}` });
    expect(many.guard_status).toBe('TOKEN_MISS'); // the rules found nothing; the token stage answered
    const weird = await check(site, { uri: '/a%00b?x=%ff%fe%00&y=%c0%af' });
    expect(weird.waf_triggered_rules).toContain('920270'); // invalid character (NUL) in the request
    const big = await check(site, {
      uri: '/upload',
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `a=${'x'.repeat(140 * 1024)}`,
    });
    expect(big.guard_status).toBe('OWASP');
    // The engine still answers.
    expect((await check(site, { uri: '/' })).guard_status).toBe('TOKEN_MISS');
  });

  it('names rule 911100 (method not allowed, outside the 12 groups) in the access record of the block it caused', async () => {
    const site = await createSite('methods', { runMode: 'block', accessMethod: 'plugin' });
    const res = await check(site, { uri: '/dav/folder', method: 'PROPFIND' });
    expect(res).toMatchObject({
      action: 'block',
      waf_triggered_rules: ['911100'],
      waf_triggered_categories: ['generic'],
    });
    await engine.logStore.flush();
    const records = await engine.logStore.read(`access:${site}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    const record = records.find((r) => String(r.request).startsWith('PROPFIND '));
    expect(record).toMatchObject({
      guard_status: 'OWASP',
      waf_triggered_rules: '911100',
      waf_triggered_categories: 'generic',
      waf_rule_set: '',
    });
  });

  it('writes ModSecurity-style lines with [id "..."] and the X-CRS-Test marker to the compatibility log', async () => {
    const site = await createSite('compat', { runMode: 'monitor', accessMethod: 'plugin' });
    await check(site, { uri: '/?x=%3Cscript%3Ealert(1)%3C/script%3E', headers: { 'x-crs-test': 'marker-4f2a' } });
    await new Promise((r) => setTimeout(r, 50));
    const log = await readFile(join(work, 'compat.log'), 'utf8');
    expect(log).toMatch(/\[id "941100"\]/);
    expect(log).toContain('marker-4f2a');
  });

  it('refuses a broken rule set with file and line and keeps the running one', async () => {
    const broken = join(work, 'broken-crs');
    await cp(DEBIAN_LOCATION.dir, broken, { recursive: true, dereference: true });
    const file = join(broken, 'rules', 'REQUEST-942-APPLICATION-ATTACK-SQLI.conf');
    const text = await readFile(file, 'utf8');
    await writeFile(file, `${text}\nSecRule ARGS "@rx unclosed\n`);
    const res = await admin.request<{ error: { field: string; message: string; params: Record<string, unknown> } }>(
      'PUT',
      '/rule-set',
      { dir: broken },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('dir');
    expect(res.body.error.message).toMatch(/REQUEST-942-APPLICATION-ATTACK-SQLI\.conf:\d+/);
    expect(res.body.error.message).toMatch(/previous rule set keeps running/);
    // The problem as a code with its parameters, for the console to say in its own language.
    expect(res.body.error.params).toMatchObject({
      reason: 'rule_set',
      problem: 'unterminated_quote',
      in: 'SecRule',
      quote: 'double',
      column: 14,
      more: 0,
      kept: true,
      file: 'rules/REQUEST-942-APPLICATION-ATTACK-SQLI.conf',
    });
    const status = await admin.request<{
      state: string;
      source: string;
      lastError: { file: string; line: number; code: string; params: Record<string, unknown> };
    }>('GET', '/rule-set');
    expect(status.body.lastError.code).toBe('unterminated_quote');
    expect(status.body.lastError.params).toEqual({ in: 'SecRule', quote: 'double', column: 14, more: 0 });
    expect(res.body.error.params.line).toBe(status.body.lastError.line);
    // The failing file is named relative to the rule-set folder, not by its host path.
    expect(status.body).toMatchObject({
      state: 'loaded',
      source: 'detected',
      lastError: { file: 'rules/REQUEST-942-APPLICATION-ATTACK-SQLI.conf' },
    });
    expect(JSON.stringify(status.body.lastError)).not.toContain(work);
    expect(status.body.lastError.line).toBeGreaterThan(0);
    expect((await admin.request('PUT', '/rule-set', { dir: join(work, 'nothing-here') })).status).toBe(400);
    // Verdicts still run the previous set.
    const site = await createSite('still-running', { runMode: 'monitor', accessMethod: 'plugin' });
    expect((await check(site, { uri: "/item?id=1'%20OR%20'1'='1" })).waf_triggered_rules).toContain('942100');
  });

  it('installs an uploaded CRS release archive and refuses one that is not', async () => {
    const release = join(work, 'release');
    await mkdir(join(release, 'coreruleset-3.3.4'), { recursive: true });
    await cp(join(DEBIAN_LOCATION.dir, 'rules'), join(release, 'coreruleset-3.3.4', 'rules'), {
      recursive: true,
      dereference: true,
    });
    if (existsSync(join(DEBIAN_LOCATION.etc, 'crs-setup.conf'))) {
      await cp(
        join(DEBIAN_LOCATION.etc, 'crs-setup.conf'),
        join(release, 'coreruleset-3.3.4', 'crs-setup.conf.example'),
      );
    }
    const archive = join(work, 'coreruleset-3.3.4.tar.gz');
    execFileSync('tar', ['-czf', archive, '-C', release, 'coreruleset-3.3.4']);
    const content = (await readFile(archive)).toString('base64');
    const res = await admin.request<{ state: string; source: string; version: string }>('POST', '/rule-set/upload', {
      fileName: 'coreruleset-3.3.4.tar.gz',
      contentBase64: content,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ state: 'loaded', source: 'uploaded', version: '3.3.4' });
    const garbage = await admin.request('POST', '/rule-set/upload', {
      fileName: 'coreruleset.tar.gz',
      contentBase64: Buffer.from('not an archive').toString('base64'),
    });
    expect(garbage.status).toBe(400);
    expect(garbage.body).toMatchObject({
      error: {
        field: 'fileName',
        params: { reason: 'rule_set', problem: 'archive_not_gzip', archive: 'coreruleset.tar.gz' },
      },
    });
    expect(
      (await admin.request('POST', '/rule-set/upload', { fileName: 'rules.rar', contentBase64: 'AAAA' })).status,
    ).toBe(400);
    expect((await admin.request<{ source: string }>('GET', '/rule-set')).body.source).toBe('uploaded');
    const auto = await admin.request<{ source: string }>('PUT', '/rule-set', { dir: null });
    expect(auto.body.source).toBe('detected');
  });
});
