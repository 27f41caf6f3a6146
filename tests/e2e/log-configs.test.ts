/**
 * Configuration Management > Log Configuration in Chromium against a real engine (spec 2.2): a TCP
 * plain_text configuration is made through the form, its sample parsed live (in English and
 * Chinese), saved, its certificate bundle downloaded; the list shows it with counters; an edit
 * keeps the field areas read-only and asks before a key field changes; a copy is made and deleted;
 * the search page's log picker lists it; a BROKER json configuration is made from a pasted sample
 * and shows its Kafka state; and an engine refusal lands on the input it names.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { SetupPage } from './pages/setup.page.ts';
import { ShellPage } from './pages/shell.page.ts';
import { LogConfigsPage } from './pages/log-configs.page.ts';
import { LogSearchPage } from './pages/log-search.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const screenshotDir = fileURLToPath(new URL('../../dist/screenshots', import.meta.url));

const SAMPLE = 'Nov 27 08:15:02 host sshd[1]: Failed password for user=root from 203.0.113.9 port 5022';
const MISSING_IP = 'Nov 27 08:15:04 host sshd[1]: session opened for user=root';

describe('log configuration, edition B', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shell: ShellPage;
  let configs: LogConfigsPage;
  let work: string;
  const requests = new RequestLog();

  beforeAll(async () => {
    await mkdir(screenshotDir, { recursive: true });
    work = await mkdtemp(join(tmpdir(), 'rampart-e2e-logcfg-'));
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
    configs = new LogConfigsPage(page, shell);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('shows an empty list that says what to do next', async () => {
    await configs.open();
    await expect
      .poll(() => page.getByTestId('log-configs-empty').textContent())
      .toContain('create a custom configuration');
  });

  it('creates a TCP plain_text configuration whose sample is parsed live, in English and Chinese', async () => {
    await page.getByTestId('new-log-config').click();
    await page.waitForURL(/\/config\/log-config\/new$/);
    await page.locator('#log-config-name').fill('sshd');
    await configs.addRegexField({
      name: 'src_ip',
      regex: 'from (\\d+\\.\\d+\\.\\d+\\.\\d+)',
      group: 1,
      required: true,
    });
    await configs.addRegexField({ name: 'port', regex: 'port (\\d+)', group: 1, type: 'integer' });

    await configs.setSample(SAMPLE);
    await expect.poll(() => configs.previewValue('src_ip').textContent(), { timeout: 10_000 }).toBe('203.0.113.9');
    expect(await configs.previewValue('port').textContent()).toBe('5022');

    await configs.setSample(MISSING_IP);
    await expect
      .poll(() => configs.failureText().textContent(), { timeout: 10_000 })
      .toBe('Required field must not be empty: src_ip');
    await shell.chooseLanguage('简体中文');
    await expect
      .poll(() => configs.failureText().textContent(), { timeout: 10_000 })
      .toBe('必要字段不允许为空: src_ip');
    await shell.chooseLanguage('English');

    await configs.setSample(SAMPLE);
    await page.locator('#key-ip').selectOption('src_ip');
    await page.screenshot({ path: join(screenshotDir, 'log-config-new.png'), fullPage: true });
    await configs.save();
    await page.waitForURL(/\/config\/log-config\/[A-Za-z0-9_-]+$/);
    await page.getByTestId('certificate-panel').waitFor();
    expect(await page.getByTestId('cert-fingerprint').textContent()).toMatch(/[0-9A-F:]{20,}/i);
    expect(await page.getByTestId('rsyslog-hint').textContent()).toContain('rsyslog');
    await page.getByTestId('status-panel').getByTestId('status-received').waitFor();
  });

  it('downloads the certificate bundle with the three PEM files', async () => {
    const file = await configs.downloadCertificate();
    const path = join(work, 'bundle.zip');
    await file.saveAs(path);
    const names = execFileSync('unzip', ['-Z1', path]).toString().split('\n');
    expect(names).toEqual(expect.arrayContaining(['ca_cert.pem', 'csr_cert.pem', 'private_key.pem']));
    await page.screenshot({ path: join(screenshotDir, 'log-config-view.png'), fullPage: true });
  });

  it('lists it with its kind, method, key fields and counters', async () => {
    await configs.open();
    const row = configs.row('sshd');
    await row.waitFor();
    expect(await row.textContent()).toContain('TCP');
    expect(await row.textContent()).toContain('IP: src_ip');
    await expect.poll(() => row.getByTestId('log-config-counters').textContent()).toBe('0 / 0 / 0');
    await page.screenshot({ path: join(screenshotDir, 'log-config-list.png'), fullPage: true });
  });

  it('keeps the field areas read-only in an edit and asks before a key field changes', async () => {
    await configs.row('sshd').getByTestId('edit-log-config').click();
    await page.waitForURL(/\/edit$/);
    await page.getByTestId('fields-locked').waitFor();
    expect(await page.locator('#field-0-name').getAttribute('readonly')).not.toBeNull();
    expect(await page.locator('#field-0-regex').getAttribute('readonly')).not.toBeNull();
    expect(await page.getByTestId('add-regex').count()).toBe(0);
    expect(await page.getByTestId('remove-area').count()).toBe(0);

    await page.locator('#key-user').selectOption('port');
    const dialog = page.getByRole('dialog', { name: 'Change key fields' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Save button');
    await dialog.getByRole('button', { name: 'Change key field' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('keys-changed').waitFor();
    await configs.save();
    await page.waitForURL(/\/config\/log-config\/[A-Za-z0-9_-]+$/);
    await configs.open();
    expect(await configs.row('sshd').textContent()).toContain('User: port');
  });

  it('copies it under a name asked for, and deletes the copy once confirmed', async () => {
    await configs.operate('sshd', 'Copy');
    const copy = page.getByRole('dialog', { name: 'Copy log configuration' });
    expect(await copy.locator('#copy-name').inputValue()).toBe('sshd copy');
    await copy.locator('#copy-name').press('Enter');
    await configs.row('sshd copy').waitFor();

    await configs.operate('sshd copy', 'Delete');
    const confirm = page.getByRole('dialog', { name: 'Delete log configuration' });
    expect(await confirm.textContent()).toContain('“sshd copy”');
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await configs.row('sshd copy').waitFor({ state: 'detached' });
    expect(await configs.result().textContent()).toContain('sshd copy');
  });

  it('is listed by name in the search page’s log picker', async () => {
    const search = new LogSearchPage(page);
    await search.open(engine.url);
    const options = await search.logSelect().locator('option').allTextContents();
    expect(options.some((o) => o.includes('sshd'))).toBe(true);
  });

  it('creates a BROKER json configuration from a pasted sample, nested paths and types guessed, and shows its Kafka state', async () => {
    await page.goto(`${engine.url}/config/log-config/new`);
    await page.locator('#log-config-name').fill('orders from kafka');
    await page.locator('label[for="method-broker"]').click();
    // Nothing listens there (loopback, which test engines allow): the state says it keeps trying.
    await page.locator('#broker-address').fill('127.0.0.1:1');
    await page.locator('#broker-topic').fill('orders');
    await page.locator('label[for="template-json"]').click();
    await configs.setSample(
      '{"timestamp":"2026-11-27 08:15:02","client":{"ip":"203.0.113.9"},"user":"alice","status":401,"took":0.25}',
    );
    await page.getByTestId('quick-add').click();
    await expect.poll(() => page.getByTestId('field-area').count()).toBe(5);
    const areas: Record<string, { index: number; type: string }> = {};
    for (let i = 0; i < 5; i++) {
      const source = await page.locator(`#field-${i}-source`).inputValue();
      areas[source] = { index: i, type: await page.locator(`#field-${i}-type`).inputValue() };
    }
    expect(areas['client.ip']?.type).toBe('string');
    expect(areas.status?.type).toBe('integer');
    expect(areas.took?.type).toBe('float');
    await page.locator(`label[for="field-${areas['client.ip']!.index}-required"]`).click();
    await page.locator('label[for="time-extract"]').click();
    await page.locator('#time-field').fill('timestamp');
    await page.locator('#key-ip').selectOption('client.ip');
    await expect.poll(() => configs.previewValue('client.ip').textContent(), { timeout: 10_000 }).toBe('203.0.113.9');
    expect(await configs.previewValue('took').textContent()).toBe('0.25');

    await configs.save();
    await page.waitForURL(/\/config\/log-config\/[A-Za-z0-9_-]+$/);
    await expect
      .poll(() => page.getByTestId('status-kafka').textContent(), { timeout: 15_000 })
      .toMatch(/connecting|retrying/);
    expect(await page.getByTestId('certificate-panel').count()).toBe(0);
    await configs.open();
    expect(await configs.row('orders from kafka').textContent()).toContain('IP: client.ip');
  });

  it("asks for the brokers' CA when TLS is on, and shows a CA that is not a certificate on its input", async () => {
    await page.goto(`${engine.url}/config/log-config/new`);
    await page.locator('#log-config-name').fill('secure orders');
    await page.locator('label[for="method-broker"]').click();
    await page.locator('#broker-address').fill('127.0.0.1:1');
    await page.locator('#broker-topic').fill('orders');
    expect(await page.locator('#broker-ca').count()).toBe(0);
    await page.locator('label[for="broker-tls"]').last().click();
    await page.locator('#broker-ca').fill('-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----');
    await configs.addRegexField({ name: 'a', regex: '(a)', group: 1, required: true });
    await configs.save();
    await expect.poll(() => configs.invalidText('broker-ca').textContent()).toContain('PEM certificates');
    expect(page.url()).toMatch(/\/new$/);
  });

  it('shows an engine refusal on the input it names: a regex with a backreference', async () => {
    await page.goto(`${engine.url}/config/log-config/new`);
    await page.locator('#log-config-name').fill('backref');
    await configs.addRegexField({ name: 'a', regex: '(a)\\1', group: 1, required: true });
    await configs.save();
    await expect.poll(() => configs.invalidText('field-0-regex').textContent()).toContain('cannot run in linear time');
    expect(page.url()).toMatch(/\/new$/);
  });
});
