/**
 * The WAF stage over a small CRS-shaped rule set, with the real configuration store and rule-set
 * manager: which rules a block is put down to, what a verdict says when no rule set is loaded, and
 * when WAFs are compiled (on a save or a rule-set install, never in a verdict, not for a
 * configuration write that does not concern the rules).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore, type SiteRecord } from '#engine/config-store';
import { BasicRulesService, RuleSetManager } from '#engine/basic-rules';
import { compileSite, siteInputSchema, type CompiledSite } from '#engine/sites';
import { cryptoRandom, ManualClock, silentLogger } from '#engine/shared';
import type { RequestFacts } from '#engine/verdict';

const clock = new ManualClock(Date.UTC(2026, 10, 24));
let dir: string;
let store: ConfigStore;

/**
 * 911 lies outside the 12 groups; 942 is group 008, 941 group 009, 920 group 011. 901162 and
 * 920420 are CRS's content-type policy as CRS writes it.
 */
const RULES: Record<string, string> = {
  'crs-setup.conf.example': 'SecAction "id:900990,phase:1,pass,nolog,setvar:tx.crs_setup_version=334"\n',
  'rules/REQUEST-901-INITIALIZATION.conf':
    'SecAction "id:901100,phase:1,pass,nolog,setvar:tx.anomaly_score=0"\n' +
    'SecRule &TX:allowed_request_content_type "@eq 0" "id:901162,phase:1,pass,nolog,setvar:\'tx.allowed_request_content_type=|application/x-www-form-urlencoded| |application/json|\'"\n',
  'rules/REQUEST-920-PROTOCOL-ENFORCEMENT.conf':
    "SecRule REQUEST_HEADERS:Content-Type \"@rx ^[^;\\s]+\" \"id:920420,phase:1,block,capture,t:none,msg:'Request content type is not allowed by policy',tag:'attack-protocol',setvar:'tx.content_type=|%{tx.0}|',chain\"\n" +
    '  SecRule TX:content_type "!@within %{tx.allowed_request_content_type}" "t:lowercase,setvar:\'tx.anomaly_score=+5\'"\n',
  'rules/REQUEST-911-METHOD-ENFORCEMENT.conf':
    "SecRule REQUEST_METHOD \"!@within GET POST HEAD\" \"id:911100,phase:1,block,msg:'Method is not allowed by policy',tag:'attack-generic',setvar:'tx.anomaly_score=+5'\"\n",
  'rules/REQUEST-941-APPLICATION-ATTACK-XSS.conf':
    "SecRule ARGS \"@rx <script\" \"id:941100,phase:2,block,msg:'XSS',tag:'attack-xss',setvar:'tx.anomaly_score=+5'\"\n",
  'rules/REQUEST-942-APPLICATION-ATTACK-SQLI.conf':
    "SecRule ARGS \"@rx union select\" \"id:942100,phase:2,block,msg:'SQLi',tag:'attack-sqli',setvar:'tx.anomaly_score=+5'\"\n",
  'rules/REQUEST-949-BLOCKING-EVALUATION.conf':
    'SecRule TX:ANOMALY_SCORE "@ge 5" "id:949110,phase:2,deny,status:403,msg:\'Inbound Anomaly Score Exceeded\',tag:\'attack-generic\'"\n',
};

