import type { Transformation } from '../types.ts';

/**
 * lowercase: ASCII letters A-Z to a-z (C locale: bytes above 0x7F are unchanged).
 *
 * Arguments: none.
 *
 * Example: `SELECT\xC9` becomes `select\xC9`.
 */
export const lowercase: Transformation = (input) => {
  // Only ASCII changes; JavaScript's toLowerCase would also fold Latin-1 letters.
  if (!/[A-Z]/.test(input)) return input;
  return input.replace(/[A-Z]+/g, (m) => m.toLowerCase());
};
