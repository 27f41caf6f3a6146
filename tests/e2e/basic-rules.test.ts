/**
 * Basic application security rules against the real engine, with Debian's Core Rule Set detected.
 * B (OWASP class): the loaded set, the twelve groups, a level raised and its count rising, a group's
 * rules, a custom rule created (after the engine refused its regex at the field), switched, edited and
 * deleted; a plugin-access site offered only two locations; a broken rule set refused while the running
 * one stays; an uploaded release archive. A (WAF class): the tab under A's names.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort, startTestEngine, type TestEngine } from '../support/engine.ts';
import { launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SetupPage } from './pages/setup.page.ts';
import { ShellPage } from './pages/shell.page.ts';
import { RulesPage } from './pages/rules.page.ts';
import { rawRequest } from '../support/http.ts';
import { CRS4, missing } from '../support/crs-dirs.ts';
import { skipAllWithout } from '../support/skip.ts';
import { startCrsMirror, type CrsMirror } from '../integration/engine/crs-mirror.ts';
import { CRS_RELEASE_PINS } from '#engine/basic-rules';

const CRS_4_25_0 = CRS_RELEASE_PINS['4.25.0']!;

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const screenshotDir = fileURLToPath(new URL('../../dist/screenshots', import.meta.url));
const DEBIAN_CRS = '/usr/share/modsecurity-crs';

interface GroupJson {
  id: string;
  enabled: boolean;
  level: string;
  enabledRuleCount: number;
  ruleCount: number;
}

interface CustomRuleJson {
  id: string;
  name: string;
  remark: string;
  enabled: boolean;
  location: string;
  conditions: { location: string; name: string; pattern: string }[];
}

async function setUp(
  browser: Browser,
  engine: TestEngine,
  requests: RequestLog,
  email: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, requests);
  const page = await context.newPage();
  await page.goto(`${engine.url}/`);
  await page.waitForURL(/\/setup$/);
  const setup = new SetupPage(page);
  await setup.fill(email, STRONG_PASSWORD);
  await setup.submit();
  await page.waitForURL(`${engine.url}/`);
  return { context, page };
}

/** The engine API with the page's session: reads, and writes carrying the session's CSRF token. */
function engineApi(page: Page, engine: TestEngine) {
  const request = page.context().request;
  const url = (path: string): string => `${engine.url}/api/v1${path}`;
  return {
    async get<T>(path: string): Promise<T> {
      const response = await request.get(url(path));
      expect(response.status(), path).toBe(200);
      return (await response.json()) as T;
    },
    async post<T>(path: string, data: unknown): Promise<T> {
      const { csrfToken } = (await (await request.get(url('/session'))).json()) as { csrfToken: string };
      const response = await request.post(url(path), { data, headers: { 'X-CSRF-Token': csrfToken } });
      expect(response.status(), path).toBe(201);
      return (await response.json()) as T;
    },
  };
}