function writeRuleSet(name: string, extra: Record<string, string> = {}): string {
  const root = join(dir, name);
  for (const [path, text] of Object.entries({ ...RULES, ...extra })) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rampart-basic-rules-'));
  store = await ConfigStore.open(dir, clock);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function addSite(id: string): Promise<CompiledSite> {
  const settings = siteInputSchema.parse({
    name: id,
    domain: `${id.replace(/_/g, '-')}.example.com`,
    runMode: 'block',
    accessMethod: 'plugin',
  });
  const record: SiteRecord = { ...settings, id, createdAt: 0, updatedAt: 0 };
  await store.update((doc) => {
    doc.sites.push(record);
  });
  return compileSite(record, store.data.siteGlobal, 'B');
}

const request = (over: Partial<RequestFacts> = {}): RequestFacts => ({
  method: 'GET',
  scheme: 'https',
  host: 'shop.example.com',
  uri: '/',
  protocol: 'HTTP/1.1',
  remoteAddr: '203.0.113.9',
  requestId: 'r',
  headers: { host: 'shop.example.com', 'user-agent': 'Mozilla/5.0' },
  ...over,
});

async function setUp(ruleSet: 'small' | 'none'): Promise<{ manager: RuleSetManager; service: BasicRulesService }> {
  const root = writeRuleSet('crs');
  const manager = new RuleSetManager({
    store,
    dataDir: dir,
    clock,
    logger: silentLogger,
    waf: {},
    detect: () => (ruleSet === 'small' ? { dir: root, options: {} } : null),
  });
  await manager.start();
  const service = new BasicRulesService({ store, clock, random: cryptoRandom, ruleSets: manager });
  return { manager, service };
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('a block is put down to every rule that contributed, whatever group holds it', () => {
  it('names 911100 (method not allowed, outside the 12 groups) and its category', async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    const outcome = service.inspect(request({ method: 'PROPFIND' }), site, '203.0.113.9');
    expect(outcome).toMatchObject({ blocked: true, ruleIds: ['911100'], categories: ['generic'] });
  });

  it('does not name the anomaly evaluation rule that turned the scores into the block', async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    const outcome = service.inspect(request({ uri: '/?q=union%20select' }), site, '203.0.113.9');
    expect(outcome).toMatchObject({ blocked: true, ruleIds: ['942100'], categories: ['sqli'] });
  });
});

describe('without a rule set', () => {
  it('answers that the rule set is missing for a site whose groups are on, and not once they are all off', async () => {
    const { service } = await setUp('none');
    const site = await addSite('site_a');
    expect(service.inspect(request({ uri: '/?q=union%20select' }), site, '203.0.113.9')).toMatchObject({
      blocked: false,
      ruleSet: 'missing',
    });
    for (const group of ['001', '002', '003', '004', '005', '006', '007', '008', '009', '010', '011', '012']) {
      await service.setGroup(site.id, group, { enabled: false, level: 'loose' });
    }
    expect(service.inspect(request(), site, '203.0.113.9').ruleSet).toBeUndefined();
  });

  it('still runs custom rules and says the rule set is missing', async () => {
    const { service } = await setUp('none');
    const site = await addSite('site_a');
    await service.createCustomRule(site.id, {
      name: 'admin',
      remark: '',
      enabled: true,
      location: 'url',
      conditions: [{ location: 'url', name: '', pattern: '^/admin' }],
    });
    expect(service.inspect(request({ uri: '/admin' }), site, '203.0.113.9')).toMatchObject({
      blocked: true,
      categories: ['custom'],
      ruleSet: 'missing',
    });
  });
});

describe('custom rule refusals', () => {
  it('name the field and say why as parameters: the regex error by kind, the length by bound', async () => {
    const { service } = await setUp('none');
    const site = await addSite('site_a');
    const refusal = async (pattern: string): Promise<unknown> =>
      service
        .createCustomRule(site.id, {
          name: 'bad',
          remark: '',
          enabled: true,
          location: 'url',
          conditions: [{ location: 'url', name: '', pattern }],
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
    expect(await refusal('(a')).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'conditions.0.pattern',
      params: { reason: 'regex_invalid', kind: 'unterminated_group', error: 'Unterminated group' },
    });
    expect(await refusal('(a)\\1')).toMatchObject({ params: { reason: 'not_linear' } });
  });
});

