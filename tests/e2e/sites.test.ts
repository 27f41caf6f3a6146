/**
 * Sites against the real engine, in both editions. B: a site with pass and block lists (an invalid
 * regex line is pointed at by its number), run mode change, copy, search, plugin download, the global
 * configuration with Access Key rotation, anti-bot rules, delete; what a user and a guest may do.
 * A: a site configuration with "check only listed" and a path list, under A's names.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SetupPage } from './pages/setup.page.ts';
import { ShellPage } from './pages/shell.page.ts';
import { SignInPage } from './pages/sign-in.page.ts';
import { LinkPage } from './pages/link.page.ts';
import { AccountsPage } from './pages/accounts.page.ts';
import { SitesPage } from './pages/sites.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const screenshotDir = fileURLToPath(new URL('../../dist/screenshots', import.meta.url));

interface SiteJson {
  id: string;
  name: string;
  runMode: string;
  listMode: string;
  accessMethod: string;
  checkList: { pathEnabled: boolean; paths: string[] };
  passList: { pathEnabled: boolean; paths: string[]; ipEnabled: boolean; ips: string[] };
  blockList: { ipEnabled: boolean; ips: string[] };
  antiBot: { enabled: boolean; scanner: boolean; scriptTool: boolean; otherCrawler: boolean };
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

async function sites(page: Page, engine: TestEngine): Promise<SiteJson[]> {
  const response = await page.context().request.get(`${engine.url}/api/v1/sites`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { items: SiteJson[] }).items;
}

describe('sites, edition B', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let sitesPage: SitesPage;
  const requests = new RequestLog();
  const others: BrowserContext[] = [];

  /** Creates an account of `role`, activates it through the handed-over link, and signs it in. */
  const signedInAs = async (email: string, role: 'User' | 'Guest'): Promise<Page> => {
    const accounts = new AccountsPage(page, new ShellPage(page));
    await accounts.open();
    await accounts.create(email, role);
    const link = (await accounts.deliveryLink().textContent())?.trim() ?? '';
    const other = await newContext(browser, requests);
    others.push(other);
    const invitee = await other.newPage();
    await invitee.goto(link);
    await new LinkPage(invitee).setPassword(STRONG_PASSWORD);
    await invitee.waitForURL(/\/sign-in/);
    await new SignInPage(invitee).signIn(email, STRONG_PASSWORD);
    await invitee.waitForURL(`${engine.url}/`);
    return invitee;
  };

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir });
    browser = await launchChromium();
    ({ context, page } = await setUp(browser, engine, requests, 'secops@rampart.test'));
    sitesPage = new SitesPage(page, new ShellPage(page));
    await mkdir(screenshotDir, { recursive: true });
  });

  afterAll(async () => {
    for (const other of others) await other.close().catch(() => undefined);
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('offers Site Management with an empty state, and Rule Management for the anti-bot rules', async () => {
    const nav = (await sitesPage.shell.sideNavTexts()).join('\n');
    expect(nav).toContain('Configuration Management');
    expect(nav).toContain('Rule Management');
    await sitesPage.open('Site Management');
    await page.getByRole('heading', { name: 'Site Management' }).waitFor();
    expect(await page.getByTestId('sites-empty').textContent()).toContain('No sites yet');
  });

  it('creates a site with lists, pointing at the line of an invalid regular expression until it is fixed', async () => {
    await page.getByTestId('sites-empty').getByRole('link', { name: 'Create site' }).click();
    await page.waitForURL(/\/config\/sites\/new$/);
    await page.getByRole('heading', { name: 'Create site' }).waitFor();
    await sitesPage.save();
    expect(await page.locator('#site-name').getAttribute('aria-invalid')).toBe('true');
    await page.getByText('Site name is required.').waitFor();
    await page.getByText('Domain is required.').waitFor();

    await page.locator('#site-name').fill('Shop');
    await page.locator('#site-domain').fill('shop.example.com');
    await sitesPage.choose('run-mode', 'block');
    await sitesPage.choose('access-method', 'plugin');
    await sitesPage.setSwitch('pass-paths-switch', true);
    await sitesPage.lines('pass-paths').fill('^/health$\n^/static/(\n^/favicon\\.ico$');
    await sitesPage.setSwitch('pass-ips-switch', true);
    await sitesPage.lines('pass-ips').fill('10.0.0.0/8');
    await sitesPage.setSwitch('block-ips-switch', true);
    await sitesPage.lines('block-ips').fill('203.0.113.0/24\n198.51.100.7');
    await sitesPage.save();

    const error = sitesPage.linesError('pass-paths');
    await error.waitFor();
    expect(await error.textContent()).toContain('line 2');
    expect(await error.textContent()).toContain('^/static/(');
    expect(await sitesPage.gutterError('pass-paths').textContent()).toBe('2');
    expect(new URL(page.url()).pathname).toBe('/config/sites/new');

    await sitesPage.lines('pass-paths').fill('^/health$\n^/static/\n^/favicon\\.ico$');
    await page.screenshot({ path: `${screenshotDir}/site-editor-B.png`, fullPage: true });
    await sitesPage.saveAndReturn();
    expect(await sitesPage.result().textContent()).toContain('Site Shop created');
    const row = sitesPage.row('Shop');
    expect(await row.getByTestId('site-domain').textContent()).toBe('shop.example.com');
    expect(await row.getByTestId('run-mode').textContent()).toContain('Block');
    expect(await row.getByTestId('access-method').textContent()).toContain('Plugin access');
    expect(await row.getByTestId('connection').textContent()).toContain('Not connected');

    const [stored] = await sites(page, engine);
    expect(stored?.passList).toEqual({
      pathEnabled: true,
      paths: ['^/health$', '^/static/', '^/favicon\\.ico$'],
      ipEnabled: true,
      ips: ['10.0.0.0/8'],
    });
    expect(stored?.blockList.ips).toEqual(['203.0.113.0/24', '198.51.100.7']);
  });

  it('edits the run mode, and asks before leaving with unsaved changes', async () => {
    await sitesPage.edit('Shop');
    expect(await sitesPage.lines('pass-paths').inputValue()).toBe('^/health$\n^/static/\n^/favicon\\.ico$');
    expect(await page.locator('#run-mode-block').isChecked()).toBe(true);
    await sitesPage.choose('run-mode', 'monitor');
    await page.getByTestId('unsaved').waitFor();

    await sitesPage.shell.openMenu('Enterprise Management', 'Accounts');
    const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
    await leave.waitFor();
    await leave.getByRole('button', { name: 'Cancel' }).click();
    await leave.waitFor({ state: 'hidden' });
    expect(new URL(page.url()).pathname).toMatch(/^\/config\/sites\/site_/);

    await sitesPage.saveAndReturn();
    expect(await sitesPage.result().textContent()).toContain('Site Shop saved');
    expect(await sitesPage.row('Shop').getByTestId('run-mode').textContent()).toContain('Monitor');
  });

  it('copies a site and searches by name, keeping the search in the URL', async () => {
    await sitesPage.operate('Shop', 'Copy');
    await sitesPage.row('Shop (copy)').waitFor();
    expect(await sitesPage.result().textContent()).toContain('Shop copied as Shop (copy)');
    expect(await sitesPage.rows().count()).toBe(2);

    await page.getByRole('searchbox').fill('copy');
    await page.waitForURL(/search=copy/);
    await page
      .getByTestId('sites-total')
      .getByText(/\b1 site(?!s)/)
      .waitFor();
    expect(await sitesPage.row('Shop').count()).toBe(0);
    await page.reload();
    await sitesPage.row('Shop (copy)').waitFor();
    expect(await page.getByRole('searchbox').inputValue()).toBe('copy');
    expect(await sitesPage.rows().count()).toBe(1);

    await page.getByRole('searchbox').fill('nothing-like-this');
    await page.getByText('Nothing matches “nothing-like-this”').waitFor();
    await page.getByRole('button', { name: 'Clear search' }).last().click();
    await sitesPage.row('Shop').waitFor();
    expect(new URL(page.url()).search).toBe('');
  });

  it('downloads the plugin bundle of a plugin-access site as a gzip file', async () => {
    const [stored] = (await sites(page, engine)).filter((s) => s.name === 'Shop');
    const downloadEvent = page.waitForEvent('download');
    await sitesPage.operate('Shop', 'Download plugin');
    const download = await downloadEvent;
    expect(download.suggestedFilename()).toBe(`rampart-nginx-${stored?.id ?? ''}.tar.gz`);
    const bytes = await readFile(await download.path());
    expect(bytes.length).toBeGreaterThan(100);
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    expect(await sitesPage.result().textContent()).toContain('Plugin bundle');
  });

  it('downloads the Caddy and HAProxy plugin bundles of a plugin-access site', async () => {
    const [stored] = (await sites(page, engine)).filter((s) => s.name === 'Shop');
    for (const [item, name] of [
      ['Download Caddy plugin', 'caddy'],
      ['Download HAProxy plugin', 'haproxy'],
    ] as const) {
      const downloadEvent = page.waitForEvent('download');
      await sitesPage.operate('Shop', item);
      const download = await downloadEvent;
      expect(download.suggestedFilename()).toBe(`rampart-${name}-${stored?.id ?? ''}.tar.gz`);
      const bytes = await readFile(await download.path());
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    }
  });

  it('changes the global configuration and rotates the Access Key after a confirmation', async () => {
    await page.getByRole('link', { name: 'Global configuration' }).click();
    await page.waitForURL(/\/config\/sites\/global$/);
    await page.getByTestId('global-form').waitFor();
    await page.locator('#global-token-cookie').fill('shop_token');
    await page.locator('#global-token-expiry').fill('120');
    await sitesPage.setSwitch('global-ip-lock', true);
    await page.getByTestId('save-global').click();
    await page.getByText('Global configuration saved').waitFor();
    await page.reload();
    await page.getByTestId('global-form').waitFor();
    expect(await page.locator('#global-token-cookie').inputValue()).toBe('shop_token');
    expect(await page.locator('#global-token-expiry').inputValue()).toBe('120');
    expect(await sitesPage.switchState('global-ip-lock')).toBe(true);

    const before = (
      (await (await page.context().request.get(`${engine.url}/api/v1/site-global`)).json()) as { accessKey: string }
    ).accessKey;
    expect(await page.getByTestId('access-key').textContent()).not.toContain(before);
    await page.getByTestId('reveal-key').click();
    expect(await page.getByTestId('access-key').textContent()).toBe(before);

    await page.getByTestId('rotate-key').click();
    const confirm = page.getByRole('dialog', { name: 'Generate a new Access Key?' });
    await confirm.getByText('Every gateway must be updated').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await page.getByTestId('rotate-key').click();
    await confirm.getByRole('button', { name: 'Generate new key' }).click();
    await page.getByText('A new Access Key is in effect').waitFor();
    const after = (
      (await (await page.context().request.get(`${engine.url}/api/v1/site-global`)).json()) as { accessKey: string }
    ).accessKey;
    expect(after).not.toBe(before);
    expect(await page.getByTestId('access-key').textContent()).toBe(after);
    await confirm.waitFor({ state: 'hidden' });
    await page.screenshot({ path: `${screenshotDir}/site-global-B.png`, fullPage: true });
  });

  it('saves the anti-bot switches of a site and shows them again after a reload', async () => {
    await sitesPage.open('Site Management');
    await sitesPage.operate('Shop', 'Anti-bot rules');
    await page.waitForURL(/\/rules\?site=site_/);
    await page.getByTestId('anti-bot').waitFor();
    expect(await page.locator('#rules-site option:checked').textContent()).toContain('Shop');
    expect(await page.locator('#anti-bot-search-engine').isDisabled()).toBe(true);
    expect(await page.getByTestId('anti-bot').textContent()).toContain('Not supported in this version');

    await sitesPage.setSwitch('anti-bot-enabled', true);
    await sitesPage.setSwitch('anti-bot-script-tool', false);
    await sitesPage.setSwitch('anti-bot-other-crawler', true);
    await page.getByTestId('save-anti-bot').click();
    await page.getByText('Anti-bot rules of Shop saved').waitFor();
    await page.reload();
    await page.getByTestId('anti-bot').waitFor();
    expect(await sitesPage.switchState('anti-bot-enabled')).toBe(true);
    expect(await sitesPage.switchState('anti-bot-scanner')).toBe(true);
    expect(await sitesPage.switchState('anti-bot-script-tool')).toBe(false);
    expect(await sitesPage.switchState('anti-bot-other-crawler')).toBe(true);
    const shop = (await sites(page, engine)).find((s) => s.name === 'Shop');
    expect(shop?.antiBot).toEqual({ enabled: true, scanner: true, scriptTool: false, otherCrawler: true });
    expect(shop?.runMode).toBe('monitor');

    await page.selectOption('#rules-site', { label: 'Shop (copy) (shop.example.com)' });
    await page.waitForURL((url) => url.searchParams.get('site') !== shop?.id);
    expect(await sitesPage.switchState('anti-bot-enabled')).toBe(false);
  });

  it('deletes a site after a confirmation naming it', async () => {
    await sitesPage.open('Site Management');
    await page.screenshot({ path: `${screenshotDir}/sites-B.png`, fullPage: true });
    await sitesPage.operate('Shop (copy)', 'Delete');
    const dialog = page.getByRole('dialog', { name: 'Delete site' });
    expect(await dialog.textContent()).toContain('Delete Shop (copy)?');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Shop (copy) deleted').waitFor();
    expect(await sitesPage.row('Shop (copy)').count()).toBe(0);
    expect(await sitesPage.rows().count()).toBe(1);
  });

  it('lets a user manage sites', async () => {
    const user = await signedInAs('operator@rampart.test', 'User');
    const userSites = new SitesPage(user, new ShellPage(user));
    await userSites.open('Site Management');
    const nav = (await userSites.shell.sideNavTexts()).join('\n');
    expect(nav).toContain('Site Management');
    expect(nav).not.toContain('Enterprise Management');
    await userSites.row('Shop').waitFor();
    await user.getByRole('link', { name: 'Create site' }).click();
    await user.locator('#site-name').fill('Blog');
    await user.locator('#site-domain').fill('blog.example.com');
    await userSites.choose('run-mode', 'pass');
    await user.getByTestId('pass-notice').waitFor();
    await userSites.saveAndReturn();
    expect(await userSites.row('Blog').getByTestId('run-mode').textContent()).toContain('Pass-through');
    expect(await userSites.row('Blog').getByTestId('protection').textContent()).toContain('Protection off');
  });

  it('shows a guest no site menu, and the API refuses it', async () => {
    const guest = await signedInAs('auditor@rampart.test', 'Guest');
    await guest.getByText(/Welcome, /).waitFor();
    // A guest has Log Management only (spec 5.2): no Configuration Management, so no site menu.
    const menus = (await new ShellPage(guest).sideNavTexts()).join('\n');
    expect(menus).toContain('Log Management');
    expect(menus).not.toContain('Configuration Management');
    const refused = await guest.context().request.get(`${engine.url}/api/v1/sites`);
    expect(refused.status()).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN_ROLE');
    await guest.goto(`${engine.url}/config/sites`);
    await guest.getByText('You do not have permission to open this page').waitFor();
  });

  it('never sends a request outside the engine origin', () => {
    expect(requests.outside(engine.url)).toEqual([]);
  });
});

