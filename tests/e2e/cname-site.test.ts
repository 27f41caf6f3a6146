/**
 * Edition B's CNAME access in the console against the real engine and its reverse proxy: a new site
 * over HTTPS (the engine's refusal of a missing origin address shown on the field), its certificate
 * uploaded from files made by the test and then served by SNI, the warning of a certificate valid
 * 10 days, a key that belongs to another certificate refused on the key field, the proxy's state
 * (a port another program holds) on the site page and the list, and the certificate removed after
 * the question.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort, startTestEngine, type TestEngine } from '../support/engine.ts';
import { testAuthority, testCertificate } from '../support/certificates.ts';
import { firstRunConsole, launchChromium, RequestLog } from './support/browser.ts';
import { ShellPage } from './pages/shell.page.ts';
import { SitesPage } from './pages/sites.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const screenshotDir = fileURLToPath(new URL('../../dist/screenshots', import.meta.url));
const DAY = 86_400_000;
const DOMAIN = 'shop.example.com';

interface SiteJson {
  id: string;
  accessMethod: string;
  cname: { http: boolean; https: boolean; httpPort: number; httpsPort: number; originAddress: string };
  certificate: { names: string[]; state: string; fingerprint256: string } | null;
}

/** The certificate a TLS client gets from 127.0.0.1:port when it asks for `servername`. */
function servedCertificate(port: number, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.end();
      resolve(new X509Certificate(raw).fingerprint256);
    });
    socket.once('error', reject);
  });
}

