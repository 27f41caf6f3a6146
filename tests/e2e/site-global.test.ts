/**
 * The global site configuration page in Chromium: a user (who manages sites) sees that an Access
 * Key is set and nothing of the key, with no way to show, copy or rotate it; an administrator
 * shows it and rotates it after a warning that every gateway is cut off.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { ApiClient } from '../support/api-client.ts';
import { launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SignInPage } from './pages/sign-in.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

let engine: TestEngine;
let browser: Browser;
let admin: ApiClient;
const requests = new RequestLog();

async function accessKey(): Promise<string> {
  const res = await admin.request<{ accessKey: string }>('GET', '/site-global/access-key');
  expect(res.status).toBe(200);
  return res.body.accessKey;
}

async function globalPageAs(email: string): Promise<Page> {
  const context = await newContext(browser, requests);
  const page = await context.newPage();
  await new SignInPage(page).open(engine.url);
  await new SignInPage(page).signIn(email, STRONG_PASSWORD);
  await page.waitForURL(`${engine.url}/`);
  await page.goto(`${engine.url}/config/sites/global`);
  await page.getByTestId('global-form').waitFor();
  return page;
}

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir });
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
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await engine?.dispose();
});

describe('global site configuration', () => {
  it('shows a user that an Access Key is set, and neither the key nor a way to show, copy or rotate it', async () => {
    const key = await accessKey();
    const page = await globalPageAs('user@example.com');
    expect(await page.getByTestId('access-key').textContent()).toBe('••••••••' + key.slice(-4));
    expect(await page.getByTestId('access-key-set').textContent()).toContain('Set');
    expect(await page.getByTestId('access-key-admin-only').textContent()).toContain('Only administrators');
    expect(await page.getByTestId('reveal-key').count()).toBe(0);
    expect(await page.getByTestId('rotate-key').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Copy the key' }).count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    // The user still saves the token settings.
    await page.locator('#global-token-expiry').fill('90');
    await page.getByTestId('save-global').click();
    await page.getByText('Global configuration saved').waitFor();
    expect(await accessKey()).toBe(key);
    await page.context().close();
  });

  it('lets an administrator show the key and rotate it after a warning that gateways are cut off', async () => {
    const before = await accessKey();
    const page = await globalPageAs('admin@example.com');
    expect(await page.getByTestId('access-key').textContent()).toBe('••••••••' + before.slice(-4));
    await page.getByTestId('reveal-key').click();
    await expect.poll(() => page.getByTestId('access-key').textContent()).toBe(before);

    await page.getByTestId('rotate-key').click();
    const confirm = page.getByRole('dialog', { name: 'Generate a new Access Key?' });
    await confirm.getByText('every gateway is cut off').waitFor();
    await confirm.getByRole('button', { name: 'Generate new key' }).click();
    await page.getByText('A new Access Key is in effect').waitFor();
    const after = await accessKey();
    expect(after).not.toBe(before);
    expect(await page.getByTestId('access-key').textContent()).toBe(after);
    await page.context().close();
  });
});
