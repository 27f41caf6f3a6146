/**
 * Events, event-based rules and bans in Chromium against a real engine, edition B (spec 2.4, 2.5, 3,
 * 6): a preset switched on without a log source opens its editor and is enabled once a source is
 * saved; a simple event is made in the editor while the engine checks its relation as it is typed; a
 * count event counts it; an advanced rule blocks the IP it finds, and a second rule at the same
 * priority moves the first one up. Requests without a token through the gateway's verdict endpoint
 * make the events fire: the trigger log shows the firing, the next request is denied, the Bans page
 * shows the ban with its origin and countdown, and lifting it lets the client in again. A dry run and
 * an explanation of a stored record say the same thing; an event a rule uses is not deleted.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { rawRequest } from '../support/http.ts';
import { consoleApi, launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SetupPage } from './pages/setup.page.ts';
import { ShellPage } from './pages/shell.page.ts';
import { EventsPage } from './pages/events.page.ts';
import { BansPage } from './pages/bans.page.ts';
import { LogSearchPage } from './pages/log-search.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const screenshotDir = fileURLToPath(new URL('../../dist/screenshots', import.meta.url));
const CLIENT_IP = '198.51.100.20';

describe('events, event-based rules and bans, edition B', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shell: ShellPage;
  let events: EventsPage;
  let siteId = '';
  let accessKey = '';
  const requests = new RequestLog();

  const api = <T>(method: 'GET' | 'POST', path: string, data?: unknown): Promise<T> =>
    consoleApi<T>(page, engine.url, method, path, data);

  /** A request through the gateway's verdict endpoint (nginx auth_request), without a token. */
  async function verdict(): Promise<string | null> {
    const res = await rawRequest(`${engine.gatewayUrl}/_rampart/verdict`, {
      headers: {
        'x-rampart-site': siteId,
        'x-rampart-key': accessKey,
        'x-original-uri': '/account/login',
        'x-original-method': 'GET',
        host: 'shop.example.com',
        'x-rampart-remote-addr': CLIENT_IP,
        'x-request-id': `req-${Math.random().toString(16).slice(2)}`,
        'user-agent':
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
      },
    });
    const guard = res.headers['x-rampart-guard'];
    return typeof guard === 'string' ? guard : null;
  }

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
    shell = new ShellPage(page);
    events = new EventsPage(page, shell);
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
  });

  it('lists the preset events, disabled and without a log source, and says what to do next', async () => {
    await events.open();
    const row = events.row('Page not found');
    await row.waitFor();
    expect(await row.getByTestId('preset').count()).toBe(1);
    expect(await row.getByTestId('event-sources').textContent()).toContain('No log source yet');
    expect(await row.getByTestId('event-counters').count()).toBe(0);
    expect(await page.getByTestId('none-enabled').textContent()).toContain('Choose a log source');
  });

  it('opens the editor of a preset switched on without a source, and enables it once a source is saved', async () => {
    await events.toggle('Page not found');
    await page.waitForURL(/\/config\/events\/preset-not-found\/edit\?enable=1$/);
    expect(await page.getByTestId('operation-result').textContent()).toContain('has no log source');
    await page.getByTestId('enable-after').waitFor();
    await page.getByTestId('preset-warning').waitFor();
    await events.chooseSource('Shop access log');
    await expect.poll(() => page.getByTestId('candidate-fields').textContent()).toMatch(/\d+ candidate fields/);
    expect(await page.getByTestId('save-event').textContent()).toContain('Save and enable');
    await events.save();
    await page.waitForURL(/\/config\/events\/preset-not-found$/);
    expect(await page.getByTestId('operation-result').textContent()).toContain('saved and enabled');
    expect(await page.getByTestId('editor-status').textContent()).toContain('Enabled');
  });

  it('creates a simple event, the engine flagging the relation as it is typed', async () => {
    await events.open();
    await page.getByTestId('new-event').click();
    await page.waitForURL(/\/config\/events\/new$/);
    await page.locator('#event-name').fill('Token missing');
    await page.locator('#event-description').fill('A request without a token');
    await events.chooseSource('Shop access log');
    await expect.poll(() => page.locator('#condition-0-field option').count()).toBeGreaterThan(10);
    await events.condition(0, { field: 'guard_status', mode: 'exact', value: 'TOKEN_MISS' });
    await page.getByTestId('add-condition').click();
    await events.condition(1, { field: 'status', filter: 'number', mode: '>=', value: '400' });
    // The relation follows the labels until one is typed.
    expect(await events.relation().inputValue()).toBe('a & b');

    await events.relation().fill('a & c');
    await expect
      .poll(() => events.fieldError('event-relation').textContent(), { timeout: 10_000 })
      .toBe('The relation uses “c” (character 5), but nothing is labelled c.');
    // The condition the relation leaves out is said at its area.
    await expect.poll(() => page.getByTestId('area-error').textContent()).toContain('Condition b is not used');
    await events.relation().fill('(a & b');
    await expect
      .poll(() => events.fieldError('event-relation').textContent(), { timeout: 10_000 })
      .toContain('The parenthesis at character 1 has no partner');
    expect(await page.getByTestId('relation-marked').textContent()).toBe('(a & b');
    await page.screenshot({ path: join(screenshotDir, 'event-relation-problem.png'), fullPage: true });
    await events.relation().fill('a & b');
    await expect
      .poll(() => page.getByTestId('relation-state').textContent(), { timeout: 10_000 })
      .toContain('The relation is valid.');
    expect(await page.getByTestId('area-error').count()).toBe(0);

    await events.save();
    await page.waitForURL(/\/config\/events\/evt_[A-Za-z0-9_-]+$/);
    expect(await page.getByTestId('operation-result').textContent()).toContain('Event “Token missing” created');
    expect(await page.getByTestId('editor-status').textContent()).toContain('Disabled');
  });

  it('places an engine refusal on the input it names: a name already taken', async () => {
    await page.goto(`${engine.url}/config/events/new`);
    await page.locator('#event-name').fill('token missing');
    await events.chooseSource('Shop access log');
    await expect.poll(() => page.locator('#condition-0-field option').count()).toBeGreaterThan(10);
    await events.condition(0, { field: 'status', filter: 'number', mode: '=', value: '401' });
    await events.save();
    await expect.poll(() => events.fieldError('event-name').textContent()).toMatch(/already (used|has this name)/);
    expect(new URL(page.url()).pathname).toBe('/config/events/new');
    // Leaving with unsaved changes is confirmed first.
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page
      .getByRole('dialog', { name: 'Leave without saving?' })
      .getByRole('button', { name: 'Discard and leave' })
      .click();
    await page.waitForURL(/\/config\/events$/);
  });

  it('enables the simple event from the list and creates a count event over it', async () => {
    await events.open();
    await events.toggle('Token missing');
    await expect.poll(() => events.result().textContent()).toContain('“Token missing” is enabled');
    await events.row('Token missing').getByTestId('event-counters').waitFor();

    await page.getByTestId('new-event').click();
    await page.locator('#event-name').fill('Token missing burst');
    await events.chooseSource('Shop access log');
    await events.chooseKind('count');
    await expect.poll(() => page.locator('#event-trigger option').allTextContents()).toContain('Token missing');
    await page.locator('#event-trigger').selectOption({ label: 'Token missing' });
    await page.locator('#event-object').selectOption('ip');
    await page.locator('#event-window').fill('1');
    await page.locator('#event-window-unit').selectOption('minute');
    await page.locator('#event-comparator').selectOption('>=');
    await page.locator('#event-threshold').fill('3');
    expect(await page.getByTestId('window-text').textContent()).toContain('Grouped by IP, over the last 1 minute');
    await page.screenshot({ path: join(screenshotDir, 'event-count.png'), fullPage: true });
    await events.save();
    await page.waitForURL(/\/config\/events\/evt_[A-Za-z0-9_-]+$/);

    await events.open();
    await events.toggle('Token missing burst');
    await expect.poll(() => events.result().textContent()).toContain('“Token missing burst” is enabled');
    expect(await events.row('Token missing burst').getByTestId('event-kind').textContent()).toBe('Count');
    await page.screenshot({ path: join(screenshotDir, 'events-list.png'), fullPage: true });
  });

  it('creates advanced rules: a blocking rule, one that only records, and a priority that moves another', async () => {
    await page.goto(`${engine.url}/rules?site=${siteId}&tab=events`);
    await page.getByTestId('event-rules-empty').waitFor();
    await page.getByTestId('add-event-rule').click();
    const modal = page.getByRole('dialog', { name: 'New rule' });
    await modal.locator('#rule-name').fill('Block token-less bursts');
    // Only enabled events are offered.
    const offered = await modal.getByTestId('rule-events').locator('label').allTextContents();
    expect(offered).toContain('Token missing burst');
    expect(offered).not.toContain('Login brute force per IP');
    await modal.getByTestId('rule-events').locator('label').filter({ hasText: 'Token missing burst' }).click();
    await modal.locator('#rule-target').selectOption('ip');
    await modal.locator('#rule-duration').fill('10');
    await modal.locator('#rule-duration-unit').selectOption('minute');
    expect(await modal.locator('#rule-priority').inputValue()).toBe('1');
    expect(await modal.getByTestId('priority-help').textContent()).toContain('moves that rule');
    await page.screenshot({ path: join(screenshotDir, 'event-rule-form.png'), fullPage: true });
    await modal.getByRole('button', { name: 'Create rule' }).click();
    const first = page.locator('tr[data-rule="Block token-less bursts"]');
    await first.waitFor();
    expect(await first.getByTestId('rule-duration').textContent()).toBe('10 minutes');
    expect(await first.getByTestId('rule-priority').textContent()).toBe('1');

    // No action: the priority is the edition's minimum, shown and not editable.
    await page.getByTestId('add-event-rule').click();
    await modal.locator('#rule-name').fill('Record 404s');
    await modal.getByTestId('rule-events').locator('label').filter({ hasText: 'Page not found' }).click();
    await modal.locator('label[for="rule-action-none"]').click();
    expect(await modal.locator('#rule-priority-fixed').inputValue()).toBe('0');
    expect(await modal.locator('#rule-priority-fixed').getAttribute('readonly')).not.toBeNull();
    await modal.getByRole('button', { name: 'Create rule' }).click();
    await page.locator('tr[data-rule="Record 404s"]').waitFor();

    // A new blocking rule at priority 1 moves the existing one to 2.
    await page.getByTestId('add-event-rule').click();
    await modal.locator('#rule-name').fill('Watch bursts');
    await modal.getByTestId('rule-events').locator('label').filter({ hasText: 'Token missing burst' }).click();
    await modal.locator('#rule-duration').fill('30');
    await modal.getByRole('button', { name: 'Create rule' }).click();
    await page.locator('tr[data-rule="Watch bursts"]').waitFor();
    await expect.poll(() => first.getByTestId('rule-priority').textContent()).toBe('2');
    const order = await page.getByTestId('rule-name').allTextContents();
    expect(order).toEqual(['Record 404s', 'Watch bursts', 'Block token-less bursts']);
    await page.screenshot({ path: join(screenshotDir, 'event-rules.png'), fullPage: true });

    // The second blocking rule goes again: priority 1 is the first rule's once more.
    await page.locator('tr[data-rule="Watch bursts"]').getByTestId('delete-event-rule').click();
    await page
      .getByRole('dialog', { name: 'Delete rule' })
      .getByRole('button', { name: 'Delete', exact: true })
      .click();
    await page.locator('tr[data-rule="Watch bursts"]').waitFor({ state: 'detached' });
  });

  it('refuses to delete an event a rule uses, naming the rule', async () => {
    await events.open();
    await events.operate('Token missing burst', 'Delete');
    const dialog = page.getByRole('dialog', { name: 'Delete event' });
    expect(await dialog.textContent()).toContain('cannot be undone');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => events.error().textContent()).toContain('Block token-less bursts');
    await events.row('Token missing burst').waitFor();
  });

  it('fires on live requests: the trigger log records it and the client is denied', async () => {
    for (let i = 0; i < 3; i++) expect(await verdict()).toBe('TOKEN_MISS');
    await expect.poll(() => verdict(), { timeout: 10_000 }).toBe('REPUTATION');

    const search = new LogSearchPage(page);
    await search.open(engine.url, 'log=trigger&range=all');
    await search.settle();
    await expect.poll(() => search.hits(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await page.getByTestId('results-table').textContent()).toContain('Token missing burst');

    await events.open();
    await expect
      .poll(async () => events.row('Token missing burst').getByTestId('event-counters').textContent(), {
        timeout: 15_000,
      })
      .toMatch(/[1-9]\d* fired/);
  });

  it('shows the ban with its origin and countdown, opens its record, and lifts it', async () => {
    const bans = new BansPage(page);
    await bans.open(engine.url);
    const row = bans.row(CLIENT_IP);
    await row.waitFor();
    expect(await bans.totals().textContent()).toMatch(/^1 active ban · threat store: 1 /);
    const origin = await row.getByTestId('ban-origin').textContent();
    expect(origin).toContain('Rule Block token-less bursts');
    expect(origin).toContain('event Token missing burst');
    const left = await bans.remainingSeconds(CLIENT_IP);
    expect(left).toBeGreaterThan(9 * 60);
    expect(left).toBeLessThanOrEqual(10 * 60);
    await expect.poll(() => bans.remainingSeconds(CLIENT_IP), { timeout: 5000 }).toBeLessThan(left);
    await page.screenshot({ path: join(screenshotDir, 'bans.png'), fullPage: true });

    // Filters narrow the list; a value that matches nothing says so.
    await page.locator('#ban-filter-object').selectOption('device');
    await page.getByTestId('bans-empty').waitFor();
    await page.locator('#ban-filter-object').selectOption('');
    await row.waitFor();

    // The record that fired opens in the log search, filtered to its log_id.
    await row.getByTestId('ban-record').click();
    await page.waitForURL(/\/logs\/search\?/);
    const search = new LogSearchPage(page);
    expect(await search.hits()).toBe(1);
    expect(new URL(page.url()).searchParams.get('pills')).toContain('log_id');

    await bans.open(engine.url);
    await bans.lift(CLIENT_IP);
    expect(await bans.totals().textContent()).toMatch(/^0 active bans/);
    expect(await verdict()).toBe('TOKEN_MISS');
  });

  it('adds a ban by hand with a reason, and lifts it', async () => {
    const bans = new BansPage(page);
    await bans.open(engine.url);
    await page.getByTestId('add-ban').click();
    const dialog = page.getByRole('dialog', { name: 'Add a ban' });
    await dialog.getByRole('button', { name: 'Add ban' }).click();
    await expect.poll(() => bans.page.locator('#ban-value').getAttribute('aria-invalid')).toBe('true');
    await dialog.locator('#ban-value').fill('203.0.113.7');
    await dialog.locator('#ban-duration').fill('2');
    await dialog.locator('#ban-duration-unit').selectOption('hour');
    await dialog.locator('#ban-reason').fill('seen scanning');
    await dialog.getByRole('button', { name: 'Add ban' }).click();
    const row = bans.row('203.0.113.7');
    await row.waitFor();
    expect(await row.getByTestId('ban-origin').textContent()).toContain('Added by hand: seen scanning');
    expect(await bans.remainingSeconds('203.0.113.7')).toBeGreaterThan(7000);
    await bans.lift('203.0.113.7');
  });

  it('dry-runs the count event over the stored records', async () => {
    await events.open();
    await events.operate('Token missing burst', 'View');
    await page.waitForURL(/\/config\/events\/evt_[A-Za-z0-9_-]+$/);
    await page.getByTestId('section-dry-run').waitFor();
    await page.getByTestId('time-picker').click();
    await page.getByTestId('quick-1h').click();
    await page.getByTestId('dry-run-start').click();
    await page.getByTestId('dry-run-result').waitFor();
    expect(Number((await page.getByTestId('dry-run-records').textContent())?.replace(/,/g, ''))).toBeGreaterThanOrEqual(
      5,
    );
    expect(Number(await page.getByTestId('dry-run-firings').textContent())).toBeGreaterThanOrEqual(1);
    expect(await page.getByTestId('dry-run-keys').textContent()).toContain(CLIENT_IP);
    await page.screenshot({ path: join(screenshotDir, 'event-dry-run.png'), fullPage: true });
  });

  it('explains a stored record against the simple event, condition by condition', async () => {
    const search = new LogSearchPage(page);
    await search.open(engine.url, `log=${encodeURIComponent(`access:${siteId}`)}&range=all`);
    await search.settle();
    await page.getByTestId('expand-row').first().click();
    await page.getByTestId('explain-record').click();
    const dialog = page.getByRole('dialog', { name: 'Explain against event' });
    await dialog.locator('#explain-event').selectOption({ label: 'Token missing · Simple' });
    await dialog.getByRole('button', { name: 'Explain', exact: true }).click();
    await dialog.getByTestId('explain-result').waitFor();
    expect(await dialog.getByTestId('explain-verdict').textContent()).toContain('The record matches');
    // One row per condition, then the event's own: its relation over them.
    const outcomes = dialog.getByTestId('explain-outcome');
    expect(await outcomes.count()).toBe(3);
    expect(await outcomes.nth(0).getAttribute('data-matched')).toBe('true');
    expect(await outcomes.nth(0).textContent()).toContain('TOKEN_MISS');
    expect(await outcomes.nth(1).textContent()).toContain('status');
    expect(await outcomes.nth(2).textContent()).toContain('Token missing');
    expect(await outcomes.nth(2).textContent()).toContain('a & b');
    expect(await outcomes.nth(2).getAttribute('data-matched')).toBe('true');
    await page.screenshot({ path: join(screenshotDir, 'event-explain.png'), fullPage: true });
    await page.keyboard.press('Escape');
  });

  it('copies an event as a disabled copy and deletes the copy once confirmed', async () => {
    await events.open();
    await events.operate('Token missing', 'Copy');
    await expect.poll(() => events.result().textContent()).toContain('copied as “Token missing copy”');
    const copy = events.row('Token missing copy');
    expect(await copy.locator('input[type="checkbox"]').isChecked()).toBe(false);
    await events.operate('Token missing copy', 'Delete');
    await page
      .getByRole('dialog', { name: 'Delete event' })
      .getByRole('button', { name: 'Delete', exact: true })
      .click();
    await copy.waitFor({ state: 'detached' });
    expect(requests.outside(engine.url)).toEqual([]);
  });
});

