import type { Page } from 'playwright-core';

/** Rule Management > Active bans: filters, the list with its countdowns, lift and add by hand. */
export class BansPage {
  constructor(readonly page: Page) {}

  async open(origin: string, query = ''): Promise<void> {
    await this.page.goto(`${origin}/rules/bans${query ? `?${query}` : ''}`);
    await this.page.getByTestId('ban-totals').waitFor();
  }

  row(value: string) {
    return this.page.locator(`tr[data-ban="${value}"]`);
  }

  totals() {
    return this.page.getByTestId('ban-totals');
  }

  async lift(value: string): Promise<void> {
    await this.row(value).getByTestId('lift-ban').click();
    const dialog = this.page.getByRole('dialog', { name: 'Lift ban' });
    await dialog.getByRole('button', { name: 'Lift', exact: true }).click();
    await this.row(value).waitFor({ state: 'detached' });
  }

  /** Seconds left on a ban's countdown (mm:ss or h:mm:ss). */
  async remainingSeconds(value: string): Promise<number> {
    const text = (await this.row(value).getByTestId('ban-remaining').textContent())?.trim() ?? '';
    return text
      .split(':')
      .map(Number)
      .reduce((total, part) => total * 60 + part, 0);
  }
}