describe('site configurations, edition A', () => {
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

  it('creates a site configuration that checks only the listed paths, under the names of edition A', async () => {
    const sitesPage = new SitesPage(page, new ShellPage(page));
    await sitesPage.open('Site Configuration');
    const nav = (await sitesPage.shell.sideNavTexts()).join('\n');
    expect(nav).toContain('Site Configuration');
    expect(nav).not.toContain('Site Management');
    expect(nav).toContain('Rule Management');
    await page.getByRole('heading', { name: 'Site Configuration', exact: true }).waitFor();
    expect(await page.getByTestId('sites-empty').textContent()).toContain('No site configurations yet');

    await page.getByRole('link', { name: 'Create site configuration' }).first().click();
    await page.waitForURL(/\/config\/sites\/new$/);
    expect(await page.locator('#site-domain').count()).toBe(0);
    expect(await page.locator('label[for="access-method-pluginless"]').textContent()).toContain('Plugin-less access');
    expect(await page.locator('label[for="access-method-cname"]').count()).toBe(0);
    expect(await page.locator('#check-paths-switch').isDisabled()).toBe(true);

    await page.locator('#site-name').fill('Portal');
    await sitesPage.choose('list-mode', 'only_listed');
    await sitesPage.setSwitch('check-paths-switch', true);
    await sitesPage.lines('check-paths').fill('/login\napi/*');
    await sitesPage.save();
    expect(await sitesPage.linesError('check-paths').textContent()).toContain('line 2');
    await sitesPage.lines('check-paths').fill('/login\n/api/*');
    await sitesPage.choose('run-mode', 'block');
    await page.getByTestId('section-blocking').waitFor();
    await page.screenshot({ path: `${screenshotDir}/site-editor-A.png`, fullPage: true });
    await sitesPage.saveAndReturn();
    expect(await sitesPage.result().textContent()).toContain('Site configuration Portal created');

    const row = sitesPage.row('Portal');
    expect(await row.getByTestId('site-id').textContent()).toMatch(/^site_[a-z0-9]+$/);
    expect(await page.getByRole('columnheader', { name: 'Site configuration ID' }).count()).toBe(1);
    expect(await row.getByTestId('run-mode').textContent()).toContain('Block');
    await row.getByRole('button', { name: /More operations/ }).click();
    expect(await page.getByRole('menuitem', { name: 'Anti-bot rules' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.screenshot({ path: `${screenshotDir}/sites-A.png`, fullPage: true });

    const [stored] = await sites(page, engine);
    expect(stored?.listMode).toBe('only_listed');
    expect(stored?.checkList.pathEnabled).toBe(true);
    expect(stored?.checkList.paths).toEqual(['/login', '/api/*']);
    expect(stored?.accessMethod).toBe('plugin');

    // Rule Management exists in A too, with the WAF rules tab and without B's anti-bot tab.
    await page.goto(`${engine.url}/rules`);
    await page.getByRole('tab', { name: 'WAF rules' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Anti-bot rules' }).count()).toBe(0);
  });
});
