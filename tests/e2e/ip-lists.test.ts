/**
 * The global IP lists in Chromium against a real engine (design 2c): the page is reached from Rule
 * Management; a save with a bad line marks that line and saves nothing; fixed, the lists are saved
 * and the gateway's verdict endpoint blocks a client on the block list (BLOCKLIST) and lets one on
 * both lists through (IGNORE, the pass list wins); an import merges into a list, export downloads
 * what a list holds, and a save that removes entries is confirmed first.
 */
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { rawRequest } from '../support/http.ts';
import { consoleApi, launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SetupPage } from './pages/setup.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const BLOCKED = '198.51.100.20';
const PASSED = '203.0.113.9';
const OTHER = '192.0.2.44';

describe('global IP lists', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let siteId = '';
  let accessKey = '';
  let dir = '';
  const requests = new RequestLog();

  const api = <T>(method: 'GET' | 'POST', path: string, data?: unknown): Promise<T> =>
    consoleApi<T>(page, engine.url, method, path, data);

  /** The guard status the gateway's verdict endpoint gives a client address. */
  async function verdict(ip: string): Promise<string | null> {
    const res = await rawRequest(`${engine.gatewayUrl}/_rampart/verdict`, {
      headers: {
        'x-rampart-site': siteId,
        'x-rampart-key': accessKey,
        'x-original-uri': '/',
        'x-original-method': 'GET',
        host: 'shop.example.com',
        'x-rampart-remote-addr': ip,
        'x-request-id': `req-${Math.random().toString(16).slice(2)}`,
        'user-agent':
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
      },
    });
    const guard = res.headers['x-rampart-guard'];
    return typeof guard === 'string' ? guard : null;
  }

  const box = (name: 'pass' | 'block') => page.locator(`#ip-list-${name}`);
  const panel = (name: 'pass' | 'block') => page.getByTestId(`ip-list-${name}`);
  const markedLines = (name: 'pass' | 'block') => panel(name).locator('.gutter span.error').allTextContents();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rampart-ip-lists-'));
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
    siteId = (
      await api<{ id: string }>('POST', '/sites', {
        name: 'Shop',
        domain: 'shop.example.com',
        accessMethod: 'plugin',
        runMode: 'block',
      })
    ).id;
    accessKey = (await api<{ accessKey: string }>('GET', '/site-global/access-key')).accessKey;
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('opens from Rule Management, empty, saying the order the lists are read in', async () => {
    await page.goto(`${engine.url}/rules?site=${siteId}`);
    await page.getByTestId('open-ip-lists').click();
    await page.waitForURL(/\/rules\/ip-lists$/);
    await page.getByTestId('ip-lists-empty').waitFor();
    const order = await page.getByTestId('ip-lists-order').textContent();
    expect(order).toContain('site’s own pass list');
    expect(order).toContain('pass list wins');
    expect(await panel('pass').textContent()).toContain('0 entries');
    expect(await verdict(BLOCKED)).not.toBe('BLOCKLIST');
  });

  it('marks a bad line with its number and saves nothing', async () => {
    // A blank line and a repeated entry do not shift the line the problem is shown on.
    await box('block').fill(`${BLOCKED}\n\n${PASSED}\n${BLOCKED}\n10.0.0.0/40\nnot-an-ip`);
    await box('pass').fill(PASSED);
    expect(await panel('block').textContent()).toContain('5 entries');
    expect(await panel('block').textContent()).toContain('at most 10,000');
    await page.getByTestId('save-ip-lists').click();
    await expect.poll(() => markedLines('block')).toEqual(['5', '6']);
    const error = await panel('block').getByTestId('lines-error').textContent();
    expect(error).toContain('Line 5: “10.0.0.0/40” has an invalid prefix length (0 to 32).');
    expect(error).toContain('Line 6: “not-an-ip” is not an IP address or CIDR range.');
    expect(await page.getByTestId('operation-error').textContent()).toContain('Nothing was saved');
    expect(await api<{ block: string[] }>('GET', '/ip-lists')).toEqual({ pass: [], block: [] });
  });

  it('saves the fixed lists, and the gateway blocks and passes by them', async () => {
    await box('block').fill(`${BLOCKED}\n\n${PASSED}\n${BLOCKED}\n10.0.0.0/8\n2001:db8::/32`);
    // Editing the box clears the marks said about its old text.
    expect(await markedLines('block')).toEqual([]);
    await page.getByTestId('save-ip-lists').click();
    await expect.poll(() => page.getByTestId('operation-result').textContent()).toContain('Global IP lists saved');
    expect(await page.getByTestId('operation-result').textContent()).toContain('1 pass entry, 4 block entries');
    expect(await api('GET', '/ip-lists')).toEqual({
      pass: [PASSED],
      block: [BLOCKED, PASSED, '10.0.0.0/8', '2001:db8::/32'],
    });
    // Stored as the engine keeps them: each once.
    expect(await box('block').inputValue()).toBe(`${BLOCKED}\n${PASSED}\n10.0.0.0/8\n2001:db8::/32`);

    expect(await verdict(BLOCKED)).toBe('BLOCKLIST');
    expect(await verdict('10.1.2.3')).toBe('BLOCKLIST');
    expect(await verdict(PASSED)).toBe('IGNORE');
    expect(await verdict(OTHER)).not.toMatch(/^(BLOCKLIST|IGNORE)$/);
  });

  it('exports a list as a text file, one entry per line', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-block').click()]);
    expect(download.suggestedFilename()).toBe('rampart-block-list.txt');
    const path = join(dir, 'exported.txt');
    await download.saveAs(path);
    expect(await readFile(path, 'utf8')).toBe(`${BLOCKED}\n${PASSED}\n10.0.0.0/8\n2001:db8::/32\n`);
  });

  it('imports a file merged into a list, and confirms a save that removes entries', async () => {
    const file = join(dir, 'more.txt');
    await writeFile(file, `${OTHER}\r\n${BLOCKED}\r\n\r\n`);
    await panel('block').locator('input[type="file"]').setInputFiles(file);
    const ask = page.getByRole('dialog', { name: 'Import into the Block list' });
    await ask.waitFor();
    expect(await ask.textContent()).toContain('more.txt holds 2 entries');
    await ask.getByRole('button', { name: 'Import', exact: true }).click();
    expect(await page.getByTestId('operation-result').textContent()).toContain('1 new entry from more.txt');
    expect(await box('block').inputValue()).toBe(`${BLOCKED}\n${PASSED}\n10.0.0.0/8\n2001:db8::/32\n${OTHER}`);

    // Dropping 10.0.0.0/8 is a removal: asked first, and cancelling saves nothing.
    await box('block').fill(`${BLOCKED}\n${PASSED}\n2001:db8::/32\n${OTHER}`);
    await page.getByTestId('save-ip-lists').click();
    const confirm = page.getByRole('dialog', { name: 'Remove entries from the global lists?' });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain('Block list: 1 entry (10.0.0.0/8)');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await api<{ block: string[] }>('GET', '/ip-lists')).block).toContain('10.0.0.0/8');
    await page.getByTestId('save-ip-lists').click();
    await confirm.getByRole('button', { name: 'Remove and save' }).click();
    await expect.poll(() => page.getByTestId('operation-result').textContent()).toContain('Global IP lists saved');
    expect((await api<{ block: string[] }>('GET', '/ip-lists')).block).toEqual([
      BLOCKED,
      PASSED,
      '2001:db8::/32',
      OTHER,
    ]);
    expect(await verdict(OTHER)).toBe('BLOCKLIST');
    expect(await verdict('10.1.2.3')).not.toBe('BLOCKLIST');
    expect(requests.outside(engine.url)).toEqual([]);
  });
});
