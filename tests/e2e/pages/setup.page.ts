import type { Page } from 'playwright-core';

/** First-run setup: the tenant administrator's e-mail and password. */
export class SetupPage {
  constructor(readonly page: Page) {}

  async fill(email: string, password: string, confirm = password): Promise<void> {
    await this.page.getByLabel('E-mail').fill(email);
    await this.page.locator('#setup-password').fill(password);
    await this.page.locator('#setup-confirm').fill(confirm);
  }

  ruleMet(rule: 'length' | 'classes'): Promise<boolean> {
    return this.page.getByTestId(`rule-${rule}`).evaluate((el) => el.classList.contains('ok'));
  }

  async submit(): Promise<void> {
    await this.page.getByRole('button', { name: 'Create administrator and sign in' }).click();
  }
}
