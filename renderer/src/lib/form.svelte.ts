/**
 * A form sent to the engine: the client's errors show once it has been submitted, an engine error
 * naming a field the form shows goes to that field, any other above the form.
 */
import { errorField, errorMessage } from './errors.ts';
import { t } from './i18n.svelte.ts';
import { looksLikeEmail } from './password-rule.ts';

export type FieldErrors = Record<string, string>;

export class FormSubmission {
  pending = $state(false);
  submitted = $state(false);
  serverErrors = $state<FieldErrors>({});
  formError = $state('');
  readonly #clientErrors: () => FieldErrors;
  readonly #fields: readonly string[];
  /** The errors to show at the fields: the engine's, and the client's once submitted. */
  readonly shown: FieldErrors = $derived(
    this.submitted ? { ...this.serverErrors, ...this.clientErrors } : this.serverErrors,
  );

  /** `clientErrors` reads the form's own checks; `fields` are those an engine error may name. */
  constructor(clientErrors: () => FieldErrors, fields: readonly string[]) {
    this.#clientErrors = clientErrors;
    this.#fields = fields;
  }

  get clientErrors(): FieldErrors {
    return this.#clientErrors();
  }

  /** Forgets what was submitted (a form opened again). */
  reset(): void {
    this.submitted = false;
    this.serverErrors = {};
    this.formError = '';
  }

  /** Marks the form submitted and, when the client finds nothing, runs `send`; `onerror` runs after an engine error is placed. */
  async submit(send: () => Promise<void>, onerror?: (error: unknown) => Promise<void>): Promise<void> {
    this.submitted = true;
    this.serverErrors = {};
    this.formError = '';
    if (Object.keys(this.clientErrors).length > 0) return;
    this.pending = true;
    try {
      await send();
    } catch (error) {
      const field = errorField(error, this.#fields);
      if (field) this.serverErrors = { [field]: errorMessage(error) };
      else this.formError = errorMessage(error);
      await onerror?.(error);
    } finally {
      this.pending = false;
    }
  }
}

/** The client's check of an e-mail field: required and shaped like an address. */
export function emailError(email: string): string | undefined {
  if (!email.trim()) return t('validation.required', { field: t('field.email') });
  if (!looksLikeEmail(email)) return t('validation.email', { field: t('field.email') });
  return undefined;
}
