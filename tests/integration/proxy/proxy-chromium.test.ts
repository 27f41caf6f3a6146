/**
 * The reverse proxy with real browsers (issue 17 item 1): Chromium reaches a CNAME site through
 * Rampart's proxy over HTTP and HTTPS (a certificate made here), the probe runs from the same
 * origin, an automated browser is caught and blocked, a person's browser gets a token and the
 * origin's page, and the page carries the probe in page mode.
 */
import { createServer, type Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SiteRecord } from '#engine/config-store';
import { ApiClient } from '../../support/api-client.ts';
import { freePort, startTestEngine, type TestEngine } from '../../support/engine.ts';
import { testAuthority, testCertificate } from '../../support/certificates.ts';
import { skipAllWithout } from '../../support/skip.ts';
import { existsSync } from 'node:fs';

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
];
const DESKTOP_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

let engine: TestEngine;
let admin: ApiClient;
let origin: Server;
let site: SiteRecord;
let httpPort: number;
let httpsPort: number;

async function accessLog(): Promise<Record<string, unknown>[]> {
  await engine.logStore.flush();
  return engine.logStore.read(`access:${site.id}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
}

describe('Chromium through the reverse proxy', () => {
  skipAllWithout(existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (apt-get install chromium)`);
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) return;
    origin = createServer((req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<html><head><title>shop</title></head><body><h1>hello from origin</h1><p>${req.url}</p></body></html>`);
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    engine = await startTestEngine({ RAMPART_EDITION: 'B' });
    admin = new ApiClient(engine.url);
    await admin.setup('root@example.com', 'Kettle#Blue7');
    httpPort = await freePort();
    httpsPort = await freePort();
    const made = await admin.request<SiteRecord>('POST', '/sites', {
      name: 'shop',
      domain: 'shop.test',
      runMode: 'block',
      accessMethod: 'cname',
      cname: {
        http: true,
        https: true,
        httpPort,
        httpsPort,
        originAddress: `127.0.0.1:${(origin.address() as { port: number }).port}`,
      },
    });
    expect(made.status, made.text).toBe(201);
    site = made.body;
    const cert = testCertificate(testAuthority(), ['shop.test']);
    const uploaded = await admin.request('PUT', `/sites/${site.id}/certificate`, {
      certificate: cert.chain,
      key: cert.key,
    });
    expect(uploaded.status, uploaded.text).toBe(200);
    const deadline = Date.now() + 5000;
    const listening = async (): Promise<number> =>
      (await admin.request<{ listeners: { listening: boolean }[] }>('GET', '/proxy/status')).body.listeners.filter(
        (l) => l.listening,
      ).length;
    while ((await listening()) < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    // The certificate reaches the HTTPS listener with the next site sync.
    await new Promise((resolve) => setTimeout(resolve, 500));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await engine?.dispose();
    await new Promise((resolve) => (origin ? origin.close(resolve) : resolve(undefined)));
  });

  const launch = (human: boolean): Promise<Browser> =>
    chromium.launch({
      executablePath: CHROMIUM,
      args: [
        ...CHROMIUM_ARGS,
        '--host-resolver-rules=MAP shop.test 127.0.0.1',
        '--ignore-certificate-errors',
        ...(human ? ['--disable-blink-features=AutomationControlled', `--user-agent=${DESKTOP_UA}`] : []),
      ],
    });

  it('catches headless Chromium under Playwright (webdriver) with the block page', async () => {
    browser = await launch(false);
    const page = await browser.newPage();
    const report = page.waitForResponse((r) => r.url().endsWith('/_rampart/report'));
    await page.goto(`http://shop.test:${httpPort}/catalogue`);
    expect((await report).status()).toBe(400);
    await page.getByText('Request blocked').waitFor();
    await engine.logStore.flush();
    const detections = await engine.logStore.read(`detection:${site.id}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    expect(detections.at(-1)).toMatchObject({ detection_result: 'bot', client_bot_type: 'webdriver' });
    await page.close();
  });

  for (const scheme of ['http', 'https'] as const) {
    it(`gives a person's Chromium a token and the origin's page over ${scheme.toUpperCase()}, with the probe in page mode`, async () => {
      const human = await launch(true);
      try {
        const context = await human.newContext({ userAgent: DESKTOP_UA, ignoreHTTPSErrors: true });
        const page = await context.newPage();
        await page.goto(`${scheme}://shop.test:${scheme === 'http' ? httpPort : httpsPort}/catalogue`);
        await page.getByText('hello from origin').waitFor({ timeout: 20_000 });
        const token = (await context.cookies()).find((c) => c.name === 'rampart_token');
        expect(token?.value).toBeTruthy();
        expect(token?.httpOnly).toBe(true);
        expect(await page.locator('script[src="/_rampart/probe.js?mode=page"]').count()).toBe(1);
        await expect
          .poll(
            async () =>
              (await accessLog()).findLast(
                (r) => r.guard_status === 'PASS' && r.request === 'GET /catalogue HTTP/1.1' && r.scheme === scheme,
              ),
            { timeout: 5000 },
          )
          .toMatchObject({ scheme, status: 200, request: 'GET /catalogue HTTP/1.1' });
      } finally {
        await human.close();
      }
    });
  }
});