describe('basic rules, edition B', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let rules: RulesPage;
  let api: ReturnType<typeof engineApi>;
  let shopId = '';
  let workDir = '';
  const requests = new RequestLog();

  const groups = async (): Promise<GroupJson[]> =>
    (await api.get<{ groups: GroupJson[] }>(`/sites/${shopId}/basic-rules`)).groups;
  const customRules = async (): Promise<CustomRuleJson[]> =>
    (await api.get<{ items: CustomRuleJson[] }>(`/sites/${shopId}/custom-rules`)).items;

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir });
    browser = await launchChromium();
    ({ context, page } = await setUp(browser, engine, requests, 'secops@rampart.test'));
    api = engineApi(page, engine);
    shopId = (
      await api.post<{ id: string }>('/sites', {
        name: 'Shop',
        domain: 'shop.example.com',
        accessMethod: 'cname',
        // CNAME access needs an origin; the proxy's port is a free one.
        cname: { httpPort: await freePort(), originAddress: '127.0.0.1:9' },
      })
    ).id;
    await api.post('/sites', { name: 'Gateway', domain: 'gw.example.com', accessMethod: 'plugin' });
    rules = new RulesPage(page, new ShellPage(page));
    workDir = await mkdtemp(join(tmpdir(), 'rampart-crs-upload-'));
    await mkdir(screenshotDir, { recursive: true });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("shows Debian's Core Rule Set as loaded and the twelve groups, under the OWASP name", async () => {
    await rules.open();
    await rules.chooseSite('Shop (shop.example.com)');
    expect(new URL(page.url()).searchParams.get('site')).toBe(shopId);
    expect(await page.getByRole('tab', { name: 'OWASP rules' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByTestId('rule-set-warning').count()).toBe(0);
    expect(await page.getByRole('tab', { name: 'Anti-bot rules' }).count()).toBe(1);
    expect(await page.getByTestId('basic-rules').textContent()).toContain('OWASP class for the site Shop');

    expect(await page.getByTestId('rule-set-state').textContent()).toContain('Loaded');
    expect(await page.getByTestId('rule-set-version').textContent()).toMatch(/^\s*3\.3\.\d+\s*$/);
    expect(await page.getByTestId('rule-set-source').textContent()).toContain('Detected automatically');
    expect(await page.getByTestId('rule-set-dir').textContent()).toContain(DEBIAN_CRS);
    const status = await api.get<{ ruleCount: number }>('/rule-set');
    expect(status.ruleCount).toBeGreaterThan(100);
    expect(await page.getByTestId('rule-set-count').textContent()).toContain(String(status.ruleCount));

    expect(await rules.groupRows().count()).toBe(12);
    expect(await rules.group('001').getByTestId('group-type').textContent()).toBe('Java attacks');
    expect(await rules.group('008').getByTestId('group-type').textContent()).toBe('SQL injection');
    expect(await rules.group('012').getByTestId('group-type').textContent()).toBe('Port and environment scanners');
    for (const group of await groups()) {
      expect(group.enabled).toBe(true);
      expect(group.level).toBe('loose');
      expect(await rules.enabledCount(group.id)).toBe(group.enabledRuleCount);
    }
  });

  it('raises the protection level of a group and shows more of its rules enabled', async () => {
    const before = await rules.enabledCount('008');
    await rules.setLevel('008', 'strict');
    await rules.settled('008');
    await expect.poll(() => rules.enabledCount('008')).toBeGreaterThan(before);
    const after = await rules.enabledCount('008');
    const stored = (await groups()).find((g) => g.id === '008');
    expect(stored).toMatchObject({ level: 'strict', enabled: true, enabledRuleCount: after });
    expect(after).toBeLessThanOrEqual(stored?.ruleCount ?? 0);

    await page.reload();
    await rules.group('008').waitFor();
    expect(await page.locator('#group-008-level').inputValue()).toBe('strict');
    expect(await rules.enabledCount('008')).toBe(after);
  });

  it('switches a group off at once', async () => {
    const enabled = async (): Promise<boolean | undefined> => (await groups()).find((g) => g.id === '007')?.enabled;
    await rules.setGroupEnabled('007', false);
    await expect.poll(enabled).toBe(false);
    await rules.settled('007');
    await rules.setGroupEnabled('007', true);
    await expect.poll(enabled).toBe(true);
    await rules.settled('007');
  });

  it("opens a group's rules from its count, each marked enabled at the current level or not", async () => {
    const stored = (await groups()).find((g) => g.id === '008');
    await rules.group('008').getByTestId('group-count').click();
    const modal = rules.rulesModal();
    await modal.getByRole('heading', { name: 'Group 008: SQL injection' }).waitFor();
    await modal.locator('tr[data-rule]').first().waitFor();
    expect(await modal.getByTestId('group-rules-summary').textContent()).toContain('Protection level Strict');
    expect(await modal.locator('tr[data-rule]').count()).toBe(stored?.ruleCount);
    expect(await modal.locator('[data-testid="rule-state"][data-enabled="true"]').count()).toBe(
      stored?.enabledRuleCount,
    );
    expect(await modal.locator('tr[data-rule="942100"]').textContent()).toContain('Enabled');
    await page.screenshot({ path: `${screenshotDir}/basic-rules-group-B.png` });
    await page.keyboard.press('Escape');
    await modal.waitFor({ state: 'hidden' });
  });

  it("creates a custom rule, showing the engine's error at the regex it refuses until it is fixed", async () => {
    await page.getByTestId('custom-empty').getByText('No custom rules yet').waitFor();
    await page.getByTestId('custom-empty').getByRole('button', { name: 'Add rule' }).click();
    const form = rules.ruleForm();
    await form.getByRole('heading', { name: 'Add custom rule' }).waitFor();
    expect(await page.locator('#custom-attack-type').inputValue()).toBe('Custom');
    expect(await page.locator('#custom-attack-type').getAttribute('readonly')).not.toBeNull();
    expect(await page.locator('#custom-direction').inputValue()).toBe('Request');
    expect(await form.getByTestId('plugin-hint').count()).toBe(0);

    await page.locator('#custom-name').fill('SQL in id');
    await page.locator('#custom-remark').fill('Numeric ids only');
    await rules.chooseLocation('param_value');
    expect(await page.locator('#cond-0-name').inputValue()).toBe('.*');
    await page.locator('#cond-0-name').fill('^id$');
    await page.locator('#cond-0-pattern').fill('union(\\s+select');
    await page.locator('#cond-0-pattern').press('Enter');

    const error = rules.fieldError('cond-0-pattern');
    await error.waitFor();
    expect(await page.locator('#cond-0-pattern').getAttribute('aria-invalid')).toBe('true');
    expect(await form.isVisible()).toBe(true);
    expect(await customRules()).toEqual([]);
    await page.screenshot({ path: `${screenshotDir}/custom-rule-error-B.png` });

    await page.locator('#cond-0-pattern').fill('union\\s+select');
    await error.waitFor({ state: 'hidden' });
    await form.getByTestId('add-row').click();
    expect(await page.locator('#cond-1-name').inputValue()).toBe('.*');
    await page.locator('#cond-1-pattern').fill('sleep\\(');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await form.waitFor({ state: 'hidden' });

    expect(await rules.result().textContent()).toContain('Rule SQL in id added.');
    const row = rules.customRow('SQL in id');
    expect(await row.getByTestId('rule-location').textContent()).toBe('Request URL parameter value, 2 conditions');
    expect(await row.getByTestId('rule-remark').textContent()).toBe('Numeric ids only');
    expect(await row.locator('input[role="switch"]').isChecked()).toBe(true);
    const [stored] = await customRules();
    expect(stored).toMatchObject({
      name: 'SQL in id',
      remark: 'Numeric ids only',
      enabled: true,
      location: 'param_value',
      conditions: [
        { location: 'param_value', name: '^id$', pattern: 'union\\s+select' },
        { location: 'param_value', name: '.*', pattern: 'sleep\\(' },
      ],
    });
  });

  it('switches a custom rule off and on in its row', async () => {
    const [stored] = await customRules();
    await rules.setSwitch(`custom-${stored?.id ?? ''}-enabled`, false);
    await page.getByText('Rule SQL in id disabled.').waitFor();
    expect((await customRules())[0]?.enabled).toBe(false);
    await rules.setSwitch(`custom-${stored?.id ?? ''}-enabled`, true);
    await page.getByText('Rule SQL in id enabled.').waitFor();
    expect((await customRules())[0]?.enabled).toBe(true);
  });

  it('edits a custom rule into an all-of rule over two locations; Escape closes without saving', async () => {
    const row = rules.customRow('SQL in id');
    await row.getByTestId('edit-rule').click();
    const form = rules.ruleForm();
    await form.getByRole('heading', { name: 'Edit custom rule' }).waitFor();
    expect(await page.locator('#custom-name').inputValue()).toBe('SQL in id');
    await page.locator('#custom-remark').fill('changed, then abandoned');
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'hidden' });
    expect((await customRules())[0]?.remark).toBe('Numeric ids only');

    await row.getByTestId('edit-rule').click();
    await form.getByRole('heading', { name: 'Edit custom rule' }).waitFor();
    expect(await page.locator('#custom-remark').inputValue()).toBe('Numeric ids only');
    await page.locator('#custom-name').fill('Admin SQL');
    await page.locator('#custom-remark').fill('Only on the admin path');
    await rules.chooseLocation('all');
    await form.getByTestId('remove-row').nth(1).click();
    await page.selectOption('#cond-0-location', 'param_value');
    await form.getByTestId('add-row').click();
    await page.selectOption('#cond-1-location', 'url');
    expect(await page.locator('#cond-1-name').count()).toBe(0);
    await page.locator('#cond-1-pattern').fill('^/admin/');
    await page.screenshot({ path: `${screenshotDir}/custom-rule-form-B.png` });
    await form.getByRole('button', { name: 'Save rule' }).click();
    await form.waitFor({ state: 'hidden' });

    expect(await rules.result().textContent()).toContain('Rule Admin SQL saved.');
    const edited = rules.customRow('Admin SQL');
    expect(await edited.getByTestId('rule-location').textContent()).toBe('All, 2 conditions');
    expect(await edited.getByTestId('rule-remark').textContent()).toBe('Only on the admin path');
    expect((await customRules())[0]).toMatchObject({
      name: 'Admin SQL',
      location: 'all',
      conditions: [
        { location: 'param_value', name: '^id$', pattern: 'union\\s+select' },
        { location: 'url', name: '', pattern: '^/admin/' },
      ],
    });
    await page.screenshot({ path: `${screenshotDir}/basic-rules-B.png`, fullPage: true });
  });

  it('deletes a custom rule after a confirmation naming it', async () => {
    const row = rules.customRow('Admin SQL');
    await row.getByTestId('delete-rule').click();
    const dialog = page.getByRole('dialog', { name: 'Delete custom rule' });
    expect(await dialog.textContent()).toContain('Delete the rule Admin SQL?');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await customRules()).toHaveLength(1);

    await row.getByTestId('delete-rule').click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Rule Admin SQL deleted.').waitFor();
    await page.getByTestId('custom-empty').waitFor();
    expect(await customRules()).toEqual([]);
  });

  it('offers a plugin-access site only the request URL and parameter name locations', async () => {
    await rules.chooseSite('Gateway (gw.example.com)');
    await page.getByTestId('custom-empty').getByRole('button', { name: 'Add rule' }).click();
    const form = rules.ruleForm();
    await form.getByTestId('plugin-hint').waitFor();
    expect(await page.locator('#custom-location option[value="url"]').isDisabled()).toBe(false);
    expect(await page.locator('#custom-location option[value="param_name"]').isDisabled()).toBe(false);
    for (const location of ['all', 'any', 'body', 'param_value', 'source_ip']) {
      expect(await page.locator(`#custom-location option[value="${location}"]`).isDisabled(), location).toBe(true);
    }
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'hidden' });
    await rules.chooseSite('Shop (shop.example.com)');
  });

  it('refuses a directory without a rule set, saying that the running set stays', async () => {
    const manage = page.getByTestId('rule-set-manage');
    if ((await manage.getAttribute('open')) === null) await manage.locator('summary').click();
    const broken = join(workDir, 'broken');
    await mkdir(join(broken, 'rules'), { recursive: true });
    await writeFile(
      join(broken, 'rules', 'REQUEST-942-APPLICATION-ATTACK-SQLI.conf'),
      'SecRule ARGS "@rx a" "id:942999,phase:2,deny\n',
    );
    await page.locator('#rule-set-dir').fill(broken);
    await page.getByTestId('apply-rule-set').click();
    const error = rules.fieldError('rule-set-dir');
    await error.waitFor();
    expect(await error.textContent()).toContain('The previous rule set keeps running.');
    await page.getByTestId('rule-set-last-error').waitFor();
    expect(await page.getByTestId('rule-set-state').textContent()).toContain('Loaded');
    expect(await page.getByTestId('rule-set-dir').textContent()).toContain(DEBIAN_CRS);

    await page.locator('#rule-set-dir').fill('');
    await page.getByTestId('apply-rule-set').click();
    await page.getByText(/Core Rule Set 3\.3\.\d+ loaded from/).waitFor();
    expect(await page.getByTestId('rule-set-source').textContent()).toContain('Detected automatically');
  });

  it('loads an uploaded CRS release archive, showing its progress', async () => {
    const archive = join(workDir, 'coreruleset-3.3.4.tar.gz');
    execFileSync('tar', ['-czf', archive, '--transform', 's,^,coreruleset-3.3.4/,', '-C', DEBIAN_CRS, 'rules']);
    const before = await api.get<{ ruleCount: number }>('/rule-set');
    const counts = (await groups()).map((g) => g.enabledRuleCount);

    const chooser = page.waitForEvent('filechooser');
    await page.getByTestId('rule-set-upload').getByText('Choose archive').click();
    await (await chooser).setFiles(archive);
    await page
      .getByText(/Core Rule Set 3\.3\.\d+ from coreruleset-3\.3\.4\.tar\.gz loaded/)
      .waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('rule-set-source').textContent()).toContain('Uploaded archive');
    const after = await api.get<{ ruleCount: number; source: string }>('/rule-set');
    expect(after).toMatchObject({ source: 'uploaded', ruleCount: before.ruleCount });
    expect((await groups()).map((g) => g.enabledRuleCount)).toEqual(counts);
  });

  it('never sends a request outside the engine origin', () => {
    expect(requests.outside(engine.url)).toEqual([]);
  });
});

