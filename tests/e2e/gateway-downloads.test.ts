/**
 * The Traefik and Envoy plugin bundles from the site list's operations menu (issue 17 item 3),
 * edition A: each item downloads its tar.gz, holding the gateway's configuration for this site;
 * the items read in Chinese too.
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

describe('Traefik and Envoy plugin downloads, edition A', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let sitesPage: SitesPage;
  let siteId = '';
  const requests = new RequestLog();

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'A' }, { rendererDir });
    browser = await launchChromium();
    ({ context, page } = await firstRunConsole(browser, engine.url, requests, 'secops@rampart.test'));
    sitesPage = new SitesPage(page, new ShellPage(page));

    await sitesPage.open('Site Configuration');
    await page
      .getByRole('link', { name: /Create/ })
      .first()
      .click();
    await page.waitForURL(/\/config\/sites\/new$/);
    await page.locator('#site-name').fill('Gateway shop');
    await sitesPage.save();
    await page.waitForURL(/\/config\/sites(\/site_[a-z0-9]+)?$/);
    const list = await page.context().request.get(`${engine.url}/api/v1/sites`);
    const [site] = ((await list.json()) as { items: { id: string; accessMethod: string }[] }).items;
    expect(site?.accessMethod).toBe('plugin');
    siteId = site?.id ?? '';
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('downloads the Traefik and Envoy bundles of the plugin site, each with its configuration for the site', async () => {
    await sitesPage.open('Site Configuration');
    for (const [item, gateway, file] of [
      ['Download Traefik plugin', 'traefik', 'rampart-traefik.yml'],
      ['Download Envoy plugin', 'envoy', 'rampart-envoy.yaml'],
    ] as const) {
      const downloadEvent = page.waitForEvent('download');
      await sitesPage.operate('Gateway shop', item);
      const download = await downloadEvent;
      expect(download.suggestedFilename()).toBe(`rampart-${gateway}-${siteId}.tar.gz`);
      const tar = gunzipSync(await readFile(await download.path())).toString('latin1');
      expect(tar).toContain(`rampart-${gateway}-${siteId}/${file}`);
      expect(tar).toContain(`X-Rampart-Site`);
      expect(tar).toContain(`"${siteId}"`);
      await page.getByText(`Plugin bundle rampart-${gateway}-${siteId}.tar.gz downloaded`).waitFor();
    }
  });

  it('names the two items in Chinese', async () => {
    await page.evaluate("localStorage.setItem('rampart.locale', 'zh-CN')");
    await page.reload();
    await page.getByTestId('sites-total').filter({ hasText: /\d/ }).waitFor();
    await sitesPage.row('Gateway shop').getByRole('button', { name: zhCN['ops.more'] }).click();
    for (const key of ['siteOps.downloadTraefik', 'siteOps.downloadEnvoy'] as const) {
      await page.getByRole('menuitem', { name: zhCN[key], exact: true }).waitFor();
    }
    expect(zhCN['siteOps.downloadTraefik']).toBe('下载 Traefik 插件');
    expect(zhCN['siteOps.downloadEnvoy']).toBe('下载 Envoy 插件');
  });
});