describe('risk-control rules, edition A', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    engine = await startTestEngine({ RAMPART_EDITION: 'A' }, { rendererDir, ruleSetLocations: [] });
    browser = await launchChromium();
    context = await newContext(browser, new RequestLog());
    page = await context.newPage();
    await page.goto(`${engine.url}/`);
    await page.waitForURL(/\/setup$/);
    const setup = new SetupPage(page);
    await setup.fill('admin-a@rampart.test', STRONG_PASSWORD);
    await setup.submit();
    await page.waitForURL(`${engine.url}/`);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('names the tab under A and gives a rule with no action the priority -1', async () => {
    const request = page.context().request;
    const { csrfToken } = (await (await request.get(`${engine.url}/api/v1/session`)).json()) as { csrfToken: string };
    const headers = { 'X-CSRF-Token': csrfToken };
    const site = (await (
      await request.post(`${engine.url}/api/v1/sites`, { data: { name: 'Portal' }, headers })
    ).json()) as {
      id: string;
    };
    // The preset "Page not found" reads the site's access log, and is enabled once saved.
    await page.goto(`${engine.url}/config/events/preset-not-found/edit?enable=1`);
    await new EventsPage(page, new ShellPage(page)).chooseSource('Portal access log');
    await page.getByTestId('save-event').click();
    await page.waitForURL(/\/config\/events\/preset-not-found$/);
    expect(await page.getByTestId('editor-status').textContent()).toContain('Enabled');

    await page.goto(`${engine.url}/rules?site=${site.id}&tab=events`);
    expect(await page.getByTestId('tab-events').textContent()).toContain('Risk-control rules');
    await page.getByTestId('add-event-rule').click();
    const modal = page.getByRole('dialog', { name: 'New rule' });
    await modal.locator('#rule-name').fill('Record 404s');
    await modal.getByTestId('rule-events').locator('label').filter({ hasText: 'Page not found' }).click();
    await modal.locator('label[for="rule-action-none"]').click();
    expect(await modal.locator('#rule-priority-fixed').inputValue()).toBe('-1');
    await modal.getByRole('button', { name: 'Create rule' }).click();
    const row = page.locator('tr[data-rule="Record 404s"]');
    await row.waitFor();
    expect(await row.getByTestId('rule-priority').textContent()).toBe('-1');
    expect(await row.getByTestId('rule-action').textContent()).toContain('No action');
  });
});
