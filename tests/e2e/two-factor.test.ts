/**
 * Two-factor sign-in in the console: the administrator sets it up on My account (the secret in
 * groups of four, the QR code, a code of the app, the recovery codes shown once), then signs in
 * with a code of the app, and with a recovery code. With administrators held to two-factor (System
 * setting), a second administrator is sent to My account until they set it up; the first resets it
 * from Accounts.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { totpCode } from '#engine/accounts';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { firstRunConsole, launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SignInPage } from './pages/sign-in.page.ts';
import { ShellPage } from './pages/shell.page.ts';
import { AccountsPage } from './pages/accounts.page.ts';
import { ApiClient } from '../support/api-client.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const ADMIN = 'owner@rampart.test';
const OPS = 'ops@rampart.test';

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

  async function signInWithPassword(email = ADMIN): Promise<Page> {
    const other = await newContext(browser, requests);
    const signIn = new SignInPage(await other.newPage());
    await signIn.open(engine.url);
    await signIn.signIn(email, STRONG_PASSWORD);
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

  it('sends an administrator without a second factor to My account while administrators must have one', async () => {
    // The owner (two-factor on) turns the setting on and creates a second administrator, through the API.
    const owner = new ApiClient(engine.url);
    const challenge = (
      await owner.request<{ challengeId: string }>('POST', '/session', { email: ADMIN, password: STRONG_PASSWORD })
    ).body;
    // The app's codes of these steps are used up by the sign-ins above: a recovery code.
    const signedIn = await owner.request<{ csrfToken: string }>('POST', '/session/second-factor', {
      challengeId: challenge.challengeId,
      recoveryCode: recoveryCodes[1]!,
    });
    expect(signedIn.status).toBe(200);
    owner.csrf = signedIn.body.csrfToken;
    expect((await owner.request('PUT', '/system/two-factor', { requireTwoFactorForAdmins: true })).status).toBe(200);
    const created = await owner.request<{ delivery: { link: string } }>('POST', '/accounts', {
      email: OPS,
      role: 'administrator',
    });
    const token = new URL(created.body.delivery.link).searchParams.get('token');
    expect(
      (await new ApiClient(engine.url).request('POST', '/links/complete', { token, password: STRONG_PASSWORD })).status,
    ).toBe(204);

    const ops = await (await newContext(browser, requests)).newPage();
    const signIn = new SignInPage(ops);
    await signIn.open(engine.url);
    await signIn.signIn(OPS, STRONG_PASSWORD);
    await ops.waitForURL(`${engine.url}/account`);
    await ops.getByTestId('two-factor-required').waitFor();
    await ops.goto(`${engine.url}/config/sites`);
    await ops.waitForURL(`${engine.url}/account`);

    await ops.getByTestId('two-factor-start').click();
    const opsSecret = ((await ops.getByTestId('two-factor-secret').textContent()) ?? '').replace(/\s/g, '');
    await ops.locator('#enrol-code').fill(totpCode(opsSecret, Date.now()));
    await ops.locator('#enrol-code').press('Enter');
    await ops.getByTestId('recovery-codes-done').click();
    await ops.getByTestId('two-factor-required').waitFor({ state: 'detached' });
    await ops.goto(`${engine.url}/config/sites`);
    await ops.waitForURL(`${engine.url}/config/sites`);
    await ops.context().close();
  });

  it("resets another administrator's two-factor from Accounts, after a confirmation", async () => {
    const accounts = new AccountsPage(page, new ShellPage(page));
    await accounts.open();
    expect(await accounts.row(ADMIN).getByTestId('reset-two-factor').count()).toBe(0);
    const row = accounts.row(OPS);
    await row.getByTestId('two-factor-status').getByText('On').waitFor();
    await row.getByTestId('reset-two-factor').click();
    const dialog = page.getByRole('dialog', { name: 'Reset two-factor sign-in?' });
    await dialog.getByRole('button', { name: 'Reset' }).click();
    await row.getByTestId('two-factor-status').getByText('Off').waitFor();
    await page.getByText(`Two-factor sign-in of ${OPS} is off.`).waitFor();
  });
});
