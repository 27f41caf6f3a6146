/**
 * Log search and log storage in Chromium against a real engine with seeded records (issue 13
 * acceptance): pick a log, add and negate a filter, quick-select all, zoom on the histogram by
 * dragging, reload and see the same view, open surrounding records, see a live-tail record appear;
 * a parse failure shows its reason; the site list links to a site's access log; the storage page
 * changes the retention and purges a log only once its name is typed.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { consoleApi, launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SetupPage } from './pages/setup.page.ts';
import { LogSearchPage } from './pages/log-search.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const screenshotDir = fileURLToPath(new URL('../../dist/screenshots', import.meta.url));

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('log search and storage, edition B', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let logs: LogSearchPage;
  const requests = new RequestLog();
  let shop = '';
  let blog = '';

  const api = <T>(method: 'GET' | 'POST' | 'PUT', path: string, data?: unknown): Promise<T> =>
    consoleApi<T>(page, engine.url, method, path, data);

  beforeAll(async () => {
    await mkdir(screenshotDir, { recursive: true });
    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir, ruleSetLocations: [] });
    browser = await launchChromium();
    context = await newContext(browser, requests);
    page = await context.newPage();
    await page.goto(`${engine.url}/`);
    await page.waitForURL(/\/setup$/);
    const setup = new SetupPage(page);
    await setup.fill('admin@rampart.test', STRONG_PASSWORD);
    await setup.submit();
    await page.waitForURL(`${engine.url}/`);
    shop = (
      await api<{ id: string }>('POST', '/sites', { name: 'Shop', domain: 'shop.example', accessMethod: 'plugin' })
    ).id;
    blog = (
      await api<{ id: string }>('POST', '/sites', { name: 'Blog', domain: 'blog.example', accessMethod: 'plugin' })
    ).id;

    const now = Date.now();
    // 100 recent requests (every 4th refused with 403), 20 from three days ago, one line that did not parse.
    for (let i = 0; i < 20; i++) {
      engine.logStore.append(`access:${shop}`, {
        _timestamp: now - 3 * DAY + i * 1000,
        src_ip: '203.0.113.9',
        request: `GET /old/${i} HTTP/1.1`,
        status: 200,
        guard_status: 'PASS',
      });
    }
    engine.logStore.append(`access:${shop}`, {
      _timestamp: now - 2 * DAY,
      parsed: 0,
      reason: 'required field missing: src_ip',
      raw_data: 'garbage line',
    });
    for (let i = 0; i < 100; i++) {
      engine.logStore.append(`access:${shop}`, {
        _timestamp: now - HOUR + i * 30_000,
        src_ip: `192.0.2.${i % 5}`,
        request: `GET /item/${i} HTTP/1.1`,
        status: i % 4 === 0 ? 403 : 200,
        guard_status: i % 4 === 0 ? 'OWASP' : 'PASS',
        user_agent: 'Mozilla/5.0',
      });
    }
    for (let i = 0; i < 5; i++) {
      engine.logStore.append(`access:${blog}`, { _timestamp: now - i * 60_000, src_ip: '198.51.100.1', status: 200 });
    }
    await engine.logStore.flush();
    logs = new LogSearchPage(page);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('picks a log, filters, negates, widens to all, zooms, and keeps the view across a reload', async () => {
    await logs.open(engine.url);
    await logs.pickLog(`access:${shop}`);
    expect(await logs.hits()).toBe(100);

    await logs.addFilter('status', 'is', '403');
    expect(await logs.hits()).toBe(25);
    expect(await logs.rows().count()).toBe(25);
    await logs.pillAction(0, 'Exclude results');
    expect(await logs.pills().first().getAttribute('data-negate')).toBe('true');
    expect(await logs.pills().first().textContent()).toContain('NOT status: 403');
    expect(await logs.hits()).toBe(75);

    await logs.quickSelect('all');
    expect(new URL(page.url()).searchParams.get('range')).toBe('all');
    // 75 recent, 20 old and the line that did not parse (it has no status, so it is not 403).
    expect(await logs.hits()).toBe(96);
    const unparsed = logs.rows().filter({ has: page.getByTestId('unparsed') });
    expect(await unparsed.count()).toBe(1);
    expect(await unparsed.textContent()).toContain('Not parsed: required field missing: src_ip');
    await page.screenshot({ path: `${screenshotDir}/log-search-all.png`, fullPage: true });

    // The last 40% of three days holds the recent hour and nothing older.
    await logs.zoom(0.6, 0.995);
    expect(await logs.hits()).toBe(75);
    const url = page.url();

    await logs.searching(() => page.reload(), { fresh: true });
    expect(page.url()).toBe(url);
    expect(await logs.logSelect().inputValue()).toBe(`access:${shop}`);
    expect(await logs.pills().count()).toBe(1);
    expect(await logs.pills().first().getAttribute('data-negate')).toBe('true');
    expect(await logs.hits()).toBe(75);
    expect(await logs.rows().count()).toBe(75);
    expect(requests.outside(engine.url)).toEqual([]);
  });

  it('turns a pill off and on, and says where a query cannot be read', async () => {
    await logs.pillAction(0, 'Temporarily disable');
    expect(await logs.pills().first().getAttribute('data-disabled')).toBe('true');
    expect(await logs.hits()).toBe(100);
    await logs.pillAction(0, 'Re-enable');
    expect(await logs.hits()).toBe(75);

    await logs.query('status:(403');
    const error = page.getByTestId('query-error');
    await error.waitFor();
    expect(await error.textContent()).toContain('cannot be read at character');
    expect(await page.getByTestId('query-error-pointer').textContent()).toMatch(/status:\(403\n\s+\^/);
    await logs.query('src_ip:192.0.2.1');
    expect(await logs.hits()).toBe(15);
    await logs.query('');
    expect(await logs.hits()).toBe(75);
  });

  it('completes field names in the query box', async () => {
    const box = page.getByTestId('log-query');
    await box.fill('');
    await box.pressSequentially('guard_st');
    const option = page.getByRole('option', { name: 'guard_status' });
    await option.waitFor();
    await box.press('Tab');
    expect(await box.inputValue()).toBe('guard_status:');
    await box.fill('');
  });

  it('filters for a value from the field sidebar and adds a column', async () => {
    const sidebar = page.getByTestId('field-sidebar');
    await sidebar.getByRole('searchbox').fill('src');
    const field = sidebar.locator('li[data-field="src_ip"]');
    await field.getByRole('button', { name: 'Top values of src_ip' }).click();
    await logs.searching(() => field.getByRole('button', { name: 'Filter for 192.0.2.3' }).click());
    expect(await logs.pills().count()).toBe(2);
    expect(await logs.hits()).toBe(15);
    await sidebar.getByRole('searchbox').fill('user');
    await sidebar.getByRole('button', { name: 'Add user_agent as a column' }).click();
    await page.waitForURL((url) => (url.searchParams.get('cols') ?? '').includes('user_agent'));
    await page.getByRole('columnheader', { name: 'user_agent' }).waitFor();
    await logs.searching(() => page.getByTestId('pill-remove').nth(1).click());
    expect(await logs.hits()).toBe(75);
  });

  it('opens a record as a table and JSON, and its surrounding records', async () => {
    const row = logs.rows().nth(10);
    const id = await row.getAttribute('data-id');
    await row.getByTestId('expand-row').click();
    await page.waitForURL((url) => url.searchParams.get('rec') === id);
    const detail = page.getByTestId('record-detail');
    await detail.locator('tr[data-field="request"]').waitFor();
    await detail.getByText('JSON', { exact: true }).click();
    expect(await page.getByTestId('record-json').textContent()).toContain('"src_ip"');
    await detail.getByTestId('surrounding').click();
    const modal = page.getByTestId('surrounding-modal');
    await modal.getByTestId('surrounding-self').waitFor();
    // Five written before and five after, the 403s included (neighbours in time, not in the result).
    expect(await modal.getByTestId('surrounding-row').count()).toBe(10);
    await page.screenshot({ path: `${screenshotDir}/log-search-surrounding.png` });
    await page.keyboard.press('Escape');
    await modal
      .locator('.bx--modal.is-visible')
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
  });

  it('shows a record written while the live tail is on, at the top', async () => {
    await page.getByTestId('live-tail').locator('label').click();
    await page.getByTestId('tail-on').waitFor();
    // Wait for the stream to be open before writing.
    await page.waitForTimeout(500);
    engine.logStore.append(`access:${shop}`, {
      _timestamp: Date.now(),
      src_ip: '198.51.100.77',
      request: 'GET /live HTTP/1.1',
      status: 200,
      guard_status: 'PASS',
    });
    engine.logStore.append(`access:${shop}`, {
      _timestamp: Date.now(),
      src_ip: '198.51.100.78',
      request: 'GET /refused HTTP/1.1',
      status: 403,
      guard_status: 'OWASP',
    });
    await engine.logStore.flush();
    const first = logs.rows().first();
    await first.filter({ hasText: '198.51.100.77' }).waitFor({ timeout: 10_000 });
    expect(await first.textContent()).toContain('GET /live HTTP/1.1');
    // The negated pill holds for the tail too: the 403 never appears.
    await page.waitForTimeout(500);
    expect(await logs.rows().filter({ hasText: '198.51.100.78' }).count()).toBe(0);
    await page.screenshot({ path: `${screenshotDir}/log-search-tail.png`, fullPage: true });
    await page.getByTestId('live-tail').locator('label').click();
    await page.getByTestId('tail-on').waitFor({ state: 'detached' });
  });

  it('exports the result as NDJSON and CSV in the chosen columns', async () => {
    const fetched = async (item: string): Promise<{ name: string; text: string }> => {
      await page.getByRole('button', { name: 'Export' }).click();
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('menuitem', { name: item }).click(),
      ]);
      const chunks: Buffer[] = [];
      for await (const chunk of (await file.createReadStream()) as AsyncIterable<Buffer>) chunks.push(chunk);
      return { name: file.suggestedFilename(), text: Buffer.concat(chunks).toString('utf8') };
    };
    const nd = await fetched('Export NDJSON (whole records)');
    expect(nd.name).toMatch(/\.ndjson$/);
    const records = nd.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: number });
    expect(records.length).toBe(await logs.hits());
    expect(records.every((r) => r.status !== 403)).toBe(true);
    const csv = await fetched('Export CSV (chosen columns)');
    expect(csv.name).toMatch(/\.csv$/);
    expect(csv.text.split('\r\n')[0]).toBe('_timestamp,src_ip,request,status,guard_status,user_agent');
  });

  it('saves a search and opens it again with its whole state', async () => {
    const saved = page.url();
    await page.getByRole('button', { name: 'Saved searches' }).click();
    await page.getByRole('menuitem', { name: 'Save search…' }).click();
    await page.locator('#saved-name').fill('Refused recently');
    await page.locator('#saved-name').press('Enter');
    await page.getByText('Saved “Refused recently”').waitFor();
    await logs.quickSelect('15m');
    expect(page.url()).not.toBe(saved);
    await page.getByRole('button', { name: 'Saved searches' }).click();
    await logs.searching(() => page.getByRole('menuitem', { name: 'Refused recently', exact: true }).click());
    expect(page.url()).toBe(saved);
    expect(await logs.hits()).toBe(75);
  });

  it('says so when the link names a log that does not exist', async () => {
    await logs.open(engine.url, 'log=access%3Asite_gone&range=all');
    await page.getByText('This log does not exist').waitFor();
    expect(await page.getByText('No log is named access:site_gone').count()).toBe(1);
  });

  it('collapses the top menu for more room, and has it back on the next page', async () => {
    await logs.open(engine.url, `log=${encodeURIComponent(`access:${shop}`)}`);
    const topBar = page.locator('header.bx--header');
    expect(await topBar.count()).toBe(1);
    await page.getByTestId('collapse-top-menu').click();
    await topBar.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Show top menu' }).click();
    await topBar.waitFor();
    await page.getByTestId('collapse-top-menu').click();
    await topBar.waitFor({ state: 'detached' });
    // another page of the console, reached without reloading it
    await page.getByRole('button', { name: 'Configuration Management' }).click();
    await page.getByRole('link', { name: 'Site Management' }).click();
    await page.waitForURL(`${engine.url}/config/sites`);
    await topBar.waitFor();
  });

  it("opens a site's access log from the site list", async () => {
    await page.goto(`${engine.url}/config/sites`);
    const row = page.locator('tr[data-site="Blog"]');
    await row.getByRole('button', { name: /More operations/ }).click();
    await logs.searching(() => page.getByRole('menuitem', { name: 'View access log' }).click(), { fresh: true });
    await page.waitForURL(/\/logs\/search\?/);
    expect(await logs.logSelect().inputValue()).toBe(`access:${blog}`);
    expect(await logs.hits()).toBe(5);
  });

  it('changes the retention and purges a log only once its name is typed', async () => {
    await page.goto(`${engine.url}/enterprise/storage`);
    const table = page.getByTestId('storage-table');
    await table.waitFor();
    expect(await table.locator(`tr[data-log="access:${blog}"]`).count()).toBe(1);
    await page.screenshot({ path: `${screenshotDir}/log-storage.png`, fullPage: true });

    await page.locator('#retention-access').fill('0');
    await page.getByTestId('save-retention').click();
    await page.getByText('Enter a whole number of days from 1 to 3650.').first().waitFor();
    await page.locator('#retention-access').fill('7');
    await page.getByTestId('save-retention').click();
    await page.getByText('Retention saved.').waitFor();
    expect((await api<{ retentionDays: { access: number } }>('GET', '/storage')).retentionDays.access).toBe(7);

    await table.locator(`tr[data-log="access:${blog}"]`).getByTestId('purge-log').click();
    const modal = page.getByRole('dialog', { name: `Purge access:${blog}?` });
    const confirm = modal.getByRole('button', { name: 'Purge log' });
    expect(await confirm.isDisabled()).toBe(true);
    await modal.locator('#purge-confirm').fill('access:');
    expect(await confirm.isDisabled()).toBe(true);
    await modal.locator('#purge-confirm').fill(`access:${blog}`);
    await confirm.click();
    await page.getByText(`Log access:${blog} purged.`).waitFor();
    expect(await table.locator(`tr[data-log="access:${blog}"]`).count()).toBe(0);
    const after = await api<{ logs: { log: string }[] }>('GET', '/storage');
    expect(after.logs.map((l) => l.log)).not.toContain(`access:${blog}`);
    expect(after.logs.map((l) => l.log)).toContain(`access:${shop}`);
  });
});