describe('CNAME access, edition B', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let sitesPage: SitesPage;
  let dir: string;
  /** Another program on the site's HTTP port: the proxy cannot open it. */
  let squatter: Server;
  let httpPort: number;
  let httpsPort: number;
  let siteId: string;
  const requests = new RequestLog();
  const ca = testAuthority();
  const year = testCertificate(ca, [DOMAIN, `www.${DOMAIN}`]);
  const tenDays = testCertificate(ca, [DOMAIN], { to: Date.now() + 10 * DAY });
  const stranger = testCertificate(ca, [DOMAIN]);
  const files = {
    yearChain: 'shop-chain.pem',
    yearKey: 'shop-key.pem',
    tenDaysChain: 'shop-10-days.pem',
    tenDaysKey: 'shop-10-days-key.pem',
    strangerKey: 'stranger-key.pem',
  };
  const file = (name: string): string => join(dir, name);

  const site = async (): Promise<SiteJson> => {
    const response = await page.context().request.get(`${engine.url}/api/v1/sites/${siteId}`);
    expect(response.status()).toBe(200);
    return (await response.json()) as SiteJson;
  };

  /** Chooses the certificate and key files, then uploads them. */
  const upload = async (chain: string, key: string): Promise<void> => {
    await page.locator('#site-certificate-file').setInputFiles(file(chain));
    await page.getByTestId('certificate-file').getByText(chain).waitFor();
    await page.locator('#site-key-file').setInputFiles(file(key));
    await page.getByTestId('key-file').getByText(key).waitFor();
    expect(await page.locator('#site-certificate-pem').inputValue()).toContain('-----BEGIN CERTIFICATE-----');
    await page.getByTestId('certificate-upload-submit').click();
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rampart-cname-e2e-'));
    await writeFile(file(files.yearChain), year.chain);
    await writeFile(file(files.yearKey), year.key);
    await writeFile(file(files.tenDaysChain), tenDays.chain);
    await writeFile(file(files.tenDaysKey), tenDays.key);
    await writeFile(file(files.strangerKey), stranger.key);
    httpPort = await freePort();
    httpsPort = await freePort();
    squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(httpPort, '127.0.0.1', resolve));

    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir });
    browser = await launchChromium();
    ({ context, page } = await firstRunConsole(browser, engine.url, requests, 'secops@rampart.test'));
    sitesPage = new SitesPage(page, new ShellPage(page));
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
    await new Promise<void>((resolve) => (squatter ? squatter.close(() => resolve()) : resolve()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("creates a CNAME site over HTTPS, with the engine's refusal of a missing origin address on its field", async () => {
    await sitesPage.open('Site Management');
    await page.getByRole('link', { name: 'Create site' }).first().click();
    await page.waitForURL(/\/config\/sites\/new$/);
    await page.locator('#site-name').fill('Shop');
    await page.locator('#site-domain').fill(DOMAIN);
    await sitesPage.choose('access-method', 'cname');
    const tab = page.getByTestId('cname-tab');
    await tab.waitFor();
    expect(await page.locator('#cname-http').isChecked()).toBe(true);
    expect(await page.locator('#cname-http-port').inputValue()).toBe('80');
    expect(await page.getByTestId('certificate-area').count()).toBe(0);

    await page.locator('label[for="cname-https"]').click();
    expect(await page.locator('#cname-https-port').inputValue()).toBe('443');
    // A certificate belongs to a stored site: the new form says when it is uploaded.
    expect(await page.getByTestId('certificate-after-create').textContent()).toContain(
      'Upload the certificate after creating the site',
    );
    await page.locator('#cname-http-port').fill(String(httpPort));
    await page.locator('#cname-https-port').fill(String(httpsPort));

    // Empty passes the schema; the engine requires it for CNAME access, and says so on the field.
    await sitesPage.save();
    await page.getByText('Origin address: is required for CNAME access').waitFor();
    expect(await page.locator('#cname-origin-address').getAttribute('aria-invalid')).toBe('true');
    expect(new URL(page.url()).pathname).toBe('/config/sites/new');

    await page.locator('#cname-origin-address').fill('app.internal');
    await page.getByText(/Origin address: must be an IP address or domain, then a port/).waitFor();
    await page.locator('#cname-origin-address').fill('127.0.0.1:9');
    await sitesPage.save();

    // The new HTTPS site opens again, at its certificate.
    await page.waitForURL(/\/config\/sites\/site_[a-z0-9]+$/);
    siteId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await page.getByTestId('operation-result').textContent()).toContain('Upload its HTTPS certificate');
    await page.getByTestId('certificate-none').waitFor();
    const stored = await site();
    expect(stored.accessMethod).toBe('cname');
    expect(stored.cname).toMatchObject({ http: true, https: true, httpPort, httpsPort, originAddress: '127.0.0.1:9' });
    expect(stored.certificate).toBeNull();
  });

  it('uploads a certificate and key from files, shows its names and days left, and the proxy serves it', async () => {
    await upload(files.yearChain, files.yearKey);
    await page.getByTestId('certificate-details').waitFor();
    expect(await page.getByTestId('certificate-area').getByTestId('operation-result').textContent()).toContain(
      `Certificate for ${DOMAIN}, www.${DOMAIN} uploaded`,
    );
    expect(await page.getByTestId('certificate-names').textContent()).toBe(`${DOMAIN}, www.${DOMAIN}`);
    expect(await page.getByTestId('certificate-issuer').textContent()).toContain('Rampart Test CA');
    expect(await page.getByTestId('certificate-days-left').textContent()).toMatch(/^36[45] days$/);
    expect(await page.getByTestId('certificate-expiring').count()).toBe(0);
    // The key never comes back, and the fields are emptied for the next upload.
    expect(await page.getByTestId('certificate-upload').count()).toBe(0);

    const stored = await site();
    expect(stored.certificate?.state).toBe('valid');
    expect(JSON.stringify(stored)).not.toContain('PRIVATE KEY');
    // The proxy follows the upload within its sync interval.
    await expect
      .poll(() => servedCertificate(httpsPort, DOMAIN).catch(() => ''), { timeout: 5000 })
      .toBe(stored.certificate?.fingerprint256);
  });

  it('warns when the certificate has 30 days or fewer left (one valid 10 days)', async () => {
    await page.getByTestId('certificate-replace').click();
    // The keyboard goes on at the fields that opened.
    await page.locator('#site-certificate-pem:focus').waitFor();
    await upload(files.tenDaysChain, files.tenDaysKey);
    const warning = page.getByTestId('certificate-expiring');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('The certificate expires soon');
    expect(await warning.textContent()).toMatch(/It expires in (9|10) days/);
    expect(await page.getByTestId('certificate-days-left').textContent()).toMatch(/^(9|10) days$/);
    expect((await site()).certificate?.state).toBe('expiring');
    await mkdir(screenshotDir, { recursive: true });
    await page.getByTestId('cname-tab').screenshot({ path: `${screenshotDir}/cname-tab-B.png` });
  });

  it('refuses a key that belongs to another certificate, saying so on the key field', async () => {
    const before = (await site()).certificate?.fingerprint256;
    await page.getByTestId('certificate-replace').click();
    await upload(files.yearChain, files.strangerKey);
    await page.getByText('Private key: does not belong to the certificate').waitFor();
    expect(await page.locator('#site-key-pem').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#site-certificate-pem').getAttribute('aria-invalid')).not.toBe('true');
    // The stored certificate stays; the person can keep it.
    expect((await site()).certificate?.fingerprint256).toBe(before);
    await page.getByRole('button', { name: 'Keep the current certificate' }).click();
    await page.getByTestId('certificate-upload').waitFor({ state: 'hidden' });
    await page.getByTestId('certificate-expiring').waitFor();
  });

  it("shows the proxy's state on the site page and in the list: a port another program holds", async () => {
    const state = page.getByTestId('proxy-state');
    await state.getByTestId('proxy-refresh').click();
    await state.getByText(`port ${httpPort} is in use by another program`).waitFor();
    expect(await state.getByTestId('proxy-serving').textContent()).toContain('Not serving');
    expect(await state.getByTestId('proxy-port-listening').textContent()).toContain(
      `HTTPS port ${httpsPort} listening`,
    );

    await sitesPage.open('Site Management');
    const status = sitesPage.row('Shop').getByTestId('site-status');
    await status.getByTestId('proxy-serving').waitFor();
    expect(await status.getByTestId('proxy-port-error').textContent()).toContain(
      `HTTP port ${httpPort} not open: port ${httpPort} is in use by another program`,
    );
    expect(await status.getByTestId('certificate-state').textContent()).toMatch(/Certificate: (9|10) days left/);
    await page.getByTestId('sites-table').screenshot({ path: `${screenshotDir}/cname-site-list-B.png` });
  });

  it('removes the certificate after confirming', async () => {
    await sitesPage.edit('Shop');
    await page.getByTestId('certificate-remove').click();
    const dialog = page.getByRole('dialog', { name: 'Remove the certificate?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await site()).certificate).not.toBeNull();

    await page.getByTestId('certificate-remove').click();
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Remove the certificate of Shop?');
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByTestId('certificate-none').waitFor();
    expect(await page.getByTestId('certificate-area').getByTestId('operation-result').textContent()).toContain(
      'Certificate removed',
    );
    expect((await site()).certificate).toBeNull();
    // Nothing left the console's origin.
    expect(requests.outside(engine.url)).toEqual([]);
  });
});
