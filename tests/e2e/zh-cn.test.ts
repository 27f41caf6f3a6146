/**
 * The console in Simplified Chinese speaks only Chinese: every page (first-run setup, sign-in, the
 * link pages, each console page of edition B and of edition A, a page that does not exist, a page the
 * role may not open) and its main dialogs are walked in Chromium, and no visible text or accessible
 * name may be a text of the English catalogue that the Chinese catalogue translates, nor an English
 * default of the component kit.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort, startTestEngine, type TestEngine } from '../support/engine.ts';
import { launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { englishOn, latinWordsOn, type Finding } from './support/english-texts.ts';
import { zhCN } from '../../renderer/i18n/zh-CN.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

describe('the console in Simplified Chinese', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests = new RequestLog();
  const findings: Finding[] = [];
  const latin = new Map<string, string[]>();
  let siteId = '';

  /** Waits for the page to settle (no loading indicator), then records what it shows. */
  async function check(label: string): Promise<void> {
    await page.waitForLoadState('networkidle');
    await page
      .locator('.bx--loading, .bx--inline-loading__animation')
      .first()
      .waitFor({ state: 'detached', timeout: 3000 })
      .catch(() => undefined);
    findings.push(...(await englishOn(page, label)));
    latin.set(label, await latinWordsOn(page));
  }

  async function visit(path: string, label = path): Promise<void> {
    await page.goto(`${engine.url}${path}`);
    await check(label);
  }

  async function closeDialog(): Promise<void> {
    await page.keyboard.press('Escape');
    await page.waitForTimeout(300);
  }

  async function apiPost<T = { id: string }>(path: string, data: unknown): Promise<T> {
    const request = page.context().request;
    const { csrfToken } = (await (await request.get(`${engine.url}/api/v1/session`)).json()) as { csrfToken: string };
    const response = await request.post(`${engine.url}/api/v1${path}`, {
      data,
      headers: { 'X-CSRF-Token': csrfToken },
    });
    expect(response.status(), path).toBe(201);
    return (await response.json()) as T;
  }

  async function apiSend<T>(method: 'PUT' | 'POST', path: string, data: unknown): Promise<T> {
    const request = page.context().request;
    const { csrfToken } = (await (await request.get(`${engine.url}/api/v1/session`)).json()) as { csrfToken: string };
    const response = await request.fetch(`${engine.url}/api/v1${path}`, {
      method,
      data,
      headers: { 'X-CSRF-Token': csrfToken },
    });
    expect(response.ok(), path).toBe(true);
    return (await response.json()) as T;
  }

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir });
    browser = await launchChromium();
    context = await newContext(browser, requests, { locale: 'en-GB' });
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('shows no English catalogue text on any page or dialog', async () => {
    // The browser speaks English: the console is switched to Chinese by the person, then remembered.
    await page.goto(`${engine.url}/`);
    await page.waitForURL(/\/setup$/);
    await page.evaluate("localStorage.setItem('rampart.locale', 'zh-CN')");
    await page.reload();
    await check('/setup');
    await page.locator('#setup-email').fill('admin@rampart.test');
    await page.locator('#setup-password').fill('short');
    await page.locator('#setup-confirm').fill('other');
    await page.getByRole('button', { name: zhCN['setup.submit'] }).click();
    await check('/setup with errors');
    await page.locator('#setup-password').fill(STRONG_PASSWORD);
    await page.locator('#setup-confirm').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: zhCN['setup.submit'] }).click();
    await page.waitForURL(`${engine.url}/`);
    // The language menu switches it too (already Chinese: choosing it again keeps it).
    await page.getByTestId('language-menu').click();
    await check('language menu');
    await page.getByText(zhCN['lang.zh-CN'], { exact: true }).click();

    // A CNAME site over HTTP and HTTPS (its tab, certificate area and proxy state in Chinese), on free ports.
    const cname = {
      https: true,
      httpPort: await freePort(),
      httpsPort: await freePort(),
      originAddress: '127.0.0.1:9',
    };
    siteId = (await apiPost('/sites', { name: 'Shop', domain: 'shop.example.com', accessMethod: 'cname', cname })).id;
    await apiPost('/sites', { name: 'Gateway', domain: 'gw.example.com', accessMethod: 'plugin' });

    const guest = await apiPost<{ delivery: { link: string | null } }>('/accounts', {
      email: 'guest@rampart.test',
      role: 'guest',
    });

    await visit('/');
    await page.getByTestId('theme-menu').click();
    await check('theme menu');
    await page.getByTestId('theme-dark').click();
    await page.getByTestId('account-menu').click();
    await check('account menu');
    await page.locator('.bx--switcher__item-link').getByText(zhCN['shell.systemVersion'], { exact: true }).click();
    await check('system version dialog');
    await closeDialog();

    await visit('/overview');
    await page.locator('#overview-range').selectOption('custom');
    await check('/overview with a custom range');
    await visit('/account');
    // The theme chosen in the top bar holds over the system's light scheme, across a reload.
    expect(await page.locator('html').getAttribute('theme')).toBe('g100');
    await visit('/enterprise/info');
    await visit('/enterprise/purchases');
    await visit('/enterprise/accounts');
    await page.getByRole('button', { name: zhCN['accounts.create'] }).first().click();
    await check('create account dialog');
    await closeDialog();

    await visit('/config/sites');
    await visit('/config/sites/new');
    await visit(`/config/sites/${siteId}`, '/config/sites/:id');
    // The engine's refusals of list lines are said in Chinese, built from its codes and parameters.
    await page.locator('#block-ips').fill('203.0.113.7\nnot-an-ip');
    await page.getByTestId('save-site').click();
    const ipsError = page.getByTestId('lines-block-ips').getByTestId('lines-error');
    await ipsError.waitFor();
    expect(await ipsError.textContent()).toContain('“not-an-ip”不是 IP 地址或 CIDR');
    expect(await ipsError.textContent()).not.toContain('is not an IP address');
    await check('/config/sites/:id with a refused line');
    await page.locator('#block-ips').fill('');
    await visit('/config/sites/global');

    await visit(`/rules?site=${siteId}`, '/rules');
    await page.locator('label[for="group-001-enabled"]').last().click();
    await page.getByTestId('group-saved').waitFor();
    await check('/rules after a group is switched off');
    await page.getByTestId('group-count').first().click();
    await check('group rules dialog');
    await closeDialog();
    await page.getByTestId('add-exclusion').first().click();
    await page.locator('#exclusion-rule').waitFor();
    await check('add exclusion dialog');
    await closeDialog();
    const add = page.getByTestId('add-custom-rule').first();
    if (await add.isVisible()) {
      await add.click();
      await check('custom rule dialog');
      await closeDialog();
    }
    await visit(`/rules?site=${siteId}&tab=anti-bot`, '/rules anti-bot');

    // An event on the site's access log, enabled, so that a record can be explained against it.
    const configs = (await (await page.context().request.get(`${engine.url}/api/v1/log-configs`)).json()) as {
      items: { id: string; siteId: string | null }[];
    };
    const accessConfig = configs.items.find((c) => c.siteId === siteId)!;
    await apiSend('PUT', '/events/preset-not-found', {
      kind: 'simple',
      name: 'Page not found',
      description: '',
      sources: [accessConfig.id],
      relation: 'a',
      conditions: [{ label: 'a', field: 'status', filter: 'number', mode: '=', value: '404' }],
    });
    await apiSend('POST', '/events/preset-not-found/enabled', { enabled: true });

    // Log Management > Search with records (one that did not parse), its dialogs and panels.
    const now = Date.now();
    for (let i = 0; i < 30; i++) {
      engine.logStore.append(`access:${siteId}`, {
        _timestamp: now - i * 60_000,
        src_ip: `192.0.2.${i % 3}`,
        status: i % 5 === 0 ? 403 : 200,
        guard_status: i % 5 === 0 ? 'OWASP' : 'PASS',
      });
    }
    // A request a Core Rule Set rule blocked on a parameter, which offers an exception.
    engine.logStore.append(`access:${siteId}`, {
      _timestamp: now - 30_000,
      src_ip: '192.0.2.9',
      request: 'GET /search?q=1%20union%20select%20password HTTP/1.1',
      status: 403,
      guard_status: 'OWASP',
      action: 'block',
      waf_triggered_rules: '942100',
      waf_triggered_targets: '942100 ARGS:q',
    });
    engine.logStore.append(`access:${siteId}`, {
      _timestamp: now - 90_000,
      parsed: 0,
      reason: '必要字段不允许为空: src_ip',
    });
    await engine.logStore.flush();
    await visit(`/logs/search?log=${encodeURIComponent(`access:${siteId}`)}`, '/logs/search');
    await page.getByTestId('add-filter').click();
    await check('add filter dialog');
    await closeDialog();
    await page.getByTestId('time-picker').click();
    await check('time picker');
    await page.getByTestId('quick-all').click();
    await page.getByTestId('expand-row').first().click();
    await page.getByTestId('record-detail').waitFor();
    await check('/logs/search with a record open');
    await page.getByTestId('surrounding').click();
    await page.getByTestId('surrounding-self').waitFor();
    await check('surrounding records dialog');
    await closeDialog();
    await page.getByTestId('explain-record').click();
    await page.getByTestId('explain-modal').locator('#explain-event').waitFor();
    await page.getByTestId('explain-modal').getByRole('button', { name: zhCN['explain.run'], exact: true }).click();
    await page.getByTestId('explain-result').waitFor();
    await check('explain dialog with outcomes');
    await closeDialog();
    await page.getByTestId('log-query').fill('waf_triggered_rules:942100');
    await page.getByTestId('log-query').press('Enter');
    await expect.poll(() => page.getByTestId('result-row').count()).toBe(1);
    await page.getByTestId('expand-row').first().click();
    await page.getByTestId('create-exception').click();
    await page.getByTestId('exception-modal').locator('[data-testid="proposal-preview"] [data-cleared]').waitFor();
    await check('create exception dialog');
    await closeDialog();
    await page.getByTestId('log-query').fill('status:(403');
    await page.getByTestId('log-query').press('Enter');
    await page.getByTestId('query-error').waitFor();
    await check('/logs/search with a query syntax error');
    await visit(`/logs/search?log=${encodeURIComponent(`detection:${siteId}`)}`, '/logs/search of an empty log');
    await visit('/enterprise/storage');
    await page.getByTestId('purge-log').first().click();
    await check('purge dialog');
    await closeDialog();

    await visit('/config/log-config', '/config/log-config (empty)');
    await visit('/config/log-config/new');
    await page.locator('label[for="template-json"]').click();
    await page.locator('#log-config-sample').fill('{"client":{"ip":"203.0.113.9"},"status":401}');
    await page.getByTestId('quick-add').click();
    await page.getByTestId('quick-add-result').waitFor();
    await check('/config/log-config/new with a quick add');
    await page.locator('label[for="field-0-required"]').click();
    await page.getByTestId('preview-problems').waitFor();
    await check('/config/log-config/new with problems');
    await page.locator('#log-config-name').fill('orders');
    await page.locator('#log-config-sample').fill('{"status":401}');
    await page.getByTestId('preview-failed').waitFor();
    await check('/config/log-config/new with a failing sample');
    const logConfig = await apiPost('/log-configs', {
      name: 'sshd',
      method: 'tcp',
      templateType: 'plain_text',
      time: { mode: 'current' },
      timezone: 'UTC',
      fields: [{ kind: 'regex', name: 'src_ip', type: 'string', regex: 'from (\\S+)', group: 1, required: true }],
      keyFields: { ip: 'src_ip' },
      intelligence: false,
      sampleData: 'Failed password from 203.0.113.9',
    });
    await visit('/config/log-config');
    await page
      .getByRole('button', { name: new RegExp(zhCN['ops.more']) })
      .first()
      .click();
    await check('log configuration operations menu');
    await page.keyboard.press('Escape');
    await visit(`/config/log-config/${logConfig.id}`, '/config/log-config/:id');
    await page.getByTestId('regenerate-certificate').click();
    await check('regenerate certificate dialog');
    await closeDialog();
    await visit(`/config/log-config/${logConfig.id}/edit`, '/config/log-config/:id/edit');
    await page.locator('#key-ip').selectOption('');
    await check('key field dialog');
    await closeDialog();

    // Event management: the list, an operations menu, a preset switched on without a source (its
    // editor opens), a new event with a relation the engine refuses, each trigger type, a combined
    // event, the view with a dry run; the event-based rules tab and its form; the bans page.
    await visit('/config/events');
    await page
      .locator('tr[data-event="Failed login"]')
      .getByRole('button', { name: new RegExp(zhCN['ops.more']) })
      .click();
    await check('event operations menu');
    await page.keyboard.press('Escape');
    await page.locator('tr[data-event="Failed login"]').getByRole('menuitem').first().waitFor({ state: 'hidden' });
    await page.locator('tr[data-event="Failed login"] label.bx--toggle-input__label').click();
    await page.waitForURL(/\/edit\?enable=1$/);
    await check('/config/events/:id/edit?enable=1');
    await visit('/config/events/new');
    await page.getByTestId('source-picker').locator('label').first().click();
    await page.locator('#condition-0-field').selectOption('status');
    await page.locator('#condition-0-filter').selectOption('number');
    await page.locator('#condition-0-value').fill('404');
    await page.getByTestId('add-condition').click();
    await page.locator('#event-relation').fill('a & (c');
    await page
      .locator('#event-relation')
      .locator('xpath=ancestor::div[contains(@class,"bx--form-item")][1]')
      .locator('.bx--form-requirement')
      .waitFor();
    await check('/config/events/new with a relation problem');
    await page.getByTestId('save-event').click();
    await check('/config/events/new submitted with problems');
    for (const kind of ['count', 'distinct', 'average', 'cep']) {
      await page.locator(`label[for="event-kind-${kind}"]`).click();
      await check(`/config/events/new as ${kind}`);
    }
    await page.locator('label[for="event-type-combined"]').click();
    await check('/config/events/new as a combined event');
    await page.locator('#event-name').fill('');
    await visit('/config/events/preset-not-found', '/config/events/:id');
    await page.getByTestId('dry-run-start').click();
    await page.getByTestId('dry-run-result').waitFor();
    await check('/config/events/:id with a dry run');
    await page.getByTestId('time-picker').click();
    await check('dry run time picker');
    await page.keyboard.press('Escape');
    await visit(`/rules?site=${siteId}&tab=events`, '/rules event rules');
    await page.getByTestId('add-event-rule').first().click();
    await page.locator('#rule-name').waitFor();
    await check('event rule dialog');
    await page.locator('label[for="rule-action-none"]').click();
    await page.getByRole('button', { name: zhCN['eventRules.form.submitNew'] }).click();
    await check('event rule dialog with problems');
    await page.locator('#rule-emails').fill('soc@example.com\nnot-an-address');
    await page.locator('label[for="rule-webhook-on"]').last().click();
    await page.locator('label[for="rule-syslog-on"]').last().click();
    await page.getByRole('button', { name: zhCN['eventRules.form.submitNew'] }).click();
    await page.locator('#rule-webhook-url').waitFor();
    await check('event rule dialog with notification problems');
    await closeDialog();
    await apiPost('/bans', { siteId, object: 'ip', value: '203.0.113.7', durationSeconds: 3600, reason: '扫描' });
    await visit('/rules/bans');
    await page.getByTestId('add-ban').click();
    await check('add ban dialog');
    await closeDialog();
    await page.getByTestId('lift-ban').first().click();
    await check('lift ban dialog');
    await closeDialog();
    await visit('/rules/bans?object=device', '/rules/bans filtered to nothing');
    await visit('/rules/ip-lists');
    await page.locator('#ip-list-block').fill('203.0.113.7\nnot-an-ip');
    await page.getByTestId('save-ip-lists').click();
    await page.getByTestId('lines-error').waitFor();
    await check('/rules/ip-lists with a bad line');

    await visit('/no-such-page');

    await page.getByTestId('account-menu').click();
    await page.locator('.bx--switcher__item-link').getByText(zhCN['shell.signOut'], { exact: true }).click();
    await page.waitForURL(/\/sign-in/);
    await check('/sign-in');
    await visit('/activate?token=abc', '/activate');
    await visit('/reset-password?token=abc', '/reset-password');

    // A guest may not open the site list: the page says so, in Chinese.
    expect(guest.delivery.link).toBeTruthy();
    await page.goto(guest.delivery.link!);
    await check('/activate with a valid link');
    await page.locator('#link-password').fill(STRONG_PASSWORD);
    await page.locator('#link-confirm').fill(STRONG_PASSWORD);
    await page.locator('#link-confirm').press('Enter');
    await page.waitForURL(/\/sign-in/);
    await page.locator('#sign-in-email').fill('guest@rampart.test');
    await page.locator('#sign-in-password').fill(STRONG_PASSWORD);
    await page.locator('#sign-in-password').press('Enter');
    await page.waitForURL(`${engine.url}/`);
    await visit('/config/sites', '/config/sites as a guest');
    expect(await page.getByTestId('page-forbidden').textContent()).toContain(zhCN['forbidden.title']);
    await visit('/enterprise/accounts', '/enterprise/accounts as a guest');
    expect(await page.getByTestId('page-forbidden').count()).toBe(1);
    await visit(`/logs/search?log=${encodeURIComponent(`access:${siteId}`)}`, '/logs/search as a guest');
    await visit('/enterprise/storage', '/enterprise/storage as a guest');
    expect(await page.getByTestId('page-forbidden').count()).toBe(1);
    await visit('/no-such-page', '/no-such-page as a guest');
    expect(await page.getByTestId('page-not-found').count()).toBe(1);

    const report = [...latin].map(([label, texts]) => `${label}: ${texts.join(' | ')}`).join('\n');
    if (process.env.RAMPART_ZH_REPORT) console.log(`Latin texts seen:\n${report}`);
    expect(findings.map((f) => `${f.where}: "${f.text}" (${f.key})`)).toEqual([]);
    expect(requests.outside(engine.url)).toEqual([]);
    // Every page and dialog is checked after it settles (about 3 s each): more than the default 120 s.
  }, 480_000);
});