describe('WAFs are compiled off the verdict path', () => {
  it('a configuration write that does not concern the rules compiles nothing, before or after the next verdicts', async () => {
    const { manager, service } = await setUp('small');
    // More combinations of switched-off groups than the rule set keeps compiled besides its own.
    const sites: CompiledSite[] = [];
    for (const group of ['001', '002', '003', '004', '005', '006']) {
      const site = await addSite(`site_${group}`);
      await service.setGroup(site.id, group, { enabled: false, level: 'loose' });
      sites.push(site);
    }
    const compiled = manager.current?.compilations;
    // Every write publishes a new document, as a sign-in's lastSignInAt does.
    await store.update((doc) => {
      doc.links = [...doc.links];
    });
    for (const site of sites) service.inspect(request({ uri: '/?q=union%20select' }), site, '203.0.113.9');
    await nextTick();
    for (const site of sites) service.inspect(request({ uri: '/?q=union%20select' }), site, '203.0.113.9');
    expect(manager.current?.compilations).toBe(compiled);
  });

  it('a group switched off is compiled when it is saved, and the next verdict uses it without compiling', async () => {
    const { manager, service } = await setUp('small');
    const site = await addSite('site_a');
    const xss = request({ uri: '/?q=%3Cscript%3E' });
    expect(service.inspect(xss, site, '203.0.113.9').ruleIds).toEqual(['941100']);
    const before = manager.current?.compilations ?? 0;
    await service.setGroup(site.id, '009', { enabled: false, level: 'loose' });
    const after = manager.current?.compilations ?? 0;
    expect(after).toBe(before + 1);
    expect(service.inspect(xss, site, '203.0.113.9').ruleIds).toEqual([]);
    expect(manager.current?.compilations).toBe(after);
  });

  it('sites with the same groups switched off share one compiled WAF', async () => {
    const { manager, service } = await setUp('small');
    const a = await addSite('site_a');
    const b = await addSite('site_b');
    await service.setGroup(a.id, '009', { enabled: false, level: 'loose' });
    const once = manager.current?.compilations ?? 0;
    await service.setGroup(b.id, '009', { enabled: false, level: 'strict' });
    expect(manager.current?.compilations).toBe(once);
  });

  it('a new rule set is compiled for every site before the next verdict uses it', async () => {
    const { manager, service } = await setUp('small');
    const site = await addSite('site_a');
    await service.setGroup(site.id, '009', { enabled: false, level: 'loose' });
    const next = writeRuleSet('crs-next', {
      'rules/REQUEST-942-APPLICATION-ATTACK-SQLI.conf':
        "SecRule ARGS \"@rx drop table\" \"id:942200,phase:2,block,msg:'SQLi',tag:'attack-sqli',setvar:'tx.anomaly_score=+5'\"\n",
    });
    await manager.useDir(next);
    const loaded = manager.current;
    const compiled = loaded?.compilations;
    expect(compiled).toBe(2);
    expect(service.inspect(request({ uri: '/?q=drop%20table' }), site, '203.0.113.9').ruleIds).toEqual(['942200']);
    expect(service.inspect(request({ uri: '/?q=%3Cscript%3E' }), site, '203.0.113.9').ruleIds).toEqual([]);
    expect(loaded?.compilations).toBe(compiled);
  });

  it('a site created since the last save runs the all-groups WAF until its own is built', async () => {
    const { manager, service } = await setUp('small');
    const compiled = manager.current?.compilations;
    const site = await addSite('site_new');
    expect(service.inspect(request({ uri: '/?q=union%20select' }), site, '203.0.113.9').ruleIds).toEqual(['942100']);
    expect(manager.current?.compilations).toBe(compiled);
  });
});

