import type { Locator, Page } from 'playwright-core';

/** The Security Overview: its controls, counters, charts and rankings. */
export class OverviewPage {
  constructor(readonly page: Page) {}

  async open(origin: string, query = ''): Promise<void> {
    await this.page.goto(`${origin}/overview${query ? `?${query}` : ''}`);
    await this.settled();
  }

  /** Waits until the counters are shown and no read is under way. */
  async settled(): Promise<void> {
    await this.page.getByTestId('overview-counters').waitFor();
    await this.page.getByTestId('overview-span').waitFor();
    await this.page.locator('[data-testid="overview-span"][aria-busy="false"]').waitFor();
  }

  /** A counter's number (digits only, grouping separators dropped). */
  async counter(testid: string): Promise<number> {
    const text = (await this.page.getByTestId(testid).getByTestId('counter-value').textContent()) ?? '';
    return Number(text.replace(/[^\d]/g, ''));
  }

  chart(testid: string): Locator {
    return this.page.getByTestId(testid);
  }

  /**
   * Clicks the first slice of a pie: the pies are rings centred at 30 % of the width, 40 % to 70 %
   * of half the smaller side, drawn clockwise from 12 o'clock, largest first.
   */
  async clickFirstSlice(testid: string): Promise<void> {
    await this.chart(testid).scrollIntoViewIfNeeded();
    const box = await this.chart(testid).boundingBox();
    if (!box) throw new Error(`${testid} is not shown`);
    const r = (0.55 * Math.min(box.width, box.height)) / 2;
    const angle = (10 * Math.PI) / 180;
    await this.page.mouse.click(
      box.x + box.width * 0.3 + r * Math.sin(angle),
      box.y + box.height / 2 - r * Math.cos(angle),
    );
  }

  /** Applies a state with the toolbar: the site (B), a quick range or a custom one, then Search. */
  async apply(choice: { site?: string; range?: string; from?: string; to?: string }): Promise<void> {
    if (choice.site !== undefined) await this.page.locator('#overview-site').selectOption(choice.site);
    if (choice.range !== undefined) await this.page.locator('#overview-range').selectOption(choice.range);
    if (choice.from !== undefined) await this.page.locator('#overview-from').fill(choice.from);
    if (choice.to !== undefined) await this.page.locator('#overview-to').fill(choice.to);
    const before = await this.page.getByTestId('overview-span').getAttribute('data-load');
    await this.page.getByTestId('overview-search').click();
    await this.page.locator(`[data-testid="overview-span"][aria-busy="false"]:not([data-load="${before}"])`).waitFor();
  }
}
