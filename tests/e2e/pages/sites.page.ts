import type { Page } from 'playwright-core';
import type { ShellPage } from './shell.page.ts';

/** Configuration Management > Site Management (B) / Site Configuration (A), its editor and global configuration. */
export class SitesPage {
  constructor(
    readonly page: Page,
    readonly shell: ShellPage,
  ) {}

  async open(menu: 'Site Management' | 'Site Configuration'): Promise<void> {
    await this.shell.openMenu('Configuration Management', menu);
    await this.page.waitForURL(/\/config\/sites(\?.*)?$/);
    await this.page.getByTestId('sites-total').filter({ hasText: /\d/ }).waitFor();
  }

  row(name: string) {
    return this.page.locator(`tr[data-site="${name}"]`);
  }

  rows() {
    return this.page.locator('tr[data-site]');
  }

  async operate(name: string, operation: string): Promise<void> {
    await this.row(name)
      .getByRole('button', { name: /More operations/ })
      .click();
    await this.page.getByRole('menuitem', { name: operation, exact: true }).click();
  }

  async edit(name: string): Promise<void> {
    await this.row(name).getByTestId('edit-site').click();
    await this.page.waitForURL(/\/config\/sites\/site_[a-z0-9]+$/);
    await this.page.getByTestId('site-form').waitFor();
  }

  result() {
    return this.page.getByTestId('operation-result');
  }

  // The editor

  async choose(group: 'run-mode' | 'access-method' | 'list-mode', value: string): Promise<void> {
    await this.page.locator(`label[for="${group}-${value}"]`).click();
  }

  /** Turns a Carbon toggle on or off by its input id. */
  async setSwitch(id: string, on: boolean): Promise<void> {
    const input = this.page.locator(`#${id}`);
    if ((await input.isChecked()) !== on) await this.page.locator(`label[for="${id}"]`).last().click();
    if ((await input.isChecked()) !== on) throw new Error(`switch ${id} did not turn ${on ? 'on' : 'off'}`);
  }

  switchState(id: string): Promise<boolean> {
    return this.page.locator(`#${id}`).isChecked();
  }

  lines(id: string) {
    return this.page.locator(`#${id}`);
  }

  linesError(id: string) {
    return this.page.getByTestId(`lines-${id}`).getByTestId('lines-error');
  }

  gutterError(id: string) {
    return this.page.getByTestId(`lines-${id}`).locator('.gutter span.error');
  }

  async save(): Promise<void> {
    await this.page.getByTestId('save-site').click();
  }

  async saveAndReturn(): Promise<void> {
    await this.save();
    await this.page.waitForURL(/\/config\/sites$/);
    await this.result().waitFor();
  }
}
