/**
 * The site form does not fail silently: entries typed into a list that is off switch it on (a block
 * list saved switched off blocks nothing), a list that is off but holds entries says so, and a save
 * with several bad lines marks every one of them at once.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SetupPage } from './pages/setup.page.ts';
import { ShellPage } from './pages/shell.page.ts';
import { SitesPage } from './pages/sites.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const screenshotDir = fileURLToPath(new URL('../../dist/screenshots', import.meta.url));

interface StoredList {
  pathEnabled: boolean;
  paths: string[];
  ipEnabled: boolean;
  ips: string[];
}

describe('site form, edition B', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let sitesPage: SitesPage;

  const stored = async (name: string): Promise<{ blockList: StoredList; passList: StoredList }> => {
    const response = await page.context().request.get(`${engine.url}/api/v1/sites`);
    const items = (
      (await response.json()) as { items: { name: string; blockList: StoredList; passList: StoredList }[] }
    ).items;
    const site = items.find((s) => s.name === name);
    if (!site) throw new Error(`no site ${name}`);
    return site;
  };

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir });
    browser = await launchChromium();
    context = await newContext(browser, new RequestLog());
    page = await context.newPage();
    await page.goto(`${engine.url}/`);
    await page.waitForURL(/\/setup$/);
    const setup = new SetupPage(page);
    await setup.fill('admin@rampart.test', STRONG_PASSWORD);
    await setup.submit();
    await page.waitForURL(`${engine.url}/`);
    sitesPage = new SitesPage(page, new ShellPage(page));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('typing an IP into a block list that is off switches the list on, and the save keeps it on', async () => {
    await page.goto(`${engine.url}/config/sites/new`);
    await page.getByTestId('site-form').waitFor();
    await page.locator('#site-name').fill('Shop');
    await page.locator('#site-domain').fill('shop.example.com');
    expect(await sitesPage.switchState('block-ips-switch')).toBe(false);
    await sitesPage.lines('block-ips').fill('203.0.113.7');
    expect(await sitesPage.switchState('block-ips-switch')).toBe(true);
    await sitesPage.saveAndReturn();
    expect((await stored('Shop')).blockList).toMatchObject({ ipEnabled: true, ips: ['203.0.113.7'] });
  });

  it('a list switched off while it holds entries says its entries are not applied', async () => {
    await sitesPage.edit('Shop');
    const warning = page.getByTestId('lines-block-ips').getByTestId('lines-off-warning');
    expect(await warning.count()).toBe(0);
    await sitesPage.setSwitch('block-ips-switch', false);
    await warning.waitFor();
    expect(await warning.textContent()).toContain('switched off');
    await sitesPage.setSwitch('block-ips-switch', true);
    await warning.waitFor({ state: 'detached' });
  });

  it('a save with bad lines in two lists marks every bad line of both', async () => {
    await sitesPage.setSwitch('pass-paths-switch', true);
    await sitesPage.lines('pass-paths').fill('^/(a+)+\\1$\n^/ok$\n^/static/(');
    await sitesPage.lines('block-ips').fill('203.0.113.7\nnot-an-ip');
    await sitesPage.save();

    const pathsError = sitesPage.linesError('pass-paths');
    await pathsError.waitFor();
    const pathsText = (await pathsError.textContent()) ?? '';
    expect(pathsText).toContain('line 1');
    expect(pathsText).toContain('line 3');
    expect(await sitesPage.gutterError('pass-paths').allTextContents()).toEqual(['1', '3']);

    const ipsError = sitesPage.linesError('block-ips');
    await ipsError.waitFor();
    expect(await ipsError.textContent()).toContain('line 2');
    expect(await sitesPage.gutterError('block-ips').allTextContents()).toEqual(['2']);
    expect((await stored('Shop')).passList.paths).toEqual([]);
  });

  it("checks the form with the engine's site schema before sending, in the words of the engine's answers", async () => {
    await page.goto(`${engine.url}/config/sites/new`);
    await page.getByTestId('site-form').waitFor();
    const sent: string[] = [];
    const track = (request: { method(): string; url(): string }): void => {
      if (request.method() !== 'GET' && request.url().includes('/api/v1/sites')) sent.push(request.url());
    };
    page.on('request', track);
    await page.locator('#site-name').fill('Checked');
    await page.locator('#site-domain').fill('bad domain!');
    await sitesPage.choose('run-mode', 'block');
    await sitesPage.choose('access-method', 'plugin');
    await page.locator('#site-block-status').fill('700');
    await page.locator('#site-pow').fill('30');
    await sitesPage.save();

    await page.getByText('Domain must be a host name such as shop.example.com.').waitFor();
    await page.getByText('Block response status code: must be at most 599').waitFor();
    await page.getByText('Proof-of-work difficulty (bits): must be at most 24').waitFor();
    expect(await page.locator('#site-block-status').getAttribute('aria-invalid')).toBe('true');
    page.off('request', track);
    expect(sent).toEqual([]);

    // The engine refuses the same input with the codes and bounds the form said it from.
    const session = (await (await page.context().request.get(`${engine.url}/api/v1/session`)).json()) as {
      csrfToken: string;
    };
    const answer = await page.context().request.post(`${engine.url}/api/v1/sites`, {
      headers: { 'X-CSRF-Token': session.csrfToken },
      data: { name: 'Checked', domain: 'bad domain!', runMode: 'block', blockStatus: 700, powDifficulty: 30 },
    });
    expect(answer.status()).toBe(400);
    const { error } = (await answer.json()) as {
      error: { problems: { field: string; params: Record<string, unknown> }[] };
    };
    expect(error.problems.map((p) => [p.field, p.params.code, p.params.maximum ?? p.params.format])).toEqual([
      ['domain', 'invalid_format', 'regex'],
      ['blockStatus', 'too_big', 599],
      ['powDifficulty', 'too_big', 24],
    ]);
  });

  it('the site page shows where gateways reach Rampart, tests the connection, and lets an administrator set the address', async () => {
    await page.goto(`${engine.url}/config/sites`);
    await sitesPage.edit('Shop');
    const section = page.getByTestId('gateway-section');
    const gatewayPort = new URL(engine.gatewayUrl).port;
    expect(await section.getByTestId('gateway-address').textContent()).toBe(`127.0.0.1:${gatewayPort}`);
    await section.getByTestId('gateway-loopback').waitFor();

    await section.getByTestId('gateway-test').click();
    const reachable = section.getByTestId('gateway-reachable');
    await reachable.waitFor();
    expect(await reachable.textContent()).toContain("answers as this appliance's gateway API");
    expect(await section.getByTestId('gateway-heartbeat').textContent()).toContain('No heartbeat');
    await mkdir(screenshotDir, { recursive: true });
    await section.screenshot({ path: `${screenshotDir}/site-gateway-connection.png` });

    await page.locator('#gateway-address-input').fill('192.0.2.10:9081');
    await section.getByTestId('gateway-save').click();
    await section.getByTestId('gateway-address').filter({ hasText: '192.0.2.10:9081' }).waitFor();
    expect(await section.getByTestId('gateway-loopback').count()).toBe(0);

    await page.locator('#gateway-address-input').fill('not an address');
    await section.getByTestId('gateway-save').click();
    await section.getByText('must be host:port').waitFor();
  });
});
