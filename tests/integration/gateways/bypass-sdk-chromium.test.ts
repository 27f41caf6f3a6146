/**
 * The bypass web SDK (issue 17 item 6) in Chromium: a page on the customer's origin (a loopback
 * server of this test, as shop.test) includes the SDK's script tag from the gateway address
 * (another origin). The SDK reports; the engine writes a detection record and an access record for
 * the page view; nothing is blocked, reloaded or replaced, even on a blocking site and for an
 * automated browser, which is recorded as a bot. Reports from other origins are refused (CORS).
 */
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SiteRecord } from '#engine/config-store';
import { ApiClient } from '../../support/api-client.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { skipAllWithout } from '../../support/skip.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--host-resolver-rules=MAP shop.test 127.0.0.1, MAP www.shop.test 127.0.0.1, MAP evil.test 127.0.0.1',
];
const DESKTOP_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

let engine: TestEngine;
let origin: Server;
let originPort: number;
let site: SiteRecord;
let admin: ApiClient;

const all = { from: 0, to: Number.MAX_SAFE_INTEGER };
async function records(log: 'access' | 'detection'): Promise<Record<string, unknown>[]> {
  await engine.logStore.flush();
  return engine.logStore.read(`${log}:${site.id}`, all);
}

describe('the bypass web SDK in Chromium', () => {
  skipAllWithout(existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (apt-get install chromium)`);

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) return;
    engine = await startTestEngine({ RAMPART_EDITION: 'B' });
    admin = new ApiClient(engine.url);
    await admin.setup('root@example.com', 'Kettle#Blue7');
    const made = await admin.request<SiteRecord>('POST', '/sites', {
      name: 'shop',
      domain: 'shop.test',
      // Block mode on purpose: bypass access still never blocks.
      runMode: 'block',
      accessMethod: 'bypass',
    });
    expect(made.status, made.text).toBe(201);
    site = made.body;
    const tag = `<script src="${engine.gatewayUrl}/_rampart/sdk.js?site=${encodeURIComponent(site.id)}" async></script>`;
    origin = createServer((req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<html><head><title>shop</title>${tag}</head><body><h1>hello from origin</h1><p>${req.url ?? ''}</p></body></html>`,
      );
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    originPort = (origin.address() as { port: number }).port;
  }, 60_000);

  afterAll(async () => {
    await engine?.dispose();
    await new Promise((resolve) => (origin ? origin.close(resolve) : resolve(undefined)));
  });

  const launch = (human: boolean): Promise<Browser> =>
    chromium.launch({
      executablePath: CHROMIUM,
      args: [
        ...CHROMIUM_ARGS,
        ...(human ? ['--disable-blink-features=AutomationControlled', `--user-agent=${DESKTOP_UA}`] : []),
      ],
    });

  it("records a person's page view (PASS) and its detection, from a subdomain too, and blocks nothing", async () => {
    const browser = await launch(true);
    try {
      const page = await (await browser.newContext({ userAgent: DESKTOP_UA })).newPage();
      const navigations: string[] = [];
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) navigations.push(frame.url());
      });
      const report = page.waitForResponse((r) => r.url().includes('/_rampart/sdk/report'));
      await page.goto(`http://www.shop.test:${originPort}/catalogue?q=shoes`, {
        referer: 'http://search.example/',
      });
      const answer = await report;
      expect(answer.status()).toBe(200);
      expect(await answer.headerValue('access-control-allow-origin')).toBe(`http://www.shop.test:${originPort}`);
      expect(await answer.headerValue('set-cookie')).toBeNull();
      await expect
        .poll(async () => (await records('access')).find((r) => r.request === 'GET /catalogue?q=shoes HTTP/1.1'), {
          timeout: 5000,
        })
        .toMatchObject({
          guard_status: 'PASS',
          action: 'pass',
          hostname: `www.shop.test:${originPort}`,
          referrer: 'http://search.example/',
        });
      expect((await records('detection')).at(-1)).toMatchObject({ detection_result: 'human' });
      await page.waitForTimeout(500);
      expect(await page.getByText('hello from origin').count()).toBe(1);
      expect(navigations).toEqual([`http://www.shop.test:${originPort}/catalogue?q=shoes`]);
    } finally {
      await browser.close();
    }
  });

  it('records an automated Chromium as a bot and still does not block it', async () => {
    const browser = await launch(false);
    try {
      const page = await browser.newPage();
      const report = page.waitForResponse((r) => r.url().includes('/_rampart/sdk/report'));
      await page.goto(`http://shop.test:${originPort}/cart`);
      expect((await report).status()).toBe(200);
      await expect
        .poll(async () => (await records('access')).find((r) => r.request === 'GET /cart HTTP/1.1'), {
          timeout: 5000,
        })
        .toMatchObject({ guard_status: 'BOT', action: 'pass' });
      expect((await records('detection')).at(-1)).toMatchObject({
        detection_result: 'bot',
        client_bot_type: 'webdriver',
      });
      await page.waitForTimeout(500);
      expect(page.url()).toBe(`http://shop.test:${originPort}/cart`);
      await page.getByText('hello from origin').waitFor();
    } finally {
      await browser.close();
    }
  });

  it("refuses reports from an origin outside the site's domain and writes nothing", async () => {
    const browser = await launch(true);
    try {
      const before = (await records('detection')).length;
      const page = await (await browser.newContext({ userAgent: DESKTOP_UA })).newPage();
      const failed = page.waitForEvent('requestfailed', (r) => r.url().includes('/_rampart/sdk/report'));
      await page.goto(`http://evil.test:${originPort}/phish`);
      await failed;
      await page.getByText('hello from origin').waitFor();
      expect((await records('detection')).length).toBe(before);
      expect((await records('access')).some((r) => r.request === 'GET /phish HTTP/1.1')).toBe(false);
    } finally {
      await browser.close();
    }
  });

  it('answers the preflight for the domain and its subdomains only', async () => {
    const preflight = (from: string) =>
      fetch(`${engine.gatewayUrl}/_rampart/sdk/report?site=${encodeURIComponent(site.id)}`, {
        method: 'OPTIONS',
        headers: { origin: from, 'access-control-request-method': 'POST' },
      });
    for (const ok of ['http://shop.test', 'https://a.b.shop.test:8443']) {
      const res = await preflight(ok);
      expect(res.status, ok).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ok);
    }
    for (const bad of ['http://shop.test.evil.com', 'http://evilshop.test', 'null', 'file://shop.test']) {
      const res = await preflight(bad);
      expect(res.status, bad).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('refuses a malformed report from an allowed origin (400, the CORS header kept so the SDK can read it) and writes nothing', async () => {
    const before = (await records('detection')).length;
    const accessBefore = (await records('access')).length;
    for (const body of ['{"v":1', JSON.stringify({ v: 1, mode: 'sdk', event: 'load', signs: 'x', fp: 'zz' }), '[]']) {
      const res = await fetch(`${engine.gatewayUrl}/_rampart/sdk/report?site=${encodeURIComponent(site.id)}`, {
        method: 'POST',
        headers: { origin: 'http://shop.test', 'content-type': 'application/json' },
        body,
      });
      expect(res.status, body).toBe(400);
    }
    expect((await records('detection')).length).toBe(before);
    expect((await records('access')).length).toBe(accessBefore);
  });

  it('serves the SDK only for bypass sites', async () => {
    const plugin = await admin.request<SiteRecord>('POST', '/sites', {
      name: 'plugin-site',
      domain: 'plugin.test',
      runMode: 'monitor',
      accessMethod: 'plugin',
    });
    expect(plugin.status, plugin.text).toBe(201);
    const res = await fetch(`${engine.gatewayUrl}/_rampart/sdk.js?site=${encodeURIComponent(plugin.body.id)}`);
    expect(res.status).toBe(400);
    const sdk = await fetch(`${engine.gatewayUrl}/_rampart/sdk.js?site=${encodeURIComponent(site.id)}`);
    expect(sdk.status).toBe(200);
    expect(await sdk.text()).toContain(`${engine.gatewayUrl}/_rampart/sdk/report?site=`);
  });
});
