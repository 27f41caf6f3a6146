/**
 * The System page's Mail section in Chromium (issue 19, item 7): an administrator saves an SMTP
 * server (a field error first), sees that a password is set without seeing it, sends a test mail
 * that reaches a real SMTP server (and one that fails, with the server's words), and goes back to
 * the environment settings after a confirmation. Sessions, ports and two-factor show their state.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { en } from '../../renderer/i18n/en.ts';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { TestSmtpServer } from '../support/smtp.ts';
import { ApiClient } from '../support/api-client.ts';
import { firstRunConsole, launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { englishOn } from './support/english-texts.ts';
import { SignInPage } from './pages/sign-in.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const SMTP_PASSWORD = 'Relay#Secret-42';

let engine: TestEngine;
let smtp: TestSmtpServer;
let browser: Browser;
let page: Page;
const requests = new RequestLog();

beforeAll(async () => {
  smtp = await new TestSmtpServer().start();
  engine = await startTestEngine({}, { rendererDir, ruleSetLocations: [] });
  browser = await launchChromium();
  ({ page } = await firstRunConsole(browser, engine.url, requests, 'admin@example.com'));
  await page.goto(`${engine.url}/enterprise/system`);
  await page.getByTestId('smtp-form').waitFor();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await engine?.dispose();
  await smtp?.stop();
});

const source = (testId: string): Promise<string | null> => page.getByTestId(testId).getAttribute('data-source');
const saveButton = () => page.getByTestId('smtp-save');

describe('the Mail section', () => {
  it('starts from the environment with no server, and nothing to save', async () => {
    expect(await source('smtp-source')).toBe('default');
    await page.getByTestId('smtp-none').waitFor();
    expect(await saveButton().isDisabled()).toBe(true);
    expect(await page.getByTestId('smtp-test-send').isDisabled()).toBe(true);
  });

  it('names the bad field, then saves the server with a password it never shows again', async () => {
    await page.locator('#smtp-host').fill('127.0.0.1');
    await page.locator('#smtp-port').fill(String(smtp.port));
    await page.locator('#smtp-user').fill('relay-user');
    await page.locator('#smtp-password').fill(SMTP_PASSWORD);
    await page.locator('#smtp-from').fill('nobody');
    await page.locator('#smtp-from').press('Enter');
    await page.locator('#smtp-from[aria-invalid="true"]').waitFor();
    expect(await page.getByTestId('operation-result').count()).toBe(0);

    await page.locator('#smtp-from').fill('Rampart <rampart@example.com>');
    await saveButton().click();
    await page.getByTestId('operation-result').waitFor();
    expect(await source('smtp-source')).toBe('console');
    expect(await page.getByTestId('smtp-password-state').getAttribute('data-set')).toBe('true');
    expect(await page.locator('#smtp-password').inputValue()).toBe('');
    expect(await saveButton().isDisabled()).toBe(true);
    const answer = await page.evaluate(async () => (await fetch('/api/v1/system/smtp')).text());
    expect(answer).not.toContain(SMTP_PASSWORD);
  });

  it("shows the SMTP server's refusal when the test mail fails", async () => {
    // The test server takes no sign-in over plain TCP: the saved user name makes it refuse.
    await page.locator('#smtp-test-to').fill('ops@example.com');
    await page.getByTestId('smtp-test-send').click();
    const result = page.getByTestId('smtp-test-result');
    await result.waitFor();
    expect(await result.getAttribute('data-tone')).toBe('error');
    expect(await result.textContent()).toContain(en['adminSettings.smtp.testFailed'].split('{')[0]!.trim());
  });

  it('sends a test mail that reaches the SMTP server once the user name is cleared', async () => {
    await page.locator('#smtp-user').fill('');
    await saveButton().click();
    await page.getByTestId('operation-result').waitFor();
    expect(await page.getByTestId('smtp-password-state').getAttribute('data-set')).toBe('false');
    await page.locator('#smtp-test-to').press('Enter');
    await page.locator('[data-testid="smtp-test-result"][data-tone="success"]').waitFor();
    const mail = await smtp.waitFor('ops@example.com');
    expect(mail.raw).toContain('Rampart test mail');
  });

  it('goes back to the environment settings after a confirmation', async () => {
    await page.getByTestId('smtp-use-environment').click();
    const modal = page.locator('.bx--modal.is-visible');
    await modal.waitFor();
    await modal.getByRole('button', { name: en['adminSettings.useEnvironment.confirm'] }).click();
    await page.getByTestId('smtp-none').waitFor();
    expect(await source('smtp-source')).toBe('default');
    const admin = new ApiClient(engine.url);
    expect((await admin.signIn('admin@example.com', STRONG_PASSWORD)).status).toBe(200);
    expect((await admin.request('GET', '/system/smtp')).body).toMatchObject({ source: 'default', server: null });
  });
});

describe('the other sections', () => {
  it('show sessions from their default, the ports in use, and two-factor not required', async () => {
    expect(await source('session-source')).toBe('default');
    expect(await page.locator('#session-idle').inputValue()).toBe('30');
    expect(await page.getByTestId('session-save').isDisabled()).toBe(true);
    const consolePort = new URL(engine.url).port;
    expect(await page.locator('[data-port="console"] [data-testid="port-in-use"]').textContent()).toContain(
      consolePort,
    );
    expect(await page.getByTestId('ports-restart-required').count()).toBe(0);
    expect(await page.getByTestId('two-factor-state').getAttribute('data-required')).toBe('false');
    await page.getByTestId('two-factor-own-missing').waitFor();
    expect(requests.outside(engine.url)).toEqual([]);
  });
});

describe('in Simplified Chinese', () => {
  it('says the administration settings in Chinese only', async () => {
    const context = await newContext(browser, requests, { locale: 'zh-CN' });
    const zhPage = await context.newPage();
    const signIn = new SignInPage(zhPage);
    await signIn.open(engine.url);
    await signIn.signIn('admin@example.com', STRONG_PASSWORD);
    await zhPage.waitForURL(`${engine.url}/`);
    await zhPage.goto(`${engine.url}/enterprise/system`);
    await zhPage.getByTestId('smtp-form').waitFor();
    await zhPage.getByTestId('two-factor-state').waitFor();
    await zhPage.waitForLoadState('networkidle');
    const mine = (await englishOn(zhPage, '/enterprise/system')).filter(
      (f) =>
        f.key.startsWith('adminSettings.') ||
        /^field\.(host|port|secure|user|from|to|idleMinutes|absoluteHours|console|gateway|intake)$/.test(f.key),
    );
    expect(mine).toEqual([]);
    await context.close();
  });
});
