/**
 * The Security Overview in Chromium against a real engine (spec 1.1, issue 16), editions A and B:
 * traffic through the gateway's verdict endpoint (valid tokens, no token, a scanner, block- and
 * pass-listed paths and, in B, SQL injections the Core Rule Set catches), then the page shows every
 * widget with data, a click on a pie slice opens the log search with that slice's filter and range,
 * the site selector and the time range change the numbers, and in B the list-request chart takes
 * the place of the domains chart when fewer than 3 domains were attacked. Screenshots of both
 * editions in light and dark are written to <os temp dir>/rampart-overview-screenshots/ and printed.
 */
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { rawRequest } from '../support/http.ts';
import { launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SetupPage } from './pages/setup.page.ts';
import { OverviewPage } from './pages/overview.page.ts';
import { LogSearchPage } from './pages/log-search.page.ts';
import { readConfigDocument } from '#engine/config-store';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const screenshotDir = join(tmpdir(), 'rampart-overview-screenshots');
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

interface Pill {
  f: string;
  o: string;
  v?: string;
}

/** A console and a gateway of one edition, with sites, their Access Key and the probe's token issuer. */
class Rig {
  engine!: TestEngine;
  context!: BrowserContext;
  page!: Page;
  key = '';
  tokens!: TokenService;
  sent = 0;

  async start(browser: Browser, edition: 'A' | 'B', requests: RequestLog): Promise<void> {
    this.engine = await startTestEngine({ RAMPART_EDITION: edition }, { rendererDir });
    this.context = await newContext(browser, requests);
    this.page = await this.context.newPage();
    await this.page.goto(`${this.engine.url}/`);
    await this.page.waitForURL(/\/setup$/);
    const setup = new SetupPage(this.page);
    await setup.fill(`admin-${edition.toLowerCase()}@rampart.test`, STRONG_PASSWORD);
    await setup.submit();
    await this.page.waitForURL(`${this.engine.url}/`);
    this.key = (await this.api<{ accessKey: string }>('GET', '/site-global')).accessKey;
    const config = (await readConfigDocument(this.engine.dataDir)) as unknown as {
      secrets: { tokenKey: string };
    };
    this.tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);
  }

  async api<T>(method: 'GET' | 'POST' | 'PUT', path: string, data?: unknown): Promise<T> {
    const request = this.page.context().request;
    const url = `${this.engine.url}/api/v1${path}`;
    if (method === 'GET') return (await (await request.get(url)).json()) as T;
    const { csrfToken } = (await (await request.get(`${this.engine.url}/api/v1/session`)).json()) as {
      csrfToken: string;
    };
    const response = await request.fetch(url, { method, data, headers: { 'X-CSRF-Token': csrfToken } });
    expect(response.ok(), `${path}: ${await response.text()}`).toBe(true);
    return (await response.json()) as T;
  }

  async site(name: string, domain: string): Promise<string> {
    const { id } = await this.api<{ id: string }>('POST', '/sites', {
      name,
      domain,
      accessMethod: 'plugin',
      runMode: 'block',
      blockList: { pathEnabled: true, paths: ['^/admin'] },
      passList: { pathEnabled: true, paths: ['^/health'] },
    });
    return id;
  }

  /** One request through the gateway's verdict endpoint (nginx auth_request). */
  async verdict(
    site: string,
    uri: string,
    { ip = '203.0.113.10', host = 'shop.example.com', kind = 'valid' } = {},
  ): Promise<string> {
    // 'script': a script tool's user agent (not one the WAF's scanner rule knows) carrying a token,
    // so the anti-bot rules judge it.
    const cookie =
      kind === 'valid' || kind === 'script'
        ? `rampart_token=${this.tokens.issue({ siteId: site, deviceId: this.tokens.newDeviceId().deviceId, ttlSeconds: 3600, ip, bot: false })}`
        : '';
    const res = await rawRequest(`${this.engine.gatewayUrl}/_rampart/verdict`, {
      headers: {
        'x-rampart-site': site,
        'x-rampart-key': this.key,
        'x-original-uri': uri,
        'x-original-method': 'GET',
        host,
        'x-rampart-remote-addr': ip,
        'x-request-id': `req-${this.sent++}`,
        'user-agent': kind === 'bot' ? 'sqlmap/1.7' : kind === 'script' ? 'python-requests/2.31.0' : CHROME,
        ...(cookie ? { cookie } : {}),
      },
    });
    const guard = res.headers['x-rampart-guard'];
    return typeof guard === 'string' ? guard : '';
  }

  async stop(): Promise<void> {
    await this.context?.close();
    await this.engine?.dispose();
  }
}

