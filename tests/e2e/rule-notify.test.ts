/**
 * Rule notifications in Chromium against a real engine, edition B (design 2c): the rule form checks
 * the notifications with the engine's schema and shows each problem at its input (a bad e-mail address
 * at its line, as the engine's `notify.emails.N` names it); a rule that notifies is tagged in
 * the list and keeps its settings when edited; when it fires, a webhook server on loopback that this
 * test starts receives a JSON POST whose X-Rampart-Signature is the HMAC-SHA256 of the body with the
 * shared secret.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { rawRequest } from '../support/http.ts';
import { consoleApi, launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SetupPage } from './pages/setup.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const CLIENT_IP = '198.51.100.30';
const SECRET = 's3cret-shared';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

describe('rule notifications, edition B', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let server: Server;
  let hookUrl = '';
  const received: Received[] = [];
  let siteId = '';
  let accessKey = '';

  const api = <T>(method: 'GET' | 'POST', path: string, data?: unknown): Promise<T> =>
    consoleApi<T>(page, engine.url, method, path, data);

  /** A request through the gateway's verdict endpoint without a token (guard status TOKEN_MISS). */
  async function verdict(): Promise<void> {
    await rawRequest(`${engine.gatewayUrl}/_rampart/verdict`, {
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
  }

  const modal = () => page.getByTestId('event-rule-modal');
  const fieldError = (id: string) =>
    modal()
      .locator(`#${id}`)
      .locator('xpath=ancestor::div[contains(@class,"bx--form-item")][1]')
      .locator('.bx--form-requirement');

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/rampart`;

    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir, ruleSetLocations: [] });
    browser = await launchChromium();
    context = await newContext(browser, new RequestLog());
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
    const configs = await api<{ items: { id: string; kind: string; siteId: string | null }[] }>('GET', '/log-configs');
    const source = configs.items.find((c) => c.kind === 'access' && c.siteId === siteId)!.id;
    const event = await api<{ id: string }>('POST', '/events', {
      kind: 'simple',
      name: 'Token missing',
      sources: [source],
      relation: 'a',
      conditions: [{ label: 'a', field: 'guard_status', filter: 'string', mode: 'exact', value: 'TOKEN_MISS' }],
    });
    await api('POST', `/events/${event.id}/enabled`, { enabled: true });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('marks each bad e-mail line and a webhook address that is not http(s)', async () => {
    await page.goto(`${engine.url}/rules?site=${siteId}&tab=events`);
    await page.getByTestId('add-event-rule').click();
    await modal().locator('#rule-name').fill('Tell the SOC');
    await modal().getByTestId('rule-events').locator('label').filter({ hasText: 'Token missing' }).click();
    await modal().locator('label[for="rule-action-none"]').click();
    expect(await modal().getByTestId('throttle-help').textContent()).toContain(
      'At most one notification per rule per period; the ones held back are counted in the next.',
    );
    await modal().locator('#rule-emails').fill('soc@example.com\n\nnot-an-address\nops@example.com\nalso bad');
    await modal().locator('label[for="rule-webhook-on"]').last().click();
    await modal().locator('#rule-webhook-url').fill('ftp://example.com/hook');
    await modal().getByRole('button', { name: 'Create rule' }).click();

    await expect
      .poll(() => modal().getByTestId('lines-rule-emails').locator('.gutter span.error').allTextContents())
      .toEqual(['3', '5']);
    const emails = await modal().getByTestId('lines-error').textContent();
    expect(emails).toContain('Line 3: Not an e-mail address.');
    expect(emails).toContain('Line 5: Not an e-mail address.');
    expect(await fieldError('rule-webhook-url').textContent()).toContain('http:// or https://');
    expect(await modal().getByTestId('webhook-help').textContent()).toContain(
      'X-Rampart-Signature: sha256=<HMAC-SHA256 of the body',
    );
    await page.keyboard.press('Escape');
  });

  it('creates a notifying rule, tags it in the list, and keeps its settings when edited', async () => {
    await page.goto(`${engine.url}/rules?site=${siteId}&tab=events`);
    await page.getByTestId('add-event-rule').click();
    await modal().locator('#rule-name').fill('Tell the SOC');
    await modal().getByTestId('rule-events').locator('label').filter({ hasText: 'Token missing' }).click();
    await modal().locator('label[for="rule-action-none"]').click();
    await modal().locator('label[for="rule-webhook-on"]').last().click();
    await modal().locator('#rule-webhook-url').fill(hookUrl);
    await modal().locator('#rule-webhook-secret').fill(SECRET);
    await modal().locator('label[for="rule-syslog-on"]').last().click();
    await modal().locator('#rule-syslog-host').fill('127.0.0.1');
    await modal().locator('#rule-syslog-port').fill('5514');
    await modal().locator('label[for="rule-syslog-tcp"]').click();
    await modal().locator('#rule-throttle').fill('600');
    await modal().getByRole('button', { name: 'Create rule' }).click();
    const row = page.locator('tr[data-rule="Tell the SOC"]');
    await row.waitFor();
    expect(await row.getByTestId('rule-notifies').textContent()).toContain('Notifies: webhook, syslog');

    // Editing another field keeps the notifications.
    await row.getByTestId('edit-event-rule').click();
    expect(await modal().locator('#rule-webhook-url').inputValue()).toBe(hookUrl);
    expect(await modal().locator('#rule-syslog-port').inputValue()).toBe('5514');
    expect(await modal().locator('#rule-syslog-tcp').isChecked()).toBe(true);
    expect(await modal().locator('#rule-throttle').inputValue()).toBe('600');
    await modal().locator('#rule-description').fill('Posts to the SIEM');
    await modal().getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => row.textContent()).toContain('Posts to the SIEM');
    const rules = await api<{ items: { name: string; notify: unknown }[] }>('GET', `/rules?siteId=${siteId}`);
    expect(rules.items.find((r) => r.name === 'Tell the SOC')?.notify).toEqual({
      emails: [],
      webhook: { url: hookUrl, secretSet: true },
      syslog: { host: '127.0.0.1', port: 5514, protocol: 'tcp' },
      throttleSeconds: 600,
    });
  });

  it('posts a signed JSON notification to the webhook when the rule fires', async () => {
    await verdict();
    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(0);
    const [hook] = received;
    expect(hook!.headers['content-type']).toContain('application/json');
    const expected = `sha256=${createHmac('sha256', SECRET).update(hook!.body).digest('hex')}`;
    expect(hook!.headers['x-rampart-signature']).toBe(expected);
    expect(Number(hook!.headers['x-rampart-timestamp'])).toBeGreaterThan(0);
    const alert = JSON.parse(hook!.body) as { type: string; ruleName: string; eventName: string };
    expect(alert).toMatchObject({ type: 'rule.fired', ruleName: 'Tell the SOC', eventName: 'Token missing' });
  });
});
