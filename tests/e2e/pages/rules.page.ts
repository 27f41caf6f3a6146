import type { Page } from 'playwright-core';
import type { ShellPage } from './shell.page.ts';

/** Rule Management: the protected site, the basic rules tab (rule set, groups, custom rules) and its modals. */
export class RulesPage {
  constructor(
    readonly page: Page,
    readonly shell: ShellPage,
  ) {}

  async open(): Promise<void> {
    await this.page
      .locator('.bx--side-nav__navigation')
      .getByRole('link', { name: 'Rule Management', exact: true })
      .click();
    await this.page.waitForURL(/\/rules\?site=site_/);
    await this.groupRows().first().waitFor();
  }

  async chooseSite(label: string): Promise<void> {
    await this.page.selectOption('#rules-site', { label });
    await this.groupRows().first().waitFor();
  }

  // The rule set

  ruleSet() {
    return this.page.getByTestId('rule-set');
  }

  // The preset groups

  groupRows() {
    return this.page.locator('[data-testid="groups-table"] tr[data-group]');
  }

  group(id: string) {
    return this.page.locator(`tr[data-group="${id}"]`);
  }

  /** The number of rules the group's level enables, as the link shows it. */
  async enabledCount(id: string): Promise<number> {
    return Number((await this.group(id).getByTestId('group-count').textContent())?.trim());
  }

  async setLevel(id: string, level: 'loose' | 'normal' | 'strict' | 'very_strict'): Promise<void> {
    await this.page.selectOption(`#group-${id}-level`, level);
  }

  async setGroupEnabled(id: string, on: boolean): Promise<void> {
    await this.setSwitch(`group-${id}-enabled`, on);
  }

  /** Waits until the row's save is over (its controls are enabled again). */
  async settled(id: string): Promise<void> {
    await this.page.locator(`#group-${id}-level:enabled`).waitFor();
  }

  rulesModal() {
    return this.page.getByRole('dialog').filter({ has: this.page.getByTestId('group-rules-summary') });
  }

  // Custom rules

  customRow(name: string) {
    return this.page.locator(`[data-testid="custom-table"] tr[data-rule="${name}"]`);
  }

  ruleForm() {
    return this.page.getByRole('dialog').filter({ has: this.page.locator('#custom-name') });
  }

  async chooseLocation(location: string): Promise<void> {
    await this.page.selectOption('#custom-location', location);
  }

  fieldError(id: string) {
    return this.page
      .locator(`#${id}`)
      .locator('xpath=ancestor::div[contains(@class,"bx--form-item")][1]')
      .locator('.bx--form-requirement');
  }

  /** Turns a Carbon toggle on or off by its input id. */
  async setSwitch(id: string, on: boolean): Promise<void> {
    const input = this.page.locator(`#${id}`);
    if ((await input.isChecked()) !== on) await this.page.locator(`label[for="${id}"]`).last().click();
  }

  result() {
    return this.page.getByTestId('operation-result');
  }
}
