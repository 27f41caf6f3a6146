import { expect } from 'vitest';
import type { Page } from 'playwright-core';

/** Log Management > Search and Enterprise Management > Log Storage. */
export class LogSearchPage {
  constructor(readonly page: Page) {}

  async open(origin: string, query = ''): Promise<void> {
    await this.page.goto(`${origin}/logs/search${query ? `?${query}` : ''}`);
    await this.page.getByTestId('log-select').waitFor();
  }

  logSelect() {
    return this.page.locator('#log-select');
  }

  async pickLog(log: string): Promise<void> {
    await this.searching(() => this.logSelect().selectOption(log));
    expect(new URL(this.page.url()).searchParams.get('log')).toBe(log);
  }

  /** Waits until no search is under way. */
  async settle(): Promise<void> {
    await this.page.locator('[data-testid="search-results"][aria-busy="false"]').waitFor();
  }

  /**
   * Runs an action that starts a new search, and waits for that search to answer; `fresh`: the action
   * loads the page anew (a reload, a link from another page), so its searches count from zero.
   */
  async searching(action: () => Promise<unknown>, { fresh = false } = {}): Promise<void> {
    const results = this.page.getByTestId('search-results');
    const before = fresh || (await results.count()) === 0 ? 0 : Number(await results.getAttribute('data-search'));
    await action();
    // Searches are counted up from 1 on each page load, so a new one is any other number, settled.
    await this.page
      .locator(`[data-testid="search-results"][aria-busy="false"]:not([data-search="${before}"])`)
      .waitFor();
  }

  hitCount() {
    return this.page.getByTestId('hit-count');
  }

  async hits(): Promise<number> {
    await this.settle();
    await this.hitCount().waitFor();
    return Number(/[\d,]+/.exec((await this.hitCount().textContent()) ?? '')?.[0]?.replace(/,/g, '') ?? NaN);
  }

  async addFilter(field: string, op: string, value: string): Promise<void> {
    await this.page.getByTestId('add-filter').click();
    const modal = this.page.getByRole('dialog', { name: 'Add filter' });
    await modal.locator('#pill-field').fill(field);
    await modal.locator('#pill-op').selectOption(op);
    await modal.locator('#pill-value').fill(value);
    await this.searching(() => modal.getByRole('button', { name: 'Save filter' }).click());
    await modal.waitFor({ state: 'hidden' });
  }

  pills() {
    return this.page.getByTestId('pill');
  }

  async pillAction(index: number, action: string): Promise<void> {
    await this.pills()
      .nth(index)
      .getByRole('button', { name: /Filter actions/ })
      .click();
    await this.page.getByRole('menuitem', { name: action, exact: true }).click();
    await this.settle();
  }

  async quickSelect(range: string): Promise<void> {
    await this.page.getByTestId('time-picker').click();
    await this.searching(() => this.page.getByTestId(`quick-${range}`).click());
  }

  /** Drags across the histogram from one fraction of its plot's width to another. */
  async zoom(fromFraction: number, toFraction: number): Promise<void> {
    const box = await this.page.getByTestId('log-histogram').boundingBox();
    if (!box) throw new Error('no histogram');
    // The plot sits inside the chart's grid (48 px left, 16 px right, 12 px top, 28 px bottom).
    const left = box.x + 48;
    const width = box.width - 64;
    const y = box.y + 12 + (box.height - 40) / 2;
    await this.page.mouse.move(left + width * fromFraction, y);
    await this.page.mouse.down();
    await this.page.mouse.move(left + width * ((fromFraction + toFraction) / 2), y, { steps: 5 });
    await this.page.mouse.move(left + width * toFraction, y, { steps: 5 });
    await this.searching(() => this.page.mouse.up());
    expect(new URL(this.page.url()).searchParams.get('range')).toMatch(/^\d+~\d+$/);
  }

  rows() {
    return this.page.getByTestId('result-row');
  }

  async query(text: string): Promise<void> {
    await this.page.getByTestId('log-query').fill(text);
    await this.searching(() => this.page.getByTestId('log-query').press('Enter'));
  }
}
