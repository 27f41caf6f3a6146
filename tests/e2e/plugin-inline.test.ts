/**
 * A plugin site's inline mode in the console (issue 17 item 2), edition A: choosing it shows
 * Rampart's port and the upstream, the engine's refusal of a missing upstream lands on its field,
 * and the stored site keeps the mode through a later save.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { firstRunConsole, launchChromium, RequestLog } from './support/browser.ts';
import { ShellPage } from './pages/shell.page.ts';
import { SitesPage } from './pages/sites.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

interface SiteJson {
  pluginMode: string;
  cname: { httpPort: number; originAddress: string };
}

describe('plugin inline mode, edition A', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let sitesPage: SitesPage;
  const requests = new RequestLog();

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'A' }, { rendererDir });
    browser = await launchChromium();
    ({ context, page } = await firstRunConsole(browser, engine.url, requests, 'secops@rampart.test'));
    sitesPage = new SitesPage(page, new ShellPage(page));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('switches a plugin site to inline mode, with the upstream required on its field, and keeps it', async () => {
    await sitesPage.open('Site Configuration');
    await page
      .getByRole('link', { name: /Create/ })
      .first()
      .click();
    await page.waitForURL(/\/config\/sites\/new$/);
    await page.locator('#site-name').fill('Inline shop');
    await page.getByTestId('inline-mode').waitFor();
    expect(await page.locator('#inline-upstream').count()).toBe(0);
    await page.locator('label[for="plugin-mode-inline"]').click();
    await page.locator('#inline-upstream').waitFor();
    expect(await page.locator('#inline-port').inputValue()).toBe('80');
    await page.locator('#inline-port').fill('18080');

    await sitesPage.save();
    await expect.poll(() => page.locator('#inline-upstream').getAttribute('aria-invalid')).toBe('true');
    expect(new URL(page.url()).pathname).toBe('/config/sites/new');

    await page.locator('#inline-upstream').fill('127.0.0.1:9');
    await sitesPage.save();
    await page.waitForURL(/\/config\/sites(\/site_[a-z0-9]+)?$/);
    const list = await page.context().request.get(`${engine.url}/api/v1/sites`);
    const [site] = ((await list.json()) as { items: (SiteJson & { id: string })[] }).items;
    expect(site).toMatchObject({ pluginMode: 'inline', cname: { httpPort: 18080, originAddress: '127.0.0.1:9' } });

    // A later save of the form keeps the mode.
    await page.goto(`${engine.url}/config/sites/${site?.id ?? ''}`);
    await page.getByTestId('site-form').waitFor();
    expect(await page.locator('#plugin-mode-inline').isChecked()).toBe(true);
    await page.locator('#site-name').fill('Inline shop 2');
    await sitesPage.save();
    await expect
      .poll(
        async () =>
          (
            (await (
              await page.context().request.get(`${engine.url}/api/v1/sites/${site?.id ?? ''}`)
            ).json()) as SiteJson & { name: string }
          ).name,
      )
      .toBe('Inline shop 2');
    const again = (await (
      await page.context().request.get(`${engine.url}/api/v1/sites/${site?.id ?? ''}`)
    ).json()) as SiteJson;
    expect(again.pluginMode).toBe('inline');
  });
});
