/**
 * The password rule of spec 5.3, checked live while typing: 8 to 16 characters and at least 3 of the
 * 4 classes. The engine checks the same and adds the common-password check.
 */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 16;
const CLASSES: readonly RegExp[] = [/[A-Z]/, /[a-z]/, /[0-9]/, /[^A-Za-z0-9]/];

export interface PasswordCheck {
  length: number;
  lengthOk: boolean;
  classes: number;
  classesOk: boolean;
  ok: boolean;
}

export function checkPassword(password: string): PasswordCheck {
  const length = [...password].length;
  const classes = CLASSES.filter((re) => re.test(password)).length;
  const lengthOk = length >= PASSWORD_MIN && length <= PASSWORD_MAX;
  const classesOk = classes >= 3;
  return { length, lengthOk, classes, classesOk, ok: lengthOk && classesOk };
}

/** Loose on purpose: the engine validates the address; this only catches obvious slips early. */
export function looksLikeEmail(value: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim());
}