describe('basic rules, edition A', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests = new RequestLog();

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'A' }, { rendererDir });
    browser = await launchChromium();
    ({ context, page } = await setUp(browser, engine, requests, 'admin-a@rampart.test'));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('offers the WAF rules of a site configuration, with no anti-bot tab', async () => {
    const { id } = await engineApi(page, engine).post<{ id: string }>('/sites', { name: 'Portal' });
    await page.reload();
    const rules = new RulesPage(page, new ShellPage(page));
    await rules.open();
    expect(await page.getByRole('tab', { name: 'WAF rules' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByRole('tab', { name: 'Anti-bot rules' }).count()).toBe(0);
    expect(await page.locator('#rules-site option:checked').textContent()).toBe(`${id} (Portal)`);
    expect(await page.getByTestId('basic-rules').textContent()).toContain(
      'WAF class for the site configuration Portal',
    );
    expect(await rules.groupRows().count()).toBe(12);
    await page
      .getByTestId('custom-empty')
      .getByText('Add a rule to match requests of this site configuration')
      .waitFor();
    await page.screenshot({ path: `${screenshotDir}/basic-rules-A.png`, fullPage: true });
  });
});

describe('a fresh install without a Core Rule Set', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests = new RequestLog();

  beforeAll(async () => {
    // Auto-detection looks nowhere: the install has no modsecurity-crs.
    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir, ruleSetLocations: [] });
    browser = await launchChromium();
    ({ context, page } = await setUp(browser, engine, requests, 'fresh@rampart.test'));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('warns on the home page, the sites page (page and row) and the rules page that no rule set is loaded', async () => {
    const warning = page.getByTestId('rule-set-warning');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('No Core Rule Set is loaded');
    expect(await warning.textContent()).toContain('0 rules');

    await engineApi(page, engine).post('/sites', { name: 'Shop', domain: 'shop.example.com', accessMethod: 'plugin' });
    await page.goto(`${engine.url}/config/sites`);
    await page.getByTestId('sites-table').waitFor();
    await warning.waitFor();
    const row = page.getByTestId('site-status').first();
    await row.getByTestId('protection-no-rule-set').waitFor();
    expect(await row.getByTestId('protection').textContent()).toContain('Protection on');
    expect(await row.getByTestId('protection-no-rule-set').textContent()).toContain('No rule set loaded');

    await page.getByTestId('rule-set-warning-link').click();
    await page.waitForURL(/\/rules/);
    await warning.waitFor();
    expect(await warning.getByTestId('rule-set-warning-link').count()).toBe(0);
    await page.getByTestId('rule-set-missing').waitFor();
    await page.screenshot({ path: `${screenshotDir}/rules-without-rule-set.png`, fullPage: true });

    // Loading a rule set on this page clears the warning at once.
    await page.locator('#rule-set-dir').fill(DEBIAN_CRS);
    await page.getByTestId('apply-rule-set').click();
    await page.getByTestId('rule-set-state').getByText('Loaded').waitFor();
    await warning.waitFor({ state: 'detached' });
    expect(requests.outside(engine.url)).toEqual([]);
  });
});

