import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** Debian's Chromium: playwright cannot download its own browsers on these machines. */
export function launchChromium(): Promise<Browser> {
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
