/**
 * Edition B's bypass access in the console: the bypass tab says to save the site first, then shows
 * the web SDK's script tag (the gateway address and the site's ID) with a copy button; the tag's
 * script is served by the engine's gateway API. The site list offers the mini-program SDK download
 * once mini-program protection is on. The tab in Chinese.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { firstRunConsole, launchChromium, RequestLog } from './support/browser.ts';
import { ShellPage } from './pages/shell.page.ts';
import { SitesPage } from './pages/sites.page.ts';
import { zhCN } from '../../renderer/i18n/zh-CN.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

describe('bypass access, edition B', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let sitesPage: SitesPage;
  const requests = new RequestLog();

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir });
    browser = await launchChromium();
    ({ context, page } = await firstRunConsole(browser, engine.url, requests, 'secops@rampart.test'));
    sitesPage = new SitesPage(page, new ShellPage(page));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('shows the script tag to insert once the bypass site is saved, and the tag loads the SDK', async () => {
    await sitesPage.open('Site Management');
    await page.getByRole('link', { name: 'Create site' }).first().click();
    await page.waitForURL(/\/config\/sites\/new$/);
    await page.locator('#site-name').fill('Blog');
    await page.locator('#site-domain').fill('blog.example.com');
    await sitesPage.choose('access-method', 'bypass');
    await page.getByTestId('bypass-notice').getByText('Bypass access: monitoring only').waitFor();
    expect(await page.getByTestId('bypass-save-first').textContent()).toContain('save the site');

    await sitesPage.saveAndReturn();
    await sitesPage.edit('Blog');
    const siteId = new URL(page.url()).pathname.split('/').pop()!;
    const snippet = page.getByTestId('bypass-sdk-tag');
    await snippet.waitFor();
    const gateway = new URL(engine.gatewayUrl).host;
    const tag = `<script src="http://${gateway}/_rampart/sdk.js?site=${siteId}" async></script>`;
    expect((await snippet.locator('code').textContent())?.trim()).toBe(tag);
    expect(await snippet.getByRole('button', { name: /Script tag to insert/ }).count()).toBe(1);
    expect(await page.getByText('Insert this tag in the <head> of every page of blog.example.com').count()).toBe(1);

    const script = await fetch(`http://${gateway}/_rampart/sdk.js?site=${siteId}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('application/javascript');
  });

  it('downloads the mini-program SDK of a site with mini-program protection from the site list', async () => {
    await sitesPage.open('Site Management');
    await sitesPage.edit('Blog');
    await sitesPage.setSwitch('site-mini-program', true);
    await sitesPage.saveAndReturn();
    const siteId = (await sitesPage.row('Blog').getByTestId('edit-site').getAttribute('href'))!.split('/').pop()!;
    const downloadEvent = page.waitForEvent('download');
    await sitesPage.operate('Blog', 'Download mini-program SDK');
    const file = await downloadEvent;
    expect(file.suggestedFilename()).toBe(`rampart-mini-program-${siteId}.tar.gz`);
    const tar = gunzipSync(await readFile(await file.path())).toString('latin1');
    expect(tar).toContain(`rampart-mini-program-${siteId}/rampart-mini-program.js`);
    expect(tar).toContain('createRampart');
    expect(tar).toContain(`"siteId": "${siteId}"`);
    await page.getByText(`Mini-program SDK rampart-mini-program-${siteId}.tar.gz downloaded`).waitFor();
  });

  it('shows the tab in Chinese', async () => {
    await sitesPage.edit('Blog');
    await page.evaluate("localStorage.setItem('rampart.locale', 'zh-CN')");
    await page.reload();
    await page.getByTestId('bypass-notice').getByText(zhCN['bypass.title']).waitFor();
    expect(await page.getByText(zhCN['bypass.tagTitle'], { exact: true }).count()).toBe(1);
    await page.getByTestId('bypass-sdk-tag').waitFor();
  });
});
