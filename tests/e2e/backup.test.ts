/**
 * Enterprise Management > Backup in Chromium (issue 19 item 3): an administrator downloads a
 * backup with a passphrase typed twice, then restores it: a wrong passphrase is refused in words,
 * the right one is checked and staged for the next start.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { readHeader } from '#engine/backup';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { firstRunConsole, launchChromium, RequestLog } from './support/browser.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const PASSPHRASE = 'a long backup passphrase';

describe('backup and restore in the console', () => {
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let dir: string;
  const requests = new RequestLog();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rampart-e2e-backup-'));
    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir, ruleSetLocations: [] });
    browser = await launchChromium();
    ({ context, page } = await firstRunConsole(browser, engine.url, requests, 'admin@rampart.test'));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
    await rm(join(engine.dataDir, '..', `.${engine.dataDir.split('/').pop() ?? ''}.restore-pending`), {
      recursive: true,
      force: true,
    });
    await rm(dir, { recursive: true, force: true });
  });

  it('downloads a backup encrypted with the passphrase, and stages its restore', async () => {
    await page.goto(`${engine.url}/enterprise/info`);
    await page.locator('a[href="/enterprise/backup"]').first().click();
    await page.waitForURL(`${engine.url}/enterprise/backup`);

    const create = page.getByTestId('backup-create');
    await create.locator('#backup-passphrase').fill(PASSPHRASE);
    await create.locator('#backup-confirm').fill(`${PASSPHRASE}!`);
    await page.getByTestId('backup-download').click();
    expect(await create.textContent()).toContain('The two passphrases differ.');
    await create.locator('#backup-confirm').fill(PASSPHRASE);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('backup-download').click()]);
    expect(download.suggestedFilename()).toMatch(/^rampart-backup-.*\.rbk$/);
    const file = join(dir, download.suggestedFilename());
    await download.saveAs(file);
    expect((await readHeader(file)).header).toMatchObject({ format: 1, logs: false });
    expect((await readFile(file)).includes(Buffer.from('admin@rampart.test'))).toBe(false);
    expect(await page.getByTestId('operation-result').textContent()).toContain('downloaded');

    const restore = page.getByTestId('backup-restore');
    await restore.locator('input[type="file"]').setInputFiles(file);
    expect(await page.getByTestId('restore-file').textContent()).toContain('.rbk');
    await restore.locator('#restore-passphrase').fill('not the passphrase');
    await page.getByTestId('restore-submit').click();
    await page.getByText('Wrong passphrase, or the archive is damaged.').waitFor();

    await restore.locator('#restore-passphrase').fill(PASSPHRASE);
    await page.getByTestId('restore-submit').click();
    await page.getByTestId('restore-staged').waitFor();
    expect(await page.getByTestId('restore-staged').textContent()).toContain('restart Rampart to finish the restore');
    expect(requests.outside(engine.url)).toEqual([]);
  });
});
