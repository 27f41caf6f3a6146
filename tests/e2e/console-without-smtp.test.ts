/**
 * The console on an appliance without SMTP: the administrator gets the activation link to hand over.
 * Also the language switch, the live light/dark theme, and screenshots of the accounts page.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SetupPage } from './pages/setup.page.ts';
import { ShellPage } from './pages/shell.page.ts';
import { AccountsPage } from './pages/accounts.page.ts';
import { LinkPage } from './pages/link.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const screenshotDir = fileURLToPath(new URL('../../dist/screenshots', import.meta.url));
const ADMIN = 'owner@rampart.test';
const INVITED = 'operator@rampart.test';

describe('console without SMTP', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests = new RequestLog();

  beforeAll(async () => {
    engine = await startTestEngine({}, { rendererDir });
    browser = await launchChromium();
    context = await newContext(browser, requests);
    page = await context.newPage();
    await page.goto(`${engine.url}/`);
    await page.waitForURL(/\/setup$/);
    const setup = new SetupPage(page);
    await setup.fill(ADMIN, STRONG_PASSWORD);
    await setup.submit();
    await page.waitForURL(`${engine.url}/`);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('shows the administrator the activation link with the notice that SMTP is not configured', async () => {
    const accounts = new AccountsPage(page, new ShellPage(page));
    await accounts.open();
    await accounts.create(INVITED, 'Guest');
    expect(await accounts.deliveryNotice().textContent()).toContain('E-mail not sent: SMTP is not configured');
    const link = (await accounts.deliveryLink().textContent())?.trim() ?? '';
    expect(link.startsWith(`${engine.url}/activate?token=`)).toBe(true);

    await mkdir(screenshotDir, { recursive: true });
    await page.screenshot({ path: `${screenshotDir}/accounts-link.png`, fullPage: true });
    const invitee = await browser.newContext();
    requests.track(invitee);
    const other = await invitee.newPage();
    await other.goto(link);
    expect(await new LinkPage(other).email().textContent()).toBe(INVITED);
    await invitee.close();
  });

  it('keeps the account filters in the URL', async () => {
    await page.selectOption('#filter-activation', 'pending');
    await page.waitForURL(/activation=pending/);
    await page.getByTestId('accounts-total').getByText('1 account', { exact: true }).waitFor();
    expect(await new AccountsPage(page, new ShellPage(page)).row(ADMIN).count()).toBe(0);
    await page.reload();
    await new AccountsPage(page, new ShellPage(page)).row(INVITED).waitFor();
    expect(await page.locator('#filter-activation').inputValue()).toBe('pending');
    await page.getByRole('button', { name: 'Clear filters' }).first().click();
    await new AccountsPage(page, new ShellPage(page)).row(ADMIN).waitFor();
  });

  it('follows the system colour scheme live, and screenshots the accounts page in both themes', async () => {
    await mkdir(screenshotDir, { recursive: true });
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await page.locator('html').getAttribute('theme')).toBe('g10');
    await page.screenshot({ path: `${screenshotDir}/accounts-light.png`, fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('html[theme="g100"]').waitFor({ state: 'attached' });
    await page.screenshot({ path: `${screenshotDir}/accounts-dark.png`, fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('shows the enterprise information with the module names of the edition, and why licence import is unavailable', async () => {
    await new ShellPage(page).openMenu('Enterprise Management', 'Enterprise Information');
    await page.getByTestId('modules-table').waitFor();
    expect(await page.getByTestId('version-type').textContent()).toContain('Trial');
    const modules = (await page.getByTestId('modules-table').textContent()) ?? '';
    expect(modules).toContain('Basic application security');
    expect(modules).toContain('Advanced security module');
    expect(modules).toMatch(/Activated|Not purchased|Expired/);
    expect(await page.getByTestId('licence-no-key').textContent()).toContain('needs the vendor public key');
    await page.screenshot({ path: `${screenshotDir}/enterprise-info.png`, fullPage: true });
  });

  it('shows My Account with the role and its permissions', async () => {
    await new ShellPage(page).openAccountMenu();
    await page.getByText('My Account', { exact: true }).click();
    await page.waitForURL(/\/account$/);
    expect(await page.getByTestId('my-name').textContent()).toContain(ADMIN);
    expect(await page.getByTestId('my-role').textContent()).toContain('Administrator');
    expect(await page.getByTestId('my-permissions').textContent()).toContain('Enterprise Management');
    await page.screenshot({ path: `${screenshotDir}/my-account.png`, fullPage: true });
    await new ShellPage(page).openMenu('Enterprise Management', 'Accounts');
  });

  it('switches the texts to Chinese and keeps the choice after a reload', async () => {
    const shell = new ShellPage(page);
    await shell.chooseLanguage('简体中文');
    await page.getByRole('heading', { name: '账号管理' }).waitFor();
    expect((await shell.sideNavTexts()).join('\n')).toContain('企业管理');
    expect(await page.getByRole('button', { name: '新建账号' }).count()).toBe(1);
    await page.reload();
    await page.getByRole('heading', { name: '账号管理' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('zh-CN');
    await page.screenshot({ path: `${screenshotDir}/accounts-zh-CN.png`, fullPage: true });
    await shell.chooseLanguage('English');
    await page.getByRole('heading', { name: 'Accounts' }).waitFor();
  });

  it('never sends a request outside the engine origin', () => {
    expect(requests.urls.some((url) => url.endsWith('.woff2'))).toBe(true);
    expect(requests.outside(engine.url)).toEqual([]);
  });
});
