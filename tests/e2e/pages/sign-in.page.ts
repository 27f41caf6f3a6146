import type { Page } from 'playwright-core';

export class SignInPage {
  constructor(readonly page: Page) {}

  async open(baseUrl: string): Promise<void> {
    await this.page.goto(`${baseUrl}/`);
    await this.page.waitForURL(/\/sign-in/);
  }

  async signIn(email: string, password: string): Promise<void> {
    await this.page.locator('#sign-in-email').fill(email);
    await this.page.locator('#sign-in-password').fill(password);
    await this.page.locator('#sign-in-password').press('Enter');
  }

  heading() {
    return this.page.getByRole('heading', { name: 'Sign in' });
  }

  formError() {
    return this.page.getByTestId('form-error');
  }
}
