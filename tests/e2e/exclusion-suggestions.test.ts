/**
 * Learned exclusions in the console (issue 18, item 2) against the real engine with Debian's Core
 * Rule Set: a site in monitor mode receives, through the gateway's verdict endpoint, the same
 * request that CRS rule 931100 fires on (parameter url of /fetch) from three client addresses, two
 * thirds of them from browsers with a probe token; the site's basic rules tab suggests excluding
 * it with the engine's counts, the exclusion form opens prefilled with the preview of what it
 * would have let through, and once saved with a reason the suggestion is gone and the exclusion
 * listed. A pattern below the thresholds is not suggested, and a site without records says why
 * there is nothing to suggest.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { readConfigDocument } from '#engine/config-store';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { missing } from '../support/crs-dirs.ts';
import { skipAllWithout } from '../support/skip.ts';
import { consoleApi, launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { gatewayGuard } from './support/gateway.ts';
import { SetupPage } from './pages/setup.page.ts';
import { ShellPage } from './pages/shell.page.ts';
import { RulesPage } from './pages/rules.page.ts';
import { WafExclusionsPage } from './pages/waf-exclusions.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const screenshotDir = fileURLToPath(new URL('../../dist/screenshots', import.meta.url));
const EMAIL = 'secops@rampart.test';

/** CRS 931100 (a URL with an IP address as a parameter value, paranoia level 1) alone fires on it. */
const RFI_RULE = 931100;
const RFI_PATH = '/fetch';
const RFI_URI = `${RFI_PATH}?url=http://192.0.2.1/feed.xml`;
/** Above the engine's thresholds (20 requests, 3 clients): three addresses, two thirds with a token. */
const CLIENTS = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];
const REQUESTS = 24;
const PROBED = 16;
/** The same rule on another path, fewer times than the threshold: not suggested. */
const THIN_PATH = '/import';
const THIN_REQUESTS = 5;
const REASON = 'The feed reader takes feed URLs by IP address';

interface SuggestionJson {
  ruleId: number;
  target: string;
  path: string;
  requests: number;
  clients: number;
  fromProbedBrowsers: number;
  lastSeen: number;
  example: string;
}

interface SuggestionsJson {
  items: SuggestionJson[];
  examined: number;
  partial: boolean;
  thresholds: { requests: number; clients: number };
}

/** Epoch milliseconds as the console shows them (local time); the browser runs in the test's time zone. */
function localTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

