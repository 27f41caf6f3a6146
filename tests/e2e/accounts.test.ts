/**
 * The accounts story of the console against the real engine and a real SMTP server: first-run setup,
 * sign-in, an invited user activating through the e-mailed link, what each role sees, disabling,
 * signing out, and that the browser never leaves the engine's origin.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { TestSmtpServer } from '../support/smtp.ts';
import { launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SetupPage } from './pages/setup.page.ts';
import { SignInPage } from './pages/sign-in.page.ts';
import { LinkPage } from './pages/link.page.ts';
import { ShellPage } from './pages/shell.page.ts';
import { AccountsPage } from './pages/accounts.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const ADMIN = 'admin@rampart.test';
const USER = 'analyst@rampart.test';
const GUEST = 'visitor@rampart.test';

describe('console accounts, end to end', () => {
  let smtp: TestSmtpServer;
  let engine: TestEngine;
  let browser: Browser;
  const requests = new RequestLog();
  const contexts: BrowserContext[] = [];
  let admin: Page;

  const freshPage = async (): Promise<Page> => {
    const context = await newContext(browser, requests);
    contexts.push(context);
    return context.newPage();
  };

  /** Opens the activation link mailed to `email`, sets the password, and returns on the sign-in page. */
  const activate = async (email: string): Promise<Page> => {
    const mail = await smtp.waitFor(email);
    const link = TestSmtpServer.linkIn(mail);
    expect(link.startsWith(`${engine.url}/activate?token=`)).toBe(true);
    const page = await freshPage();
    await page.goto(link);
    const linkPage = new LinkPage(page);
    expect(await linkPage.email().textContent()).toBe(email);
    await linkPage.setPassword(STRONG_PASSWORD);
    await page.waitForURL(/\/sign-in/);
    await page.getByText('Your password is set').waitFor();
    return page;
  };

  beforeAll(async () => {
    smtp = await new TestSmtpServer().start();
    engine = await startTestEngine(smtp.env(), { rendererDir });
    browser = await launchChromium();
    admin = await freshPage();
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await engine?.dispose();
    await smtp?.stop();
  });

  it('leads a fresh appliance to first-run setup, checks the password rule live, and signs the administrator in', async () => {
    await admin.goto(`${engine.url}/`);
    await admin.waitForURL(/\/setup$/);
    const setup = new SetupPage(admin);
    await setup.fill(ADMIN, 'short');
    expect(await setup.ruleMet('length')).toBe(false);
    await setup.fill(ADMIN, STRONG_PASSWORD, 'Rampart#2026y');
    expect(await setup.ruleMet('length')).toBe(true);
    expect(await setup.ruleMet('classes')).toBe(true);
    await setup.submit();
    await admin.getByText('Confirm password does not match').waitFor();
    await setup.fill(ADMIN, STRONG_PASSWORD);
    await setup.submit();
    await admin.waitForURL(`${engine.url}/`);
    const texts = (await new ShellPage(admin).sideNavTexts()).join('\n');
    expect(texts).toContain('Enterprise Management');
  });

  it('signs the administrator in from a new browser', async () => {
    const page = await freshPage();
    const signIn = new SignInPage(page);
    await signIn.open(engine.url);
    await signIn.signIn(ADMIN, 'Wrong#2026pass');
    expect(await signIn.formError().textContent()).toContain('E-mail or password is wrong');
    await signIn.signIn(ADMIN, STRONG_PASSWORD);
    await page.waitForURL(`${engine.url}/`);
    await page.getByText(/Welcome, /).waitFor();
    await page.context().close();
  });

  it('creates a user whose activation e-mail arrives at the SMTP server', async () => {
    const accounts = new AccountsPage(admin, new ShellPage(admin));
    await accounts.open();
    expect(new URL(admin.url()).pathname).toBe('/enterprise/accounts');
    await accounts.create(USER, 'User');
    expect(await accounts.deliveryNotice().textContent()).toContain(`Activation e-mail sent to ${USER}`);
    expect(await accounts.row(USER).getByTestId('activation-status').textContent()).toContain('Awaiting activation');
    const mail = await smtp.waitFor(USER);
    expect(mail.to).toEqual([USER]);
  });

  it('activates the user through the e-mailed link, and the user sees exactly the menus of the user role', async () => {
    const page = await activate(USER);
    await new SignInPage(page).signIn(USER, STRONG_PASSWORD);
    await page.getByText(/Welcome, /).waitFor();
    const menus = (await new ShellPage(page).sideNavTexts()).join('\n');
    expect(menus).toContain('Configuration Management');
    expect(menus).not.toContain('Enterprise Management');
    expect(await page.getByText('Enterprise Management').count()).toBe(0);
    const refused = await page.context().request.get(`${engine.url}/api/v1/accounts`);
    expect(refused.status()).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN_ROLE');
    await page.goto(`${engine.url}/enterprise/accounts`);
    await page.getByText('You do not have permission to open this page').waitFor();
  });

  it('shows a guest the menus of the guest role only: Log Management, nothing else', async () => {
    const accounts = new AccountsPage(admin, new ShellPage(admin));
    await accounts.create(GUEST, 'Guest');
    const page = await activate(GUEST);
    await new SignInPage(page).signIn(GUEST, STRONG_PASSWORD);
    await page.getByText(/Welcome, /).waitFor();
    const menus = (await new ShellPage(page).sideNavTexts()).join('\n');
    expect(menus).toContain('Log Management');
    expect(menus).not.toContain('Configuration Management');
    expect(await page.getByText('Enterprise Management').count()).toBe(0);
    expect((await page.context().request.get(`${engine.url}/api/v1/accounts`)).status()).toBe(403);
    expect((await page.context().request.get(`${engine.url}/api/v1/licence`)).status()).toBe(403);
  });

  it('refuses sign-in to a disabled account with a message', async () => {
    const accounts = new AccountsPage(admin, new ShellPage(admin));
    await accounts.operate(USER, 'Disable');
    await admin.getByTestId('operation-result').waitFor();
    expect(await accounts.row(USER).getByTestId('enabled-status').textContent()).toContain('Disabled');
    const page = await freshPage();
    const signIn = new SignInPage(page);
    await signIn.open(engine.url);
    await signIn.signIn(USER, STRONG_PASSWORD);
    expect(await signIn.formError().textContent()).toContain('This account is disabled');
    expect(new URL(page.url()).pathname).toBe('/sign-in');
  });

  it('protects the own tenant account in the list, with the reason', async () => {
    const accounts = new AccountsPage(admin, new ShellPage(admin));
    const own = accounts.row(ADMIN);
    expect(await own.getByTestId('ops-locked').count()).toBe(1);
    expect(await own.getByRole('button', { name: /More operations/ }).count()).toBe(0);
  });

  it('ends the session on sign-out: a reload shows sign-in and the old cookie no longer works', async () => {
    const cookies = await admin.context().cookies();
    const session = cookies.find((c) => c.name === 'rampart_session');
    expect(session).toBeDefined();
    await new ShellPage(admin).signOut();
    await admin.waitForURL(/\/sign-in/);
    await admin.getByText('You have signed out.').waitFor();
    await admin.reload();
    await new SignInPage(admin).heading().waitFor();
    const replay = await fetch(`${engine.url}/api/v1/session`, {
      headers: { Cookie: `rampart_session=${session?.value ?? ''}` },
    });
    expect(replay.status).toBe(401);
  });

  it('never sends a request outside the engine origin', () => {
    expect(requests.urls.length).toBeGreaterThan(20);
    expect(requests.outside(engine.url)).toEqual([]);
  });
});
