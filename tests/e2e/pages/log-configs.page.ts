import type { Download, Page } from 'playwright-core';
import type { ShellPage } from './shell.page.ts';

/** Configuration Management > Log Configuration: the list, the editor (new / edit / view) and its panels. */
export class LogConfigsPage {
  constructor(
    readonly page: Page,
    readonly shell: ShellPage,
  ) {}

  async open(): Promise<void> {
    await this.shell.openMenu('Configuration Management', 'Log Configuration');
    await this.page.waitForURL(/\/config\/log-config$/);
    await this.page.locator('[data-testid="log-configs-table"], [data-testid="log-configs-empty"]').first().waitFor();
  }

  row(name: string) {
    return this.page.locator(`tr[data-log-config="${name}"]`);
  }

  async operate(name: string, operation: string): Promise<void> {
    await this.row(name)
      .getByRole('button', { name: /More operations/ })
      .click();
    await this.page.getByRole('menuitem', { name: operation, exact: true }).click();
  }

  result() {
    return this.page.getByTestId('operation-result');
  }

  // The editor

  form() {
    return this.page.getByTestId('log-config-form');
  }

  area(index: number) {
    return this.page.getByTestId('field-area').nth(index);
  }

  /** Adds a regex extraction area and fills it. */
  async addRegexField(field: { name: string; regex: string; group: number; type?: string; required?: boolean }) {
    const index = await this.page.getByTestId('field-area').count();
    await this.page.getByTestId('add-regex').click();
    await this.page.locator(`#field-${index}-name`).fill(field.name);
    await this.page.locator(`#field-${index}-regex`).fill(field.regex);
    await this.page.locator(`#field-${index}-group`).fill(String(field.group));
    if (field.type) await this.page.locator(`#field-${index}-type`).selectOption(field.type);
    if (field.required) await this.page.locator(`label[for="field-${index}-required"]`).click();
  }

  async setSample(text: string): Promise<void> {
    await this.page.locator('#log-config-sample').fill(text);
  }

  preview() {
    return this.page.getByTestId('sample-preview');
  }

  /** The value the preview's parsed table shows for a field (waits for the table). */
  previewValue(field: string) {
    return this.page.locator(`[data-testid="preview-record"] tr[data-field="${field}"] [data-testid="preview-value"]`);
  }

  failureText() {
    return this.page.getByTestId('preview-failure-text');
  }

  async save(): Promise<void> {
    await this.page.getByTestId('save-log-config').click();
  }

  /** The message Carbon shows under an input (its invalid text). */
  invalidText(id: string) {
    return this.page
      .locator(`#${id}`)
      .locator('xpath=ancestor::div[contains(@class,"bx--form-item")][1]')
      .locator('.bx--form-requirement');
  }

  async downloadCertificate(): Promise<Download> {
    const [file] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByTestId('download-certificate').click(),
    ]);
    return file;
  }
}
