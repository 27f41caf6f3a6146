/** Client-side checks of a new password and its confirmation, with messages naming the field. */
import { checkPassword } from '$lib/password-rule.ts';
import { t } from '$lib/i18n.svelte.ts';

export interface NewPasswordErrors {
  password?: string;
  confirm?: string;
}

export function validateNewPassword(
  password: string,
  confirm: string,
  labels: { password: string; confirm: string },
): NewPasswordErrors {
  const errors: NewPasswordErrors = {};
  if (!password) errors.password = t('validation.required', { field: labels.password });
  else if (!checkPassword(password).ok) errors.password = t('validation.passwordRule', { field: labels.password });
  if (!confirm) errors.confirm = t('validation.required', { field: labels.confirm });
  else if (confirm !== password) errors.confirm = t('validation.mismatch', { field: labels.confirm });
  return errors;
}
