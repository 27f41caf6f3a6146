import type { Page } from 'playwright-core';

/** /activate and /reset-password: the pages an e-mailed link opens. */
export class LinkPage {
  constructor(readonly page: Page) {}

  email() {
    return this.page.getByTestId('link-email');
  }

  async setPassword(password: string): Promise<void> {
    await this.page.locator('#link-password').fill(password);
    await this.page.locator('#link-confirm').fill(password);
    await this.page.locator('#link-confirm').press('Enter');
  }
}