describe('the console of edition A in Simplified Chinese', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests = new RequestLog();
  const findings: Finding[] = [];

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'A' }, { rendererDir });
    browser = await launchChromium();
    // This browser speaks Chinese: the console starts in Chinese without being told.
    context = await newContext(browser, requests, { locale: 'zh-CN' });
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it("shows no English catalogue text on any page of edition A, under A's names", async () => {
    const check = async (label: string): Promise<void> => {
      await page.waitForLoadState('networkidle');
      findings.push(...(await englishOn(page, label)));
    };
    await page.goto(`${engine.url}/`);
    await page.waitForURL(/\/setup$/);
    await check('/setup');
    await page.locator('#setup-email').fill('admin-a@rampart.test');
    await page.locator('#setup-password').fill(STRONG_PASSWORD);
    await page.locator('#setup-confirm').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: zhCN['setup.submit'] }).click();
    await page.waitForURL(`${engine.url}/`);

    const request = page.context().request;
    const { csrfToken } = (await (await request.get(`${engine.url}/api/v1/session`)).json()) as { csrfToken: string };
    const created = await request.post(`${engine.url}/api/v1/sites`, {
      data: { name: 'Portal' },
      headers: { 'X-CSRF-Token': csrfToken },
    });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as { id: string };

    for (const path of [
      '/',
      '/overview',
      '/account',
      '/enterprise/info',
      '/enterprise/accounts',
      '/enterprise/purchases',
      '/config/sites',
      '/config/sites/new',
      `/config/sites/${id}`,
      '/config/sites/global',
      `/rules?site=${id}`,
      `/rules?site=${id}&tab=events`,
      '/rules/bans',
      '/rules/ip-lists',
      '/config/events',
      '/config/events/new',
      `/logs/search?log=${encodeURIComponent(`access:${id}`)}`,
      '/enterprise/storage',
      '/no-such-page',
    ]) {
      await page.goto(`${engine.url}${path}`);
      await check(path);
    }
    expect(await page.getByTestId('page-not-found').count()).toBe(1);
    expect(findings.map((f) => `${f.where}: "${f.text}" (${f.key})`)).toEqual([]);
    expect(requests.outside(engine.url)).toEqual([]);
  });
});
