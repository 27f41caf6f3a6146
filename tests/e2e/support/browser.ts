import { expect } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { SetupPage } from '../pages/setup.page.ts';

/** Debian's Chromium: playwright cannot download its own browsers on these machines. */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      ...extraArgs,
    ],
  });
}

/**
 * Every URL any page of the contexts requested, so a test can show that nothing left the origin
 * (fonts included).
 */
export class RequestLog {
  readonly urls: string[] = [];

  track(context: BrowserContext): BrowserContext {
    context.on('request', (request) => this.urls.push(request.url()));
    return context;
  }

  outside(origin: string): string[] {
    return this.urls.filter(
      (url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:'),
    );
  }
}

export async function newContext(
  browser: Browser,
  log: RequestLog,
  options: { locale?: string; colorScheme?: 'light' | 'dark' } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    locale: options.locale ?? 'en-GB',
    colorScheme: options.colorScheme ?? 'light',
    viewport: { width: 1440, height: 900 },
  });
  return log.track(context);
}

export const STRONG_PASSWORD = 'Rampart#2026x';

/**
 * A new browser context on a fresh engine's console, through the first-run setup: the page is
 * signed in as the tenant administrator `email` and shows the console's landing page.
 */
export async function firstRunConsole(
  browser: Browser,
  engineUrl: string,
  log: RequestLog,
  email: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, log);
  const page = await context.newPage();
  await page.goto(`${engineUrl}/`);
  await page.waitForURL(/\/setup$/);
  const setup = new SetupPage(page);
  await setup.fill(email, STRONG_PASSWORD);
  await setup.submit();
  await page.waitForURL(`${engineUrl}/`);
  return { context, page };
}

/**
 * The engine's API as the signed-in console calls it (the page's session cookie, a fresh CSRF
 * token): a non-2xx answer fails the test with its body.
 */
export async function consoleApi<T>(
  page: Page,
  baseUrl: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  data?: unknown,
): Promise<T> {
  const request = page.context().request;
  const { csrfToken } = (await (await request.get(`${baseUrl}/api/v1/session`)).json()) as { csrfToken: string };
  const response = await request.fetch(`${baseUrl}/api/v1${path}`, {
    method,
    data,
    headers: { 'X-CSRF-Token': csrfToken },
  });
  expect(response.ok(), `${method} ${path}: ${await response.text()}`).toBe(true);
  return (await response.json()) as T;
}
