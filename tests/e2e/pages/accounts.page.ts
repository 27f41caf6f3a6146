import type { Page } from 'playwright-core';
import type { ShellPage } from './shell.page.ts';

/** Enterprise Management > Accounts. */
export class AccountsPage {
  constructor(
    readonly page: Page,
    readonly shell: ShellPage,
  ) {}

  async open(): Promise<void> {
    await this.shell.openMenu('Enterprise Management', 'Accounts');
    await this.page.getByTestId('accounts-table').waitFor();
  }

  row(email: string) {
    return this.page.locator(`tr[data-account="${email}"]`);
  }

  async create(email: string, role: 'Administrator' | 'User' | 'Guest'): Promise<void> {
    await this.page.getByRole('button', { name: 'Create account' }).click();
    const modal = this.page.getByRole('dialog', { name: 'Create account' });
    await modal.getByText(role, { exact: false }).first().click();
    await modal.getByLabel('E-mail').fill(email);
    await modal.getByLabel('E-mail').press('Enter');
    await this.page.getByTestId('create-account-modal').waitFor({ state: 'hidden' });
    await this.row(email).waitFor();
  }

  deliveryNotice() {
    return this.page.getByTestId('delivery-notice');
  }

  deliveryLink() {
    return this.page.getByTestId('delivery-link').locator('code');
  }

  async operate(email: string, operation: string): Promise<void> {
    await this.row(email)
      .getByRole('button', { name: /More operations/ })
      .click();
    await this.page.getByRole('menuitem', { name: operation }).click();
  }
}
