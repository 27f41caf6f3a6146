import type { Page } from 'playwright-core';

/**
 * The false-positive workflow: "Create exception" on a record of the log search, and on the rules
 * page's basic rules tab the site's rule exclusions, the suggested ones, the allowed content types,
 * and the switches of single rules in a group's list.
 */
export class WafExclusionsPage {
  constructor(readonly page: Page) {}

  // The search page

  exceptionAction() {
    return this.page.getByTestId('record-detail').getByTestId('create-exception');
  }

  exceptionDialog() {
    return this.page.getByRole('dialog', { name: 'Create exception' });
  }

  proposal(ruleId: number) {
    return this.exceptionDialog().locator(`[data-testid="proposal"][data-rule="${ruleId}"]`);
  }

  /** The number of stored requests the proposal's preview says would have passed, once it is counted. */
  async previewCleared(ruleId: number): Promise<number> {
    const counted = this.proposal(ruleId).locator('[data-testid="proposal-preview"] [data-cleared]');
    await counted.waitFor();
    return Number(await counted.getAttribute('data-cleared'));
  }

  // The rules page

  exclusionsSection() {
    return this.page.getByTestId('waf-exclusions');
  }

  exclusionRow(ruleId: number) {
    return this.page.locator(`[data-testid="exclusions-table"] tr[data-rule="${ruleId}"]`);
  }

  /** The add-exclusion form, opened by hand or from a suggestion. */
  exclusionForm() {
    return this.page.getByRole('dialog', { name: 'Add exclusion' });
  }

  /** The number of stored requests the form's preview says would have passed, once it is counted. */
  async formPreviewCleared(): Promise<number> {
    const counted = this.exclusionForm().locator('[data-testid="exclusion-preview"] [data-cleared]');
    await counted.waitFor();
    return Number(await counted.getAttribute('data-cleared'));
  }

  suggestions() {
    return this.page.getByTestId('exclusion-suggestions');
  }

  /** Reads the site's suggestions over a period and waits for the answer (a table, an empty state or an error). */
  async lookForSuggestions(period: '24h' | '7d' | '30d' = '7d'): Promise<void> {
    await this.page.selectOption('#suggestions-period', period);
    await this.suggestions().getByTestId('suggestions-look').click();
    await this.suggestions()
      .locator(
        '[data-testid="suggestions-table"], [data-testid="suggestions-empty"], [data-testid="suggestions-error"]',
      )
      .first()
      .waitFor();
  }

  suggestionRows() {
    return this.page.locator('[data-testid="suggestions-table"] tbody tr');
  }

  suggestionRow(ruleId: number, path: string) {
    return this.page.locator(`[data-testid="suggestions-table"] tr[data-rule="${ruleId}"][data-path="${path}"]`);
  }

  contentTypes() {
    return this.page.getByTestId('content-types');
  }

  contentTypesSource() {
    return this.page.getByTestId('content-types-source');
  }

  secondOpinion() {
    return this.page.getByTestId('second-opinion');
  }

  /** The second opinion's switch (Carbon's toggle: its label is what a click reaches). */
  secondOpinionSwitch() {
    return this.page.locator('label[for="second-opinion-toggle"]');
  }

  /** The row of a rule in the open group's list. */
  groupRule(ruleId: number) {
    return this.page.locator(`[data-testid="group-rules"] tr[data-rule="${ruleId}"]`);
  }
}
