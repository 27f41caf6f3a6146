/**
 * The false-positive workflow (issue 18, item 3) against the real engine with Debian's Core Rule
 * Set: a request that a CRS rule blocks on one parameter, sent through the gateway's verdict
 * endpoint, is found on the search page; "Create exception" proposes the narrowest exclusion (this
 * rule, this parameter, this path), counts the stored requests it would have let through and saves
 * it with a reason; the rules tab lists it; the same request then passes (the same parameter on
 * another path is still blocked); removed, the request is blocked again. A rule is switched off and
 * on in its group's list, and the site's allowed content types are changed and restored.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { readConfigDocument } from '#engine/config-store';
import { TokenService } from '#engine/probe';
import { systemClock } from '#engine/shared';
import { startTestEngine, type TestEngine } from '../support/engine.ts';
import { missing } from '../support/crs-dirs.ts';
import { skipAllWithout } from '../support/skip.ts';
import { consoleApi, launchChromium, newContext, RequestLog, STRONG_PASSWORD } from './support/browser.ts';
import { gatewayGuard } from './support/gateway.ts';
import { SetupPage } from './pages/setup.page.ts';
import { ShellPage } from './pages/shell.page.ts';
import { RulesPage } from './pages/rules.page.ts';
import { LogSearchPage } from './pages/log-search.page.ts';
import { WafExclusionsPage } from './pages/waf-exclusions.page.ts';

const rendererDir = fileURLToPath(new URL('../../dist/renderer', import.meta.url));
const screenshotDir = fileURLToPath(new URL('../../dist/screenshots', import.meta.url));
const EMAIL = 'secops@rampart.test';

/** CRS 931100 (a URL with an IP address as a parameter value, paranoia level 1) alone fires on it. */
const RFI_RULE = 931100;
const RFI_PATH = '/fetch';
const RFI_URI = `${RFI_PATH}?url=http://192.0.2.1/feed.xml`;
/** A rule of the same group that runs at the loosest level, switched off and on in the group's list. */
const SWITCHED_RULE = 931120;
/** A content type neither CRS's list nor Rampart's default allows (rule 920420). */
const OWN_TYPE = 'application/x-rampart-test';

interface ExclusionJson {
  id: string;
  ruleId: number;
  target: string;
  path: string;
  reason: string;
  createdBy: string;
}

