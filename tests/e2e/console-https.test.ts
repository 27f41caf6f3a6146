/**
 * The console over HTTPS in Chromium (issue 19, item 1): with the appliance's own authority trusted
 * (by its key, as an operator installing it would), Chromium opens the console over HTTPS with no
 * warning, runs the first-run setup, keeps a Secure session cookie, and the System page shows the
 * certificate, takes an uploaded one (a wrong key refused at its field) and goes back to its own.
 * Without the authority trusted, Chromium refuses the certificate.
 */
import { X509Certificate, createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { testAuthority, testCertificate } from '../support/certificates.ts';
import { firstRunConsole, launchChromium, RequestLog } from './support/browser.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

/** Chromium's form of a trusted key: base64 of the SHA-256 of the certificate's SubjectPublicKeyInfo. */
const spkiHash = (pem: string): string =>
  createHash('sha256')
    .update(new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');

let engine: TestEngine;
let browser: Browser;
let page: Page;
let secureUrl: string;
const customer = testAuthority('Customer CA');
const requests = new RequestLog();

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir, ruleSetLocations: [] });
  secureUrl = engine.consoleHttps!.url;
  const ca = await fetch(`${engine.url}/api/v1/system/console-certificate/ca`).then((r) => r.status);
  expect(ca).toBe(401);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await engine?.dispose();
});

describe('the console over HTTPS in Chromium', () => {
  it('is refused while the appliance authority is not trusted', async () => {
    const untrusting = await launchChromium();
    try {
      const context = await untrusting.newContext();
      const tab = await context.newPage();
      const failure = await tab.goto(`${secureUrl}/`).then(
        () => '',
        (error: Error) => error.message,
      );
      expect(failure).toMatch(/ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await untrusting.close();
    }
  });

  it('opens with the authority trusted: first-run setup, a Secure session cookie, the certificate on the System page', async () => {
    const { readConfigDocument } = await import('#engine/config-store');
    const doc = await readConfigDocument(engine.dataDir);
    browser = await launchChromium([
      `--ignore-certificate-errors-spki-list=${spkiHash(doc.consoleTls!.ca.certPem)},${spkiHash(customer.cert)}`,
    ]);
    ({ page } = await firstRunConsole(browser, secureUrl, requests, 'admin@example.com'));
    const cookies = await page.context().cookies(secureUrl);
    const session = cookies.find((c) => c.name === 'rampart_session');
    expect(session?.secure).toBe(true);
    expect(requests.urls.every((url) => url.startsWith(`${secureUrl}/`) || url.startsWith('data:'))).toBe(true);

    await page.goto(`${secureUrl}/enterprise/system`);
    const card = page.getByTestId('console-certificate');
    await card.getByTestId('console-certificate-source').waitFor();
    expect(await card.getByTestId('console-certificate-source').textContent()).toContain(
      "Made by the appliance's own authority",
    );
    expect(await card.getByTestId('console-ca-fingerprint').textContent()).toBe(engine.consoleHttps!.caFingerprint256);
    expect(await card.getByTestId('certificate-names').textContent()).toContain('127.0.0.1');
  });

  it('takes an uploaded certificate, refusing a wrong key at its field, and goes back after a question', async () => {
    const good = testCertificate(customer, ['localhost', '127.0.0.1']);
    const other = testCertificate(customer, ['localhost']);
    const card = page.getByTestId('console-certificate');
    await card.getByTestId('console-certificate-upload').click();
    await page.locator('#console-certificate-pem:focus').waitFor();
    await page.locator('#console-certificate-pem').fill(good.chain);
    await page.locator('#console-key-pem').fill(other.key);
    await card.getByTestId('console-certificate-save').click();
    await page.locator('#console-key-pem[aria-invalid="true"]').waitFor();
    expect(await page.locator('#console-certificate-pem').getAttribute('aria-invalid')).not.toBe('true');

    await page.locator('#console-key-pem').fill(good.key);
    await card.getByTestId('console-certificate-save').click();
    await card.getByText('Uploaded', { exact: true }).waitFor();
    expect(await card.getByTestId('certificate-issuer').textContent()).toContain('Customer CA');

    await card.getByTestId('console-certificate-reset').click();
    await page.getByRole('dialog').getByRole('button', { name: "Use the appliance's own certificate" }).click();
    await card.getByText("Made by the appliance's own authority").waitFor();
    // The page goes on working over a new connection with the appliance's certificate again.
    await page.reload();
    await card.getByTestId('console-certificate-source').waitFor();
  });
});
