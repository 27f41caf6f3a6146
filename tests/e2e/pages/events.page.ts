import type { Page } from 'playwright-core';
import type { ShellPage } from './shell.page.ts';

/** Configuration Management > Event management: the list and the event editor (new / edit / view). */
export class EventsPage {
  constructor(
    readonly page: Page,
    readonly shell: ShellPage,
  ) {}

  async open(): Promise<void> {
    await this.shell.openMenu('Configuration Management', 'Event Management');
    await this.page.waitForURL(/\/config\/events$/);
    await this.page.locator('[data-testid="events-table"], [data-testid="events-empty"]').first().waitFor();
  }

  row(name: string) {
    return this.page.locator(`tr[data-event="${name}"]`);
  }

  /** Flips an event's status switch in the list. */
  async toggle(name: string): Promise<void> {
    await this.row(name).locator('label.bx--toggle-input__label').click();
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

  error() {
    return this.page.getByTestId('operation-error');
  }

  // The editor

  form() {
    return this.page.getByTestId('event-form');
  }

  /** Ticks a log source by the text it is listed with. */
  async chooseSource(text: string): Promise<void> {
    await this.page.getByTestId('source-picker').locator('label').filter({ hasText: text }).click();
  }

  async condition(index: number, c: { field: string; filter?: 'string' | 'number'; mode: string; value: string }) {
    await this.page.locator(`#condition-${index}-field`).selectOption(c.field);
    if (c.filter) await this.page.locator(`#condition-${index}-filter`).selectOption(c.filter);
    await this.page.locator(`#condition-${index}-mode`).selectOption(c.mode);
    await this.page.locator(`#condition-${index}-value`).fill(c.value);
  }

  relation() {
    return this.page.locator('#event-relation');
  }

  /** The message under an input, found from the input's id. */
  fieldError(id: string) {
    return this.page
      .locator(`#${id}`)
      .locator('xpath=ancestor::div[contains(@class,"bx--form-item")][1]')
      .locator('.bx--form-requirement');
  }

  async save(): Promise<void> {
    await this.page.getByTestId('save-event').click();
  }

  /** Chooses a single event's trigger type tile. */
  async chooseKind(kind: 'simple' | 'count' | 'distinct' | 'average' | 'cep'): Promise<void> {
    await this.page.locator(`label[for="event-kind-${kind}"]`).click();
  }
}
