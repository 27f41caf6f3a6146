/**
 * The audit log on the search page (issue 19 item 2), in Chromium: an administrator picks "Audit
 * log" among the logs, sees the changes just made through the console (who, what, the outcome) in
 * the audit log's own columns, and no secret in the page.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { firstRunConsole, launchChromium, RequestLog } from './support/browser.ts';
import { LogSearchPage } from './pages/log-search.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

describe('the audit log on the search page', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests = new RequestLog();

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir, ruleSetLocations: [] });
    browser = await launchChromium();
    ({ context, page } = await firstRunConsole(browser, engine.url, requests, 'admin@rampart.test'));
    const request = page.context().request;
    const { csrfToken } = (await (await request.get(`${engine.url}/api/v1/session`)).json()) as { csrfToken: string };
    const created = await request.post(`${engine.url}/api/v1/sites`, {
      data: { name: 'Shop', domain: 'shop.example' },
      headers: { 'X-CSRF-Token': csrfToken },
    });
    expect(created.status()).toBe(201);
    const rotated = await request.post(`${engine.url}/api/v1/site-global/access-key`, {
      data: {},
      headers: { 'X-CSRF-Token': csrfToken },
    });
    expect(rotated.status()).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('offers the audit log and shows who changed what, with its own columns', async () => {
    const logs = new LogSearchPage(page);
    await logs.open(engine.url);
    expect(await logs.logSelect().locator('option[value="audit"]').textContent()).toBe('Audit log');
    await logs.open(engine.url, 'log=audit');
    expect(await logs.logSelect().inputValue()).toBe('audit');
    expect(await logs.hits()).toBe(3);
    const headings = await page.getByTestId('results-table').locator('thead th.mono').allTextContents();
    expect(headings).toEqual(['_timestamp', 'account', 'src_ip', 'action', 'resource_id', 'status']);
    const rows = await logs.rows().allTextContents();
    expect(rows[0]).toContain('rotateAccessKey');
    expect(rows[1]).toContain('createSite');
    expect(rows[2]).toContain('completeSetup');
    for (const row of rows) expect(row).toContain('admin@rampart.test');
    const { accessKey } = (await (await page.context().request.get(`${engine.url}/api/v1/site-global`)).json()) as {
      accessKey: string;
    };
    expect(await page.content()).not.toContain(accessKey);
    expect(requests.outside(engine.url)).toEqual([]);
  });
});
