import type { Transformation } from '../types.ts';

/**
 * lowercase: ASCII letters A-Z to a-z (C locale: bytes above 0x7F are unchanged).
 *
 * Arguments: none.
 *
 * Example: `SELECT\xC9` becomes `select\xC9`.
 */
export const lowercase: Transformation = (input) => {
  // Only ASCII changes; JavaScript's toLowerCase would also fold Latin-1 letters, so it is used
  // only when there are none (nothing from 0xC0 up).
  let upper = false;
  for (let k = 0; k < input.length; k++) {
    const c = input.charCodeAt(k);
    if (c >= 0xc0) return input.replace(/[A-Z]+/g, (m) => m.toLowerCase());
    if (c >= 0x41 && c <= 0x5a) upper = true;
  }
  return upper ? input.toLowerCase() : input;
};
