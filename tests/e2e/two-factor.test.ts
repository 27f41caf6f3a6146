/**
 * Two-factor sign-in in the console: the administrator sets it up on My account (the secret in
 * groups of four, the QR code, a code of the app, the recovery codes shown once), then signs in
 * with a code of the app, and with a recovery code.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { totpCode } from '#engine/accounts';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { firstRunConsole, launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SignInPage } from './pages/sign-in.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const ADMIN = 'owner@rampart.test';

describe('two-factor sign-in in the console', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let secret = '';
  let recoveryCodes: string[] = [];
  const requests = new RequestLog();

  beforeAll(async () => {
    engine = await startTestEngine({}, { rendererDir });
    browser = await launchChromium();
    ({ context, page } = await firstRunConsole(browser, engine.url, requests, ADMIN));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  async function signInWithPassword(): Promise<Page> {
    const other = await newContext(browser, requests);
    const signIn = new SignInPage(await other.newPage());
    await signIn.open(engine.url);
    await signIn.signIn(ADMIN, STRONG_PASSWORD);
    await signIn.page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    return signIn.page;
  }

  it('sets it up on My account and shows the recovery codes once', async () => {
    await page.goto(`${engine.url}/account`);
    const section = page.getByTestId('two-factor');
    await section.getByTestId('two-factor-status').getByText('Off.').waitFor();
    await section.getByTestId('two-factor-start').click();
    const grouped = (await section.getByTestId('two-factor-secret').textContent())?.trim() ?? '';
    expect(grouped).toMatch(/^([A-Z2-7]{4} ){7}[A-Z2-7]{4}$/);
    secret = grouped.replace(/ /g, '');
    expect(await section.getByTestId('two-factor-uri').textContent()).toContain(`secret=${secret}`);
    await expect(section.getByTestId('two-factor-qr').locator('rect').count()).resolves.toBeGreaterThan(100);

    await page.locator('#enrol-code').fill(totpCode(secret, Date.now()));
    await section.getByRole('button', { name: 'Turn on' }).click();
    const codes = section.getByTestId('recovery-codes');
    await codes.waitFor();
    recoveryCodes = (await codes.locator('li').allTextContents()).map((c) => c.trim());
    expect(recoveryCodes).toHaveLength(10);
    await section.getByTestId('recovery-codes-done').click();
    await section.getByTestId('two-factor-status').getByText('10 recovery codes left').waitFor();
    expect(requests.outside(engine.url)).toEqual([]);
  });

  it('asks for the code after the password and signs in with a code of the app', async () => {
    const other = await signInWithPassword();
    const input = other.locator('#sign-in-code');
    expect(await input.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await input.getAttribute('inputmode')).toBe('numeric');
    // The step of the enrolment's code is used: the app's next code, within the window.
    await input.fill(totpCode(secret, Date.now() + 30_000));
    await input.press('Enter');
    await other.waitForURL(`${engine.url}/`);
    await other.context().close();
  });

  it('signs in with a recovery code instead', async () => {
    const other = await signInWithPassword();
    await other.getByTestId('toggle-recovery').click();
    await other.locator('#sign-in-recovery-code').fill(recoveryCodes[0]!);
    await other.locator('#sign-in-recovery-code').press('Enter');
    await other.waitForURL(`${engine.url}/`);
    await other.context().close();
  });

  it('says a wrong code is wrong, at the field', async () => {
    const other = await signInWithPassword();
    await other.locator('#sign-in-code').fill('000000');
    await other.locator('#sign-in-code').press('Enter');
    await other.getByText('Code is wrong or was already used').waitFor();
    await other.context().close();
  });
});
