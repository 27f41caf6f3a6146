/**
 * Enterprise Management > System in Chromium (issue 19, item 6): an administrator finds it in the
 * menu and sees which parts are up and the verdicts counted since start; a user is refused the page.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { ApiClient } from '../support/api-client.ts';
import { rawRequest } from '../support/http.ts';
import { launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SignInPage } from './pages/sign-in.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

let engine: TestEngine;
let browser: Browser;
let admin: ApiClient;
const requests = new RequestLog();

async function signedIn(email: string): Promise<Page> {
  const context = await newContext(browser, requests);
  const page = await context.newPage();
  await new SignInPage(page).open(engine.url);
  await new SignInPage(page).signIn(email, STRONG_PASSWORD);
  await page.waitForURL(`${engine.url}/`);
  return page;
}

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir, ruleSetLocations: [] });
  admin = new ApiClient(engine.url);
  expect((await admin.setup('admin@example.com', STRONG_PASSWORD)).status).toBe(201);
  const created = await admin.request<{ delivery: { link: string } }>('POST', '/accounts', {
    email: 'user@example.com',
    role: 'user',
  });
  const token = new URL(created.body.delivery.link).searchParams.get('token');
  expect(
    (await new ApiClient(engine.url).request('POST', '/links/complete', { token, password: STRONG_PASSWORD })).status,
  ).toBe(204);
  const site = (
    await admin.request<{ id: string }>('POST', '/sites', {
      name: 'shop',
      domain: 'shop.example.com',
      runMode: 'block',
      accessMethod: 'plugin',
    })
  ).body.id;
  const key = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
  const verdict = await rawRequest(`${engine.gatewayUrl}/_rampart/check`, {
    method: 'POST',
    headers: { 'x-rampart-site': site, 'x-rampart-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      method: 'GET',
      uri: '/',
      remoteAddr: '198.51.100.30',
      headers: { host: 'shop.example.com' },
    }),
  });
  expect(verdict.status, verdict.text).toBe(200);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await engine?.dispose();
});

describe('the System page', () => {
  it('shows an administrator, from the menu, which parts are up and the verdicts since start', async () => {
    const page = await signedIn('admin@example.com');
    await page.goto(`${engine.url}/enterprise/info`);
    await page.locator('a[href="/enterprise/system"]').first().click();
    await page.waitForURL(`${engine.url}/enterprise/system`);
    await page.getByTestId('system-parts').waitFor();
    const state = (part: string): Promise<string | null> =>
      page.locator(`[data-part="${part}"]`).getAttribute('data-state');
    expect(await state('gateway')).toBe('listening');
    expect(await state('intake')).toBe('listening');
    expect(await state('store')).toBe('open');
    expect(['ok', 'over']).toContain(await state('disk'));
    expect(await page.getByTestId('system-no-kafka').count()).toBe(1);
    expect((await page.getByTestId('metric-gateway').textContent())?.trim()).toBe('1');
    expect(await page.getByTestId('system-updated').count()).toBe(1);
    expect(requests.outside(engine.url)).toEqual([]);
  });

  it('is refused to a user, who has no menu entry for it', async () => {
    const page = await signedIn('user@example.com');
    await page.goto(`${engine.url}/enterprise/system`);
    await page.getByTestId('page-forbidden').waitFor();
    expect(await page.locator('a[href="/enterprise/system"]').count()).toBe(0);
  });
});
