import type { Transformation } from '../types.ts';

/**
 * uppercase: ASCII letters a-z to A-Z (C locale: bytes above 0x7F are unchanged).
 *
 * Arguments: none.
 *
 * Example: `select\xE9` becomes `SELECT\xE9`.
 */
export const uppercase: Transformation = (input) => {
  // JavaScript's toUpperCase would also change Latin-1 letters (and 0xB5, 0xFF): used only when
  // there are none (nothing from 0xB5 up).
  let lower = false;
  for (let k = 0; k < input.length; k++) {
    const c = input.charCodeAt(k);
    if (c >= 0xb5) return input.replace(/[a-z]+/g, (m) => m.toUpperCase());
    if (c >= 0x61 && c <= 0x7a) lower = true;
  }
  return lower ? input.toUpperCase() : input;
};