describe('suggested exclusions on the basic rules tab, edition B', () => {
  skipAllWithout(missing.crs3);
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let rules: RulesPage;
  let workflow: WafExclusionsPage;
  const requests = new RequestLog();
  let shop = '';
  let key = '';
  let tokens: TokenService;
  let sent = 0;
  let suggested: SuggestionJson | undefined;

  const api = <T>(method: 'GET' | 'POST', path: string, data?: unknown): Promise<T> =>
    consoleApi<T>(page, engine.url, method, path, data);

  const suggestions = (site: string): Promise<SuggestionsJson> =>
    api<SuggestionsJson>('POST', `/sites/${site}/waf-exclusions/suggestions`, {});

  /** One request through the gateway's verdict endpoint, from `ip`, with a browser's probe token or without: its guard status. */
  async function verdict(uri: string, ip: string, probed: boolean): Promise<string> {
    sent++;
    const token = probed
      ? tokens.issue({ siteId: shop, deviceId: tokens.newDeviceId().deviceId, ttlSeconds: 3600, ip, bot: false })
      : undefined;
    return gatewayGuard(engine.gatewayUrl, {
      site: shop,
      key,
      uri,
      ip,
      requestId: `req-${sent}`,
      ...(token === undefined ? {} : { token }),
    });
  }

  beforeAll(async () => {
    if (missing.crs3) return;
    await mkdir(screenshotDir, { recursive: true });
    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir });
    browser = await launchChromium();
    context = await newContext(browser, requests);
    page = await context.newPage();
    await page.goto(`${engine.url}/`);
    await page.waitForURL(/\/setup$/);
    const setup = new SetupPage(page);
    await setup.fill(EMAIL, STRONG_PASSWORD);
    await setup.submit();
    await page.waitForURL(`${engine.url}/`);
    // Monitor mode: the rule's firings are recorded without the client being denied afterwards, so
    // one address can send the request again (what learning from live traffic looks like).
    const site = (name: string, domain: string) =>
      api<{ id: string }>('POST', '/sites', { name, domain, accessMethod: 'plugin', runMode: 'monitor' });
    shop = (await site('Shop', 'shop.example.com')).id;
    await site('Blog', 'blog.example.com');
    key = (await api<{ accessKey: string }>('GET', '/site-global')).accessKey;
    const config = (await readConfigDocument(engine.dataDir)) as unknown as { secrets: { tokenKey: string } };
    tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);

    const guards = new Set<string>();
    for (let i = 0; i < REQUESTS; i++) guards.add(await verdict(RFI_URI, CLIENTS[i % CLIENTS.length]!, i % 3 !== 2));
    for (let i = 0; i < THIN_REQUESTS; i++)
      guards.add(await verdict(`${THIN_PATH}?url=http://192.0.2.1/list.opml`, CLIENTS[i % CLIENTS.length]!, true));
    expect([...guards]).toEqual(['OWASP']);
    await engine.logStore.flush();

    rules = new RulesPage(page, new ShellPage(page));
    workflow = new WafExclusionsPage(page);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('suggests excluding the rule on that parameter of that path, with the counts the engine read', async () => {
    const answer = await suggestions(shop);
    expect(answer.thresholds).toEqual({ requests: 20, clients: 3 });
    expect(answer.partial).toBe(false);
    expect(answer.examined).toBe(REQUESTS + THIN_REQUESTS);
    expect(answer.items).toMatchObject([
      {
        ruleId: RFI_RULE,
        target: 'ARGS:url',
        path: RFI_PATH,
        requests: REQUESTS,
        clients: CLIENTS.length,
        fromProbedBrowsers: PROBED,
      },
    ]);
    suggested = answer.items[0]!;

    await rules.open();
    await rules.chooseSite('Shop (shop.example.com)');
    const panel = workflow.suggestions();
    await panel.getByTestId('suggestions-not-yet').waitFor();
    expect(await workflow.suggestionRows().count()).toBe(0);
    await workflow.lookForSuggestions('7d');

    expect(await workflow.suggestionRows().count()).toBe(1);
    const row = workflow.suggestionRow(RFI_RULE, RFI_PATH);
    expect(await row.getByTestId('suggestion-target').textContent()).toBe('parameter url');
    expect(await row.getByTestId('suggestion-path').textContent()).toBe(`path ${RFI_PATH}`);
    expect(await row.getByTestId('suggestion-requests').textContent()).toBe(String(REQUESTS));
    expect(await row.getByTestId('suggestion-clients').textContent()).toBe(String(CLIENTS.length));
    expect(await row.getByTestId('suggestion-probed').textContent()).toBe(`${PROBED} (67%)`);
    expect(await row.getByTestId('suggestion-last-seen').textContent()).toBe(localTime(suggested.lastSeen));
    await row.getByTestId('suggestion-message').getByText('Remote File Inclusion').waitFor();
    expect(await panel.getByTestId('suggestions-over').textContent()).toContain(
      `Read ${REQUESTS + THIN_REQUESTS} stored requests on which a rule fired`,
    );
    expect(await panel.getByTestId('suggestions-partial').count()).toBe(0);

    // The example request is cut to the column; Enter on it shows it whole.
    const example = row.getByTestId('suggestion-example');
    expect(await example.textContent()).toBe(suggested.example);
    expect(suggested.example).toContain(`GET ${RFI_URI}`);
    expect(await example.getAttribute('aria-expanded')).toBe('false');
    await example.focus();
    await page.keyboard.press('Enter');
    expect(await example.getAttribute('aria-expanded')).toBe('true');
    await panel.screenshot({ path: `${screenshotDir}/exclusion-suggestions-B.png` });
  });

  it('opens the exclusion form with the suggestion and its preview, and saves it with a reason', async () => {
    const row = workflow.suggestionRow(RFI_RULE, RFI_PATH);
    await row.getByTestId('exclude-suggestion').focus();
    await page.keyboard.press('Enter');
    const form = workflow.exclusionForm();
    await form.waitFor();
    expect(await page.locator('#suggested-exclusion-rule').inputValue()).toBe(String(RFI_RULE));
    expect(await page.locator('#suggested-exclusion-target').inputValue()).toBe('ARGS:url');
    expect(await page.locator('#suggested-exclusion-path').inputValue()).toBe(RFI_PATH);
    expect(await page.locator('#suggested-exclusion-path-scope-exact').isChecked()).toBe(true);
    await page.locator('#suggested-exclusion-reason:focus').waitFor();

    // Every request on /fetch fired this rule alone: excluded, all of them would have passed.
    expect(await workflow.formPreviewCleared()).toBe(REQUESTS);
    expect(await form.getByTestId('exclusion-preview').textContent()).toContain(
      `Of ${REQUESTS + THIN_REQUESTS} stored requests on which rule ${RFI_RULE} fired in the last 7 days, ${REQUESTS} would have passed (0 of them were blocked).`,
    );

    // The reason is required: Enter in the empty field says so, and nothing is saved.
    await page.locator('#suggested-exclusion-reason').press('Enter');
    await page.locator('#suggested-exclusion-reason[aria-invalid="true"]').waitFor();
    expect(await api<{ items: unknown[] }>('GET', `/sites/${shop}/waf-exclusions`)).toEqual({ items: [] });

    await page.locator('#suggested-exclusion-reason').fill(REASON);
    await page.screenshot({ path: `${screenshotDir}/exclusion-from-suggestion-B.png` });
    await page.locator('#suggested-exclusion-reason').press('Enter');
    await form.waitFor({ state: 'hidden' });
    await workflow
      .suggestions()
      .getByTestId('operation-result')
      .getByText(`Exclusion of rule ${RFI_RULE} added`)
      .waitFor();
    expect((await api<{ items: unknown[] }>('GET', `/sites/${shop}/waf-exclusions`)).items).toMatchObject([
      { ruleId: RFI_RULE, target: 'ARGS:url', path: RFI_PATH, reason: REASON, createdBy: EMAIL },
    ]);
  });

  it('drops the excluded suggestion and lists the exclusion; read again, nothing is left to suggest', async () => {
    await workflow.suggestions().getByTestId('suggestions-empty').getByText('Every suggestion is excluded').waitFor();
    expect(await workflow.suggestionRows().count()).toBe(0);
    const listed = workflow.exclusionRow(RFI_RULE);
    await listed.waitFor();
    expect(await listed.getByTestId('exclusion-target').textContent()).toBe('parameter url');
    expect(await listed.getByTestId('exclusion-path').textContent()).toBe(`path ${RFI_PATH}`);
    expect(await listed.getByTestId('exclusion-reason').textContent()).toBe(REASON);

    expect((await suggestions(shop)).items).toEqual([]);
    await workflow.lookForSuggestions('30d');
    const empty = workflow.suggestions().getByTestId('suggestions-empty');
    expect(await empty.textContent()).toContain(
      'No rule fired on the same parameter of the same path for at least 20 requests from 3 clients in this period.',
    );
  });

  it('says why a site without stored requests has nothing to suggest', async () => {
    await rules.chooseSite('Blog (blog.example.com)');
    const panel = workflow.suggestions();
    await panel.getByTestId('suggestions-not-yet').waitFor();
    await workflow.lookForSuggestions('24h');
    expect(await panel.getByTestId('suggestions-over').textContent()).toContain('Read 0 stored requests');
    const empty = panel.getByTestId('suggestions-empty');
    expect(await empty.textContent()).toContain('No suggestions in this period');
    expect(await empty.textContent()).toContain('for at least 20 requests from 3 clients in this period');
    expect(await workflow.suggestionRows().count()).toBe(0);
  });

  it('never sends a request outside the engine origin', () => {
    expect(requests.outside(engine.url)).toEqual([]);
  });
});
