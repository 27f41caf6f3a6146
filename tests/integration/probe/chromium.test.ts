import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProbeSite } from './probe-site.ts';

const ARGS = [
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

const site = new ProbeSite();
let automated: Browser;
let disguised: Browser;

beforeAll(async () => {
  await site.start();
  automated = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  disguised = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [...ARGS, '--disable-blink-features=AutomationControlled', `--user-agent=${DESKTOP_UA}`],
  });
});

afterAll(async () => {
  await automated?.close();
  await disguised?.close();
  await site.stop();
});

beforeEach(() => {
  site.received.length = 0;
  site.config = { difficulty: 0, tokenTtlSeconds: 60, blockBots: true };
});

describe('probe in Chromium', () => {
  it('judges Chromium as Playwright launches it a bot by navigator.webdriver, and shows the block page', async () => {
    const page = await automated.newPage();
    await page.goto(`${site.base}/app`);
    const report = await site.waitFor((r) => r.assessment !== null);
    expect(report.assessment).toMatchObject({ verdict: 'bot', botType: 'webdriver' });
    expect(report.assessment?.signs).toContain('webdriver');
    expect(report.record).toMatchObject({
      detection_result: 'bot',
      client_bot_type: 'webdriver',
      hostname: '127.0.0.1',
    });
    await page.waitForFunction('document.body && document.body.textContent.indexOf("blocked by the site") >= 0');
    await page.close();
  });

  it('judges Chromium without the automation flag and with a desktop user agent human, then reloads into the site', async () => {
    const context = await disguised.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/app`);
    const report = await site.waitFor((r) => r.assessment !== null);
    expect(report.assessment?.verdict).toBe('human');
    expect(report.assessment?.botType).toBeNull();
    // A headless machine without a GPU renders WebGL in software: one weak sign, still human.
    expect(report.assessment?.signs.length).toBeLessThanOrEqual(1);
    expect(report.assessment?.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(report.body).toMatchObject({ mode: 'reload', event: 'load' });
    await page.waitForSelector('#app');
    expect(await page.textContent('#bot')).toBe('false');
    await context.close();
  });

  it('gives the same fingerprint on two visits of one browser', async () => {
    const context = await disguised.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/page`);
    const first = await site.waitFor((r) => r.assessment !== null);
    site.received.length = 0;
    await page.reload();
    const second = await site.waitFor((r) => r.assessment !== null);
    expect(second.assessment?.fingerprint).toBe(first.assessment?.fingerprint);
    await context.close();
  });

  it('refreshes the token in page mode before it expires, without reloading the page', async () => {
    site.config.tokenTtlSeconds = 2;
    const context = await disguised.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/page`);
    await page.evaluate('window.marker = 1');
    await site.waitFor((r) => (r.body as { event?: string }).event === 'refresh', 10_000);
    expect(await page.evaluate('window.marker')).toBe(1);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'rp_token')).toBeDefined();
    await context.close();
  });

  it('solves a proof of work in the browser that the server verifies', async () => {
    site.config.difficulty = 10;
    const context = await disguised.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/app`);
    const report = await site.waitFor((r) => r.assessment !== null || r.error !== null);
    expect(report.error).toBeNull();
    expect(report.assessment?.powDifficulty).toBe(10);
    expect(report.body).toMatchObject({
      pow: { challenge: expect.any(String) as string, counter: expect.any(Number) as number },
    });
    await page.waitForSelector('#app');
    await context.close();
  });

  it('reports the account and login_status 2 when the success element matches', async () => {
    const context = await disguised.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/login`);
    await site.waitFor((r) => r.assessment !== null);
    await page.fill('#username', 'alice@example.com');
    await page.fill('#password', 'right');
    await page.click('#go');
    const login = await site.waitFor((r) => r.assessment?.account !== undefined);
    expect(login.assessment).toMatchObject({ account: 'alice@example.com', loginStatus: 2, verdict: 'human' });
    expect(login.record).toMatchObject({ account: 'alice@example.com', login_status: 2 });
    await context.close();
  });

  it('reports login_status 1 when the failure element matches', async () => {
    const context = await disguised.newContext();
    const page = await context.newPage();
    await page.goto(`${site.base}/login`);
    await site.waitFor((r) => r.assessment !== null);
    await page.fill('#username', 'bob');
    await page.fill('#password', 'wrong');
    await page.click('#go');
    const login = await site.waitFor((r) => r.assessment?.account !== undefined);
    expect(login.assessment).toMatchObject({ account: 'bob', loginStatus: 1 });
    await context.close();
  });
});