describe('allowed request content types (rule 920420)', () => {
  const post = (contentType: string): RequestFacts =>
    request({ method: 'POST', uri: '/beacon', headers: { host: 'shop.example.com', 'content-type': contentType } });

  it("Rampart's default list lets beacons, CSP reports and gRPC-web through and still refuses an unknown type", async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    for (const type of ['text/plain;charset=UTF-8', 'application/csp-report', 'application/grpc-web+proto']) {
      expect(service.inspect(post(type), site, '203.0.113.9'), type).toMatchObject({ blocked: false, ruleIds: [] });
    }
    expect(service.inspect(post('application/x-unheard-of'), site, '203.0.113.9')).toMatchObject({
      blocked: true,
      ruleIds: ['920420'],
    });
    expect(service.contentTypes(site.id)).toMatchObject({ isDefault: true });
  });

  it("a site's own list replaces the default, and null brings the default back", async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    const other = await addSite('site_b');
    await service.setContentTypes(site.id, { types: ['application/x-unheard-of'] });
    expect(service.inspect(post('application/x-unheard-of'), site, '203.0.113.9').blocked).toBe(false);
    expect(service.inspect(post('text/plain'), site, '203.0.113.9').ruleIds).toEqual(['920420']);
    // The other site, on the same compiled rule set, keeps the default.
    expect(service.inspect(post('text/plain'), other, '203.0.113.9').blocked).toBe(false);
    expect(service.inspect(post('application/x-unheard-of'), other, '203.0.113.9').blocked).toBe(true);
    await service.setContentTypes(site.id, { types: null });
    expect(service.inspect(post('text/plain'), site, '203.0.113.9').blocked).toBe(false);
  });

  it("a setup file that sets the policy (CRS rule 900220) still wins over Rampart's default", async () => {
    const root = writeRuleSet('crs-own-setup', {
      'crs-setup.conf.example':
        'SecAction "id:900220,phase:1,pass,nolog,setvar:\'tx.allowed_request_content_type=|application/json|\'"\n',
    });
    const manager = new RuleSetManager({
      store,
      dataDir: dir,
      clock,
      logger: silentLogger,
      waf: {},
      detect: () => ({ dir: root, options: {} }),
    });
    await manager.start();
    const service = new BasicRulesService({ store, clock, random: cryptoRandom, ruleSets: manager });
    const site = await addSite('site_a');
    expect(service.inspect(post('text/plain'), site, '203.0.113.9').ruleIds).toEqual(['920420']);
    expect(service.inspect(post('application/json'), site, '203.0.113.9').blocked).toBe(false);
  });
});