/** The log search state a link carries. */
function searchState(url: string): { log: string; range: string; pills: Pill[] } {
  const q = new URL(url).searchParams;
  return { log: q.get('log') ?? '', range: q.get('range') ?? '', pills: JSON.parse(q.get('pills') ?? '[]') as Pill[] };
}

async function screenshots(page: Page, edition: string): Promise<string[]> {
  const paths: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate(`localStorage.setItem('rampart.theme', '${theme}')`);
    await page.reload();
    await new OverviewPage(page).settled();
    await page.waitForTimeout(300);
    const path = join(screenshotDir, `overview-${edition}-${theme}.png`);
    await page.screenshot({ path, fullPage: true });
    paths.push(path);
  }
  await page.evaluate("localStorage.setItem('rampart.theme', 'light')");
  return paths;
}

let browser: Browser;
const requests = new RequestLog();
const written: string[] = [];

beforeAll(async () => {
  await mkdir(screenshotDir, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  if (written.length > 0) console.log(`Overview screenshots:\n${written.join('\n')}`);
});

describe('the Security Overview, edition B', () => {
  const rig = new Rig();
  let shop = '';
  let blog = '';
  const guardsB: string[] = [];

  beforeAll(async () => {
    await rig.start(browser, 'B', requests);
    shop = await rig.site('Shop', 'shop.example.com');
    blog = await rig.site('Blog', 'blog.example.com');
    for (const id of [shop, blog])
      await rig.api('PUT', `/sites/${id}/anti-bot`, {
        enabled: true,
        scanner: true,
        scriptTool: true,
        otherCrawler: true,
      });
    // Shop: browsers, clients without a token, a scanner, listed paths, and SQL injections on three
    // of its domains; Blog: browsers and one domain attacked.
    for (let i = 0; i < 12; i++) await rig.verdict(shop, `/products/${i % 3}`, { ip: `203.0.113.${i % 4}` });
    for (let i = 0; i < 3; i++) await rig.verdict(shop, '/cart', { kind: 'none', ip: '198.51.100.7' });
    for (let i = 0; i < 2; i++) await rig.verdict(shop, '/', { kind: 'bot', ip: '198.51.100.9' });
    await rig.verdict(shop, '/admin/users');
    await rig.verdict(shop, '/health');
    const guards = guardsB;
    for (const host of ['shop.example.com', 'shop.example.com', 'api.example.com', 'm.example.com'])
      guards.push(await rig.verdict(shop, `/search?q=1'%20OR%20'1'='1`, { host, ip: '192.0.2.66' }));
    expect(guards).toContain('OWASP');
    for (let i = 0; i < 5; i++)
      await rig.verdict(blog, `/posts/${i}`, { host: 'blog.example.com', ip: '203.0.113.50' });
    guardsB.push(
      await rig.verdict(blog, `/?id=1%20UNION%20SELECT%20password%20FROM%20users`, {
        host: 'blog.example.com',
        ip: '192.0.2.77',
      }),
    );
    await rig.engine.logStore.flush();
  }, 120_000);
  afterAll(() => rig.stop());

  it('is the landing page and shows every counter and chart with data', async () => {
    const overview = new OverviewPage(rig.page);
    await rig.page.goto(`${rig.engine.url}/`);
    await overview.settled();
    expect(await rig.page.getByRole('heading', { name: 'Security Overview', level: 1 }).count()).toBe(1);
    expect(await overview.counter('counter-protected')).toBe(2);
    expect(await overview.counter('counter-requests')).toBe(29);
    // The counters are the engine's summary of the same range (its consistency test holds them to the log search).
    expect(guardsB).toContain('OWASP');
    const summary = await rig.api<{ current: { webAttacks: number; owaspAttacks: number; botAttacks: number } }>(
      'GET',
      `/overview/summary?from=${Date.now() - 86_400_000}&to=${Date.now()}`,
    );
    expect(summary.current.webAttacks).toBeGreaterThan(0);
    expect(await overview.counter('counter-web-attacks')).toBe(summary.current.webAttacks);
    expect(await overview.counter('counter-owasp-attacks')).toBe(summary.current.owaspAttacks);
    expect(await overview.counter('counter-bot-attacks')).toBe(summary.current.botAttacks);
    expect(await overview.counter('counter-attack-types')).toBeGreaterThanOrEqual(1);
    expect(await overview.counter('counter-basic-rules')).toBeGreaterThan(0);
    // Everything is new against the previous (empty) period.
    expect(
      await rig.page.getByTestId('counter-requests').getByTestId('counter-delta').getAttribute('data-direction'),
    ).toBe('up');
    for (const chart of ['chart-basic-security', 'chart-bot-security', 'chart-attack-types', 'chart-attack-sources']) {
      await overview.chart(chart).waitFor();
      expect(await rig.page.getByTestId(`${chart}-empty`).count(), chart).toBe(0);
    }
    // Four domains were attacked across the sites: the domains chart shows.
    await overview.chart('chart-domains').waitFor();
    expect(await overview.chart('chart-lists').count()).toBe(0);
    written.push(...(await screenshots(rig.page, 'B')));
  });

  it('changes the numbers with the site, and shows list requests where fewer than 3 domains were attacked', async () => {
    const overview = new OverviewPage(rig.page);
    await overview.open(rig.engine.url);
    await overview.apply({ site: blog });
    expect(new URL(rig.page.url()).searchParams.get('site')).toBe(blog);
    expect(await overview.counter('counter-protected')).toBe(1);
    expect(await overview.counter('counter-requests')).toBe(6);
    expect(await overview.counter('counter-bot-attacks')).toBe(0);
    // One attacked domain on Blog: the list-request chart takes the domains chart's place.
    await overview.chart('chart-lists').waitFor();
    expect(await overview.chart('chart-domains').count()).toBe(0);
    await overview.apply({ site: shop });
    expect(await overview.counter('counter-requests')).toBe(23);
    await overview.chart('chart-domains').waitFor();
  });

  it('changes the numbers with the time range, and keeps the range in the URL', async () => {
    const overview = new OverviewPage(rig.page);
    await overview.open(rig.engine.url);
    expect(await overview.counter('counter-requests')).toBe(29);
    const pad = (n: number) => String(n).padStart(2, '0');
    const local = (d: Date) =>
      `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
    const now = Date.now();
    await overview.apply({
      range: 'custom',
      from: local(new Date(now - 86_400_000)),
      to: local(new Date(now - 3_600_000)),
    });
    expect(new URL(rig.page.url()).searchParams.get('range')).toMatch(/^\d+~\d+$/);
    expect(await overview.counter('counter-requests')).toBe(0);
    await rig.page.getByTestId('overview-no-traffic').waitFor();
    await overview.apply({ range: '15m' });
    expect(new URL(rig.page.url()).searchParams.get('range')).toBe('15m');
    expect(await overview.counter('counter-requests')).toBe(29);
    // A reload shows the same state.
    await rig.page.reload();
    await overview.settled();
    expect(await rig.page.locator('#overview-range').inputValue()).toBe('15m');
  });

  it('opens the log search with the filter of a clicked attack type slice', async () => {
    const overview = new OverviewPage(rig.page);
    await overview.open(rig.engine.url, `site=${shop}`);
    const top = (
      await rig.api<{ attackTypes: { value: string }[] }>(
        'GET',
        `/overview/distribution?from=${Date.now() - 86_400_000}&to=${Date.now()}&siteId=${shop}`,
      )
    ).attackTypes[0]!.value;
    await overview.clickFirstSlice('chart-attack-types');
    await rig.page.waitForURL(/\/logs\/search\?/);
    const state = searchState(rig.page.url());
    expect(state.log).toBe(`access:${shop}`);
    expect(state.range).toMatch(/^\d+~\d+$/);
    expect(state.pills).toEqual([{ f: 'waf_triggered_categories', o: 'is', v: top }]);
    expect(await new LogSearchPage(rig.page).hits()).toBeGreaterThanOrEqual(1);
  });
});

describe('the Security Overview, edition A', () => {
  const rig = new Rig();
  let portal = '';
  const guards: string[] = [];

  beforeAll(async () => {
    await rig.start(browser, 'A', requests);
    portal = await rig.site('Portal', 'portal.example.com');
    const other = await rig.site('Store', 'store.example.com');
    // Anti-bot rules on, so the script tool's requests are judged BOT and the bot type pie has data.
    await rig.api('PUT', `/sites/${portal}/anti-bot`, {
      enabled: true,
      scanner: true,
      scriptTool: true,
      otherCrawler: true,
    });
    for (let i = 0; i < 10; i++)
      guards.push(
        await rig.verdict(portal, `/home/${i % 2}`, { host: 'portal.example.com', ip: `203.0.113.${i % 5}` }),
      );
    for (let i = 0; i < 4; i++)
      guards.push(
        await rig.verdict(portal, '/login', { host: 'portal.example.com', kind: 'none', ip: '198.51.100.3' }),
      );
    for (let i = 0; i < 2; i++)
      guards.push(await rig.verdict(portal, '/', { host: 'portal.example.com', kind: 'script', ip: '198.51.100.4' }));
    for (let i = 0; i < 3; i++)
      guards.push(await rig.verdict(other, '/', { host: 'store.example.com', ip: '203.0.113.80' }));
    // The probe's downloads through the gateway; its report-backs need a browser running it, so
    // the detection records are written to the site's detection log as the report route writes them.
    for (let i = 0; i < 2; i++)
      await fetch(`${rig.engine.gatewayUrl}/_rampart/probe.js?mode=reload`, {
        headers: { 'x-rampart-site': portal, referer: 'https://portal.example.com/home/0' },
      });
    const now = Date.now();
    for (let i = 0; i < 5; i++)
      rig.engine.logStore.append(`detection:${portal}`, {
        _timestamp: now - i * 1000,
        site_id: portal,
        src_ip: `203.0.113.${i}`,
        referrer: `https://portal.example.com/home/${i % 2}?ref=${i}`,
        detection_result: i === 0 ? 'bot' : 'human',
        client_bot_type: i === 0 ? 'headless' : '',
        user_agent: CHROME,
      });
    // Three hours ago: inside the last 24 hours, outside the last hour.
    for (let i = 0; i < 4; i++)
      rig.engine.logStore.append(`access:${portal}`, {
        _timestamp: now - 3 * 3_600_000 - i * 1000,
        site_id: portal,
        src_ip: '203.0.113.200',
        hostname: 'portal.example.com',
        request: 'GET /old HTTP/1.1',
        guard_status: 'PASS',
        status: 200,
      });
    await rig.engine.logStore.flush();
  }, 120_000);
  afterAll(() => rig.stop());

  it('shows every counter, pie, trend and ranking with data', async () => {
    const overview = new OverviewPage(rig.page);
    await overview.open(rig.engine.url);
    expect(rig.page.url()).toBe(`${rig.engine.url}/overview`);
    expect(await overview.counter('counter-requests')).toBe(23);
    expect(await overview.counter('counter-ips')).toBeGreaterThanOrEqual(8);
    expect(await overview.counter('counter-probe-reports')).toBe(5);
    expect(await overview.counter('counter-probe-downloads')).toBe(2);
    expect(await overview.counter('counter-detections')).toBe(7);
    expect(await overview.counter('counter-bots')).toBe(1);
    expect(await rig.page.getByTestId('overview-site').count()).toBe(0);
    expect(guards.join(' ')).toContain('BOT');
    const charts = ['chart-verdicts', 'chart-bot-types', 'chart-browser-types', 'chart-sites', 'chart-traffic'];
    for (const chart of charts) {
      await overview.chart(chart).waitFor();
      expect(await rig.page.getByTestId(`${chart}-empty`).count(), chart).toBe(0);
    }
    for (const ranking of ['ranking-path', 'ranking-referrer_path', 'ranking-src_ip'])
      expect(await rig.page.getByTestId(ranking).getByTestId('ranking-row').count(), ranking).toBeGreaterThan(0);
    expect(
      await rig.page.getByTestId('ranking-referrer_path').getByTestId('ranking-row').first().getAttribute('data-value'),
    ).toMatch(/^\/home\/[01]$/);
    written.push(...(await screenshots(rig.page, 'A')));
  });

  it('changes the numbers with the time range', async () => {
    const overview = new OverviewPage(rig.page);
    await overview.open(rig.engine.url);
    expect(await overview.counter('counter-requests')).toBe(23);
    await overview.apply({ range: '1h' });
    expect(await overview.counter('counter-requests')).toBe(19);
  });

  it('opens the log search with the filter of a clicked verdict slice, and a ranking row with its records', async () => {
    const overview = new OverviewPage(rig.page);
    await overview.open(rig.engine.url);
    const top = (
      await rig.api<{ verdicts: { value: string }[] }>(
        'GET',
        `/overview/distribution?from=${Date.now() - 86_400_000}&to=${Date.now()}`,
      )
    ).verdicts[0]!.value;
    await overview.clickFirstSlice('chart-verdicts');
    await rig.page.waitForURL(/\/logs\/search\?/);
    const state = searchState(rig.page.url());
    expect(state.log).toBe(`access:${portal}`);
    expect(state.pills).toEqual([{ f: 'guard_status', o: 'is', v: top }]);
    expect(await new LogSearchPage(rig.page).hits()).toBeGreaterThanOrEqual(1);

    await overview.open(rig.engine.url);
    // A path only Portal (the busiest site, whose log the links open) was asked for.
    const row = rig.page.getByTestId('ranking-path').locator('[data-testid="ranking-row"][data-value="/home/0"]');
    const path = (await row.getAttribute('data-value')) ?? '';
    const count = Number(((await row.locator('.count').textContent()) ?? '').replace(/[^\d]/g, ''));
    await row.click();
    await rig.page.waitForURL(/\/logs\/search\?/);
    expect(searchState(rig.page.url()).pills[0]).toMatchObject({ f: 'request', o: 'matches' });
    expect(await new LogSearchPage(rig.page).hits()).toBe(count);
    expect(path).toBe('/home/0');
    expect(count).toBe(5);
  });
});
