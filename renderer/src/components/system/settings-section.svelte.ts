/**
 * A System page section's state: the engine's view of one setting (loaded, with the reason when it
 * did not load), what the last action came to, and, for a form, the save flow: the form's own check
 * once submitted, the engine's refusals placed at the fields they name (the rest above the form), and
 * "use environment settings". Each action answers the section's new view, shown through `show`.
 */
import { errorMessage } from '$lib/errors.ts';
import type { FieldErrors } from '$lib/form.svelte.ts';
import { t } from '$lib/i18n.svelte.ts';
import { placeProblems } from './field-errors.ts';

export type Outcome = { tone: 'success' | 'error'; text: string };

export class SettingsSection<View> {
  view = $state<View | null>(null);
  loadError = $state('');
  /** An action is on its way (save, use environment settings, a change after a question). */
  saving = $state(false);
  /** The question before an action is open. */
  confirming = $state(false);
  outcome = $state<Outcome | null>(null);
  readonly #fetch: () => Promise<View>;
  readonly #show: (view: View) => void;

  /** `fetch` reads the view from the engine; `show` fills the section's fields from a view. */
  constructor(fetch: () => Promise<View>, show: (view: View) => void = () => {}) {
    this.#fetch = fetch;
    this.#show = show;
  }

  async load(): Promise<void> {
    this.loadError = '';
    try {
      this.show(await this.#fetch());
    } catch (error) {
      this.loadError = errorMessage(error);
    }
  }

  protected show(view: View): void {
    this.view = view;
    this.#show(view);
  }

  /** Runs an action that answers the new view; its outcome, good or bad, is said above the section. */
  async apply(
    action: () => Promise<View>,
    done: (view: View) => string,
    failed: (error: unknown) => string = errorMessage,
  ): Promise<void> {
    this.saving = true;
    this.outcome = null;
    try {
      const view = await action();
      this.show(view);
      this.outcome = { tone: 'success', text: done(view) };
    } catch (error) {
      this.outcome = { tone: 'error', text: failed(error) };
    } finally {
      this.saving = false;
      this.confirming = false;
    }
  }
}

export class SettingsForm<View> extends SettingsSection<View> {
  submitted = $state(false);
  serverErrors = $state<FieldErrors>({});
  formError = $state('');
  readonly #clientErrors: () => FieldErrors;
  readonly #fields: readonly string[];
  /** The errors to show at the fields: the engine's, and the form's own once submitted. */
  readonly shown: FieldErrors = $derived(
    this.submitted ? { ...this.serverErrors, ...this.clientErrors } : this.serverErrors,
  );

  /** `clientErrors` reads the form's own check; `fields` are those an engine refusal may name. */
  constructor(options: {
    fetch: () => Promise<View>;
    show: (view: View) => void;
    clientErrors: () => FieldErrors;
    fields: readonly string[];
  }) {
    super(options.fetch, options.show);
    this.#clientErrors = options.clientErrors;
    this.#fields = options.fields;
  }

  get clientErrors(): FieldErrors {
    return this.#clientErrors();
  }

  /** Sends the form when its own check finds nothing; `saved` says what the saved view came to. */
  async save(event: SubmitEvent, send: () => Promise<View>, saved: (view: View) => string): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    this.submitted = true;
    this.serverErrors = {};
    this.formError = '';
    this.outcome = null;
    if (Object.keys(this.clientErrors).length > 0) return;
    this.saving = true;
    try {
      const view = await send();
      this.show(view);
      this.submitted = false;
      this.outcome = { tone: 'success', text: saved(view) };
    } catch (error) {
      const placed = placeProblems(error, this.#fields);
      this.serverErrors = placed.fields;
      this.formError = placed.message;
    } finally {
      this.saving = false;
    }
  }

  /** Forgets the setting saved in the console (`reset`): the environment's applies again. */
  async useEnvironment(reset: () => Promise<View>): Promise<void> {
    await this.apply(
      async () => {
        const view = await reset();
        this.submitted = false;
        this.serverErrors = {};
        return view;
      },
      () => t('adminSettings.useEnvironment.done'),
    );
  }
}