describe('the false-positive workflow, edition B', () => {
  skipAllWithout(missing.crs3);
  let engine: TestEngine;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let rules: RulesPage;
  let logs: LogSearchPage;
  let workflow: WafExclusionsPage;
  const requests = new RequestLog();
  let site = '';
  let key = '';
  let tokens: TokenService;
  let sent = 0;

  const api = <T>(method: 'GET' | 'POST' | 'PUT', path: string, data?: unknown): Promise<T> =>
    consoleApi<T>(page, engine.url, method, path, data);

  const exclusions = async (): Promise<ExclusionJson[]> =>
    (await api<{ items: ExclusionJson[] }>('GET', `/sites/${site}/waf-exclusions`)).items;

  /**
   * One request through the gateway's verdict endpoint (nginx auth_request), from a browser with a
   * valid token, each from its own address (a plugin gateway keeps refusing an address the basic
   * rules blocked for a while): its guard status.
   */
  async function verdict(uri: string, headers: Record<string, string> = {}): Promise<string> {
    const ip = `198.51.100.${++sent}`;
    const device = tokens.newDeviceId().deviceId;
    const token = tokens.issue({ siteId: site, deviceId: device, ttlSeconds: 3600, ip, bot: false });
    return gatewayGuard(engine.gatewayUrl, { site, key, uri, ip, requestId: `req-${sent}`, token, headers });
  }

  beforeAll(async () => {
    if (missing.crs3) return;
    await mkdir(screenshotDir, { recursive: true });
    engine = await startTestEngine({ RAMPART_EDITION: 'B' }, { rendererDir });
    browser = await launchChromium();
    context = await newContext(browser, requests);
    page = await context.newPage();
    await page.goto(`${engine.url}/`);
    await page.waitForURL(/\/setup$/);
    const setup = new SetupPage(page);
    await setup.fill(EMAIL, STRONG_PASSWORD);
    await setup.submit();
    await page.waitForURL(`${engine.url}/`);
    site = (
      await api<{ id: string }>('POST', '/sites', {
        name: 'Shop',
        domain: 'shop.example.com',
        accessMethod: 'plugin',
        runMode: 'block',
      })
    ).id;
    key = (await api<{ accessKey: string }>('GET', '/site-global')).accessKey;
    const config = (await readConfigDocument(engine.dataDir)) as unknown as { secrets: { tokenKey: string } };
    tokens = new TokenService(Buffer.from(config.secrets.tokenKey, 'base64url'), systemClock);
    rules = new RulesPage(page, new ShellPage(page));
    logs = new LogSearchPage(page);
    workflow = new WafExclusionsPage(page);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await engine?.dispose();
  });

  it('creates an exception from a blocked record, after counting what it would have let through', async () => {
    expect(await verdict(RFI_URI)).toBe('OWASP');
    await engine.logStore.flush();

    await logs.open(engine.url, `log=${encodeURIComponent(`access:${site}`)}`);
    await logs.settle();
    await logs.rows().first().getByTestId('expand-row').click();
    await workflow.exceptionAction().click();
    const dialog = workflow.exceptionDialog();
    const proposal = workflow.proposal(RFI_RULE);
    await proposal.waitFor();
    expect(await dialog.getByTestId('proposal').count()).toBe(1);
    expect(await dialog.textContent()).toContain(`GET ${RFI_URI}`);
    expect(await proposal.getByTestId('proposal-target').textContent()).toBe('parameter url');
    await proposal.getByTestId('proposal-message').getByText('Remote File Inclusion').waitFor();
    expect(await page.locator('#exception-path-0').inputValue()).toBe(RFI_PATH);
    expect(await page.locator('#exception-path-0-scope-exact').isChecked()).toBe(true);

    expect(await workflow.previewCleared(RFI_RULE)).toBeGreaterThanOrEqual(1);
    expect(await proposal.getByTestId('proposal-preview').textContent()).toMatch(
      new RegExp(
        `Of \\d+ stored requests? on which rule ${RFI_RULE} fired in the last 7 days, \\d+ would have passed \\(\\d+ of them were blocked\\)`,
      ),
    );

    // Every path: the count is of the same records; then back to this path only.
    await page.locator('label[for="exception-path-0-scope-every"]').click();
    expect(await page.locator('#exception-path-0').isDisabled()).toBe(true);
    await proposal.getByText('Applies on every path.').waitFor();
    await page.locator('label[for="exception-path-0-scope-exact"]').click();
    await proposal.getByText(`Applies on path ${RFI_PATH}.`).waitFor();

    // The reason is required: Enter in the empty field says so there, and nothing is saved.
    await page.locator('#exception-reason').press('Enter');
    await page.locator('#exception-reason[aria-invalid="true"]').waitFor();
    expect(await dialog.textContent()).toContain('Reason is required: say why the rule is wrong here.');
    expect(await exclusions()).toEqual([]);

    await page.locator('#exception-reason').fill('Our feed reader takes feed URLs by IP address');
    await page.screenshot({ path: `${screenshotDir}/create-exception-B.png` });
    await page.locator('#exception-reason').press('Enter');
    await dialog.getByTestId('exception-created').getByText('1 exception created for Shop').waitFor();
    expect(await exclusions()).toMatchObject([
      {
        ruleId: RFI_RULE,
        target: 'ARGS:url',
        path: RFI_PATH,
        reason: 'Our feed reader takes feed URLs by IP address',
        createdBy: EMAIL,
      },
    ]);
  });

  it("lists the exclusion on the site's basic rules tab, explained", async () => {
    await workflow.exceptionDialog().getByTestId('exception-rules-link').click();
    await page.waitForURL(/\/rules\?site=/);
    expect(new URL(page.url()).searchParams.get('site')).toBe(site);
    const row = workflow.exclusionRow(RFI_RULE);
    await row.waitFor();
    expect(await row.getByTestId('exclusion-message').textContent()).toContain('Remote File Inclusion');
    expect(await row.getByTestId('exclusion-target').textContent()).toBe('parameter url');
    expect(await row.getByTestId('exclusion-path').textContent()).toBe(`path ${RFI_PATH}`);
    expect(await row.getByTestId('exclusion-reason').textContent()).toBe(
      'Our feed reader takes feed URLs by IP address',
    );
    expect(await row.textContent()).toContain(EMAIL);
    await page.screenshot({ path: `${screenshotDir}/waf-exclusions-B.png`, fullPage: true });
  });

  it('lets the same request pass on that path only, and blocks it again once the exclusion is removed', async () => {
    expect(await verdict(RFI_URI)).toBe('PASS');
    expect(await verdict(`/elsewhere?url=http://192.0.2.1/feed.xml`)).toBe('OWASP');

    const row = workflow.exclusionRow(RFI_RULE);
    await row.getByTestId('remove-exclusion').click();
    const confirm = page.getByRole('dialog', { name: 'Remove exclusion' });
    expect(await confirm.textContent()).toContain(
      `Remove the exclusion of rule ${RFI_RULE} (parameter url, path ${RFI_PATH})?`,
    );
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(await exclusions()).toHaveLength(1);

    await row.getByTestId('remove-exclusion').click();
    await confirm.getByRole('button', { name: 'Remove', exact: true }).click();
    await workflow
      .exclusionsSection()
      .getByText(`Exclusion of rule ${RFI_RULE} removed: the rule applies again from the next request.`)
      .waitFor();
    await page.getByTestId('exclusions-empty').getByText('open one of them on the search page').waitFor();
    expect(await exclusions()).toEqual([]);
    expect(await verdict(RFI_URI)).toBe('OWASP');
  });

  it("switches a rule off for the site in its group's list, with a reason, and on again", async () => {
    await rules.group('006').getByTestId('group-count').click();
    const modal = rules.rulesModal();
    const rule = workflow.groupRule(SWITCHED_RULE);
    await rule.waitFor();
    expect(await rule.getByTestId('rule-state').getAttribute('data-enabled')).toBe('true');

    await rule.getByTestId('switch-off').click();
    const reason = page.locator('#switch-off-reason');
    await reason.press('Enter');
    await page.locator('#switch-off-reason[aria-invalid="true"]').waitFor();
    expect(await exclusions()).toEqual([]);
    await reason.fill('The feed proxy takes URLs ending in ?');
    await reason.press('Enter');
    await rule.getByTestId('switched-off').getByText('Switched off: The feed proxy takes URLs ending in ?').waitFor();
    expect(await rule.getByTestId('rule-state').getAttribute('data-enabled')).toBe('false');
    expect(await exclusions()).toMatchObject([{ ruleId: SWITCHED_RULE, target: '', path: '' }]);
    await page.screenshot({ path: `${screenshotDir}/group-rule-switched-off-B.png` });

    // Closed with Escape, the tab lists it among the exclusions: the whole rule, on every path.
    await page.keyboard.press('Escape');
    await modal.waitFor({ state: 'hidden' });
    const row = workflow.exclusionRow(SWITCHED_RULE);
    await row.waitFor();
    expect(await row.getByTestId('exclusion-target').textContent()).toBe('whole rule');
    expect(await row.getByTestId('exclusion-path').textContent()).toBe('every path');

    await rules.group('006').getByTestId('group-count').click();
    await rule.getByTestId('switch-on').click();
    const confirm = modal.getByTestId('switch-on-confirm');
    expect(await confirm.textContent()).toContain(`Switch rule ${SWITCHED_RULE} on again for this site?`);
    await confirm.getByTestId('switch-on-submit').click();
    await modal.getByText(`Rule ${SWITCHED_RULE} switched on again for this site.`).waitFor();
    expect(await rule.getByTestId('rule-state').getAttribute('data-enabled')).toBe('true');
    expect(await rule.getByTestId('switch-off').count()).toBe(1);
    expect(await exclusions()).toEqual([]);
    await page.keyboard.press('Escape');
    await modal.waitFor({ state: 'hidden' });
    await page.getByTestId('exclusions-empty').waitFor();
  });

  it('allows a content type for the site, refusing a line that is not one, and restores the default list', async () => {
    const typed = { 'content-type': OWN_TYPE };
    expect(await verdict('/upload', typed)).toBe('OWASP');

    const panel = workflow.contentTypes();
    expect(await workflow.contentTypesSource().textContent()).toContain("Rampart's default list");
    const field = page.locator('#content-types');
    const defaults = await field.inputValue();
    expect(defaults.split('\n')).toContain('application/json');
    expect(await panel.getByTestId('restore-content-types').isDisabled()).toBe(true);

    await field.fill(`${defaults}\ntext/plain; charset=utf-8`);
    await panel.getByTestId('save-content-types').click();
    const lines = defaults.split('\n').length + 1;
    await panel.getByTestId('lines-error').getByText(`Line ${lines}:`).waitFor();
    expect(await workflow.contentTypesSource().textContent()).toContain("Rampart's default list");

    await field.fill(`${defaults}\n${OWN_TYPE}`);
    await panel.getByTestId('lines-error').waitFor({ state: 'detached' });
    await panel.getByTestId('save-content-types').click();
    await panel.getByTestId('operation-result').getByText(`The site now allows ${lines} content types.`).waitFor();
    expect(await workflow.contentTypesSource().textContent()).toContain("This site's own list");
    const stored = await api<{ types: string[]; isDefault: boolean }>(
      'GET',
      `/sites/${site}/basic-rules/content-types`,
    );
    expect(stored.isDefault).toBe(false);
    expect(stored.types).toContain(OWN_TYPE);
    expect(await verdict('/upload', typed)).toBe('PASS');

    await panel.getByTestId('restore-content-types').click();
    const confirm = page.getByRole('dialog', { name: 'Restore the default list' });
    await confirm.getByRole('button', { name: 'Restore the default' }).click();
    await panel.getByTestId('operation-result').getByText("The site allows Rampart's default list").waitFor();
    expect(await workflow.contentTypesSource().textContent()).toContain("Rampart's default list");
    expect(await field.inputValue()).toBe(defaults);
    expect(await verdict('/upload', typed)).toBe('OWASP');
  });

  it('switches the second opinion on and off, and a level-2 SQL rule on prose stops blocking while it is on', async () => {
    const prose = '/search?q=select+the+best+option+from+the+list';
    // At strict every match counts as CRS writes it (at normal the level's own tokenizer check clears it).
    await api('PUT', `/sites/${site}/basic-rules/groups/008`, { enabled: true, level: 'strict' });
    try {
      expect(await verdict(prose)).toBe('OWASP');
      const panel = workflow.secondOpinion();
      await panel.scrollIntoViewIfNeeded();
      expect(await page.locator('#second-opinion-toggle').isChecked()).toBe(false);

      await workflow.secondOpinionSwitch().click();
      await panel.getByTestId('operation-result').getByText('Second opinion on').waitFor();
      expect(await api<{ enabled: boolean }>('GET', `/sites/${site}/basic-rules/second-opinion`)).toEqual({
        enabled: true,
      });
      expect(await verdict(prose)).toBe('PASS');
      expect(await verdict("/item?id=1'%20OR%20'1'='1")).toBe('OWASP');

      await workflow.secondOpinionSwitch().click();
      await panel.getByTestId('operation-result').getByText('Second opinion off').waitFor();
      expect(await page.locator('#second-opinion-toggle').isChecked()).toBe(false);
      expect(await verdict(prose)).toBe('OWASP');
    } finally {
      await api('PUT', `/sites/${site}/basic-rules/groups/008`, { enabled: true, level: 'loose' });
    }
  });

  it('never sends a request outside the engine origin', () => {
    expect(requests.outside(engine.url)).toEqual([]);
  });
});
