/**
 * Operations a page runs one at a time on its rows: whether one is under way, and what the last came
 * to (a page's own outcome type; a failure becomes the outcome `failed` makes of its message).
 */
import { errorMessage } from './errors.ts';

export class Operations<O> {
  pending = $state(false);
  outcome = $state<O | null>(null);
  readonly #failed: (message: string) => O;

  constructor(failed: (message: string) => O, outcome: O | null = null) {
    this.#failed = failed;
    this.outcome = outcome;
  }

  /** Runs `action` with the last outcome cleared; an error it throws becomes the outcome. */
  async run(action: () => Promise<void>): Promise<void> {
    this.pending = true;
    this.outcome = null;
    try {
      await action();
    } catch (error) {
      this.outcome = this.#failed(errorMessage(error));
    } finally {
      this.pending = false;
    }
  }
}