describe('exclusions', () => {
  const sqli = (uri: string): RequestFacts => request({ uri });
  const ip = '203.0.113.9';
  const by = 'admin@example.com';

  it('says which variable each rule fired on', async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    expect(service.inspect(sqli('/search?q=union%20select'), site, ip).targets).toEqual(['942100 ARGS:q']);
  });

  it("removes one rule's target on one path, and nothing else", async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    const made = await service.createExclusion(
      site.id,
      { ruleId: 942100, target: 'ARGS:q', path: '/search', reason: 'SQL tutorials are searched for' },
      by,
    );
    expect(made).toMatchObject({ ruleId: 942100, createdBy: by, ruleMessage: 'SQLi' });
    expect(service.inspect(sqli('/search?q=union%20select'), site, ip)).toMatchObject({ blocked: false, ruleIds: [] });
    // Another parameter, another path, another rule on the same parameter: still caught.
    expect(service.inspect(sqli('/search?text=union%20select'), site, ip).ruleIds).toEqual(['942100']);
    expect(service.inspect(sqli('/other?q=union%20select'), site, ip).ruleIds).toEqual(['942100']);
    expect(service.inspect(sqli('/search?q=%3Cscript%3E'), site, ip).ruleIds).toEqual(['941100']);
    await service.deleteExclusion(site.id, made.id);
    expect(service.inspect(sqli('/search?q=union%20select'), site, ip).ruleIds).toEqual(['942100']);
  });

  it('a path ending in * is a prefix; an empty path is every path', async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    await service.createExclusion(site.id, { ruleId: 942100, target: 'ARGS', path: '/api/*', reason: 'API' }, by);
    expect(service.inspect(sqli('/api/v2/items?filter=union%20select'), site, ip).blocked).toBe(false);
    expect(service.inspect(sqli('/apix?filter=union%20select'), site, ip).blocked).toBe(true);
    await service.createExclusion(site.id, { ruleId: 941100, target: '', path: '', reason: 'Rich text site' }, by);
    expect(service.inspect(sqli('/anywhere?q=%3Cscript%3E'), site, ip).blocked).toBe(false);
  });

  it('a rule switched off for the whole site is listed as off with its reason', async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    const off = await service.createExclusion(
      site.id,
      { ruleId: 942100, target: '', path: '', reason: 'Legacy app' },
      by,
    );
    expect(service.groupRules(site.id, '008')).toEqual([
      expect.objectContaining({
        id: 942100,
        enabled: false,
        switchedOff: { exclusionId: off.id, reason: 'Legacy app' },
      }),
    ]);
    expect(service.exclusions(site.id)).toEqual([expect.objectContaining({ id: off.id, reason: 'Legacy app' })]);
  });

  it('an exclusion lifts the denials its site made before it, and its group counts the rule as off', async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    expect(service.inspect(sqli('/search?q=union%20select'), site, ip).blocked).toBe(true);
    expect(service.isDenied(site.id, ip, clock.now())).toBe(true);
    const before = service.groups(site.id).find((g) => g.id === '008')!.enabledRuleCount;
    await service.createExclusion(site.id, { ruleId: 942100, target: '', path: '', reason: 'Legacy app' }, by);
    expect(service.isDenied(site.id, ip, clock.now())).toBe(false);
    expect(service.groups(site.id).find((g) => g.id === '008')!.enabledRuleCount).toBe(before - 1);
  });

  it('refuses the same exclusion twice, naming the one there is', async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    const first = await service.createExclusion(
      site.id,
      { ruleId: 942100, target: 'ARGS:q', path: '/s', reason: 'a' },
      by,
    );
    await expect(
      service.createExclusion(site.id, { ruleId: 942100, target: 'args:Q', path: '/s', reason: 'b' }, by),
    ).rejects.toThrow(first.id);
  });

  it("a copied site keeps the original's exclusions and content types", async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    await service.createExclusion(site.id, { ruleId: 942100, target: 'ARGS:q', path: '/s', reason: 'a' }, by);
    await service.setContentTypes(site.id, { types: ['application/json'] });
    const copy = await addSite('site_copy');
    await service.copySite(site.id, copy.id);
    expect(service.exclusions(copy.id)).toEqual([expect.objectContaining({ ruleId: 942100, target: 'ARGS:q' })]);
    expect(service.exclusions(copy.id)[0]?.id).not.toBe(service.exclusions(site.id)[0]?.id);
    expect(service.contentTypes(copy.id).types).toEqual(['application/json']);
  });

  it('proposes the narrowest exclusions for a stored record, leaving out those the site has', async () => {
    const { service } = await setUp('small');
    const site = await addSite('site_a');
    const record = {
      request: 'POST /search?q=x HTTP/1.1',
      waf_triggered_rules: '942100,920420',
      waf_triggered_targets: '942100 ARGS:q\n942100 ARGS:text\n920420 TX:content_type',
    };
    expect(service.proposeExclusions(site.id, record)).toEqual([
      { ruleId: 942100, target: 'ARGS:q', path: '/search', ruleMessage: 'SQLi' },
      { ruleId: 942100, target: 'ARGS:text', path: '/search', ruleMessage: 'SQLi' },
      // TX is the rule's own bookkeeping, not a request variable: the whole rule, on this path.
      { ruleId: 920420, target: '', path: '/search', ruleMessage: 'Request content type is not allowed by policy' },
    ]);
    await service.createExclusion(site.id, { ruleId: 942100, target: 'ARGS:q', path: '/search', reason: 'a' }, by);
    expect(service.proposeExclusions(site.id, record).map((p) => p.target)).toEqual(['ARGS:text', '']);
  });
});
