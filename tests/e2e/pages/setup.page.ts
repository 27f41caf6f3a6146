import type { Page } from 'playwright-core';

/** First-run setup: the tenant administrator's e-mail and password. */
export class SetupPage {
  constructor(readonly page: Page) {}

  async fill(email: string, password: string, confirm = password): Promise<void> {
    await this.page.getByLabel('E-mail').fill(email);
    await this.page.locator('#setup-password').fill(password);
    await this.page.locator('#setup-confirm').fill(confirm);
  }

  async ruleMet(rule: 'length' | 'classes'): Promise<boolean> {
    const classes = (await this.page.getByTestId(`rule-${rule}`).getAttribute('class')) ?? '';
    return classes.split(/\s+/).includes('ok');
  }

  async submit(): Promise<void> {
    await this.page.getByRole('button', { name: 'Create administrator and sign in' }).click();
  }
}