describe('a fresh install getting CRS v4 through the console', () => {
  skipAllWithout(missing.crs4);
  const VERSION = '4.25.0';
  let engine: TestEngine | undefined;
  let mirror: CrsMirror | undefined;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests = new RequestLog();

  beforeAll(async () => {
    if (!CRS4) return;
    // The local mirror stands for the CRS project's release page; the engine trusts its certificate.
    mirror = await startCrsMirror(CRS4.dir, VERSION);
    engine = await startTestEngine(
      { RAMPART_EDITION: 'B', ...mirror.env },
      {
        rendererDir,
        ruleSetLocations: [],
        crsPins: { [VERSION]: { ...CRS_4_25_0, archiveSha256: mirror.releaseSha256 } },
      },
    );
    browser = await launchChromium();
    ({ context, page } = await setUp(browser, engine, requests, 'crs@rampart.test'));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
    await mirror?.close();
  });

  it('refuses a copy whose SHA-256 is not pinned, then installs the pinned release and blocks SQL injection', async () => {
    if (!engine || !mirror) return;
    const api = engineApi(page, engine);
    const site = (
      await api.post<{ id: string }>('/sites', {
        name: 'Shop',
        domain: 'shop.example.com',
        runMode: 'block',
        accessMethod: 'plugin',
      })
    ).id;
    await page.goto(`${engine.url}/rules?site=${site}`);
    await page.getByTestId('rule-set-missing').waitFor();
    const panel = page.getByTestId('rule-set-download');

    mirror.mode = 'other';
    await panel.getByRole('button', { name: `Get CRS v${VERSION}` }).click();
    const error = panel.getByTestId('download-error');
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toContain(`is not the one pinned for CRS ${VERSION}, so it was refused`);
    await page.getByTestId('rule-set-missing').waitFor();

    mirror.mode = 'release';
    await panel.getByRole('button', { name: `Get CRS v${VERSION}` }).click();
    await panel
      .getByTestId('download-result')
      .getByText(/Core Rule Set 4\.25\.0 downloaded, checked and loaded: \d+ rules\./)
      .waitFor({ timeout: 60_000 });
    await page.getByTestId('rule-set-state').getByText('Loaded').waitFor();
    expect(await panel.getByTestId('download-error').count()).toBe(0);

    const key = (await api.get<{ accessKey: string }>('/site-global')).accessKey;
    const res = await rawRequest(`${engine.gatewayUrl}/_rampart/check`, {
      method: 'POST',
      headers: { 'x-rampart-site': site, 'x-rampart-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        method: 'GET',
        uri: "/?id=1'%20or%201=1--",
        remoteAddr: '198.51.100.50',
        headers: { host: 'shop.example.com', 'user-agent': 'Mozilla/5.0' },
      }),
    });
    expect((JSON.parse(res.text) as { action: string }).action).toBe('block');
    await page.screenshot({ path: `${screenshotDir}/rules-crs-downloaded.png`, fullPage: true });
  });

  it('says to upload the archive when the mirror does not answer', async () => {
    if (!mirror) return;
    await mirror.stop();
    const panel = page.getByTestId('rule-set-download');
    const manage = page.getByTestId('rule-set-manage');
    if ((await manage.getAttribute('open')) === null) await manage.locator('summary').click();
    await panel.getByRole('button', { name: `Get CRS v${VERSION}` }).click();
    const error = panel.getByTestId('download-error');
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toMatch(
      /Nothing answered at 127\.0\.0\.1:\d+\. Download coreruleset-4\.25\.0-minimal\.tar\.gz .*upload the archive below/,
    );
    // The set downloaded before keeps running.
    await page.getByTestId('rule-set-state').getByText('Loaded').waitFor();
  });

  it('never sends a request outside the engine origin', () => {
    expect(requests.outside(engine?.url ?? '')).toEqual([]);
  });
});
