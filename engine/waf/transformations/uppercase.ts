import type { Transformation } from '../types.ts';

/**
 * uppercase: ASCII letters a-z to A-Z (C locale: bytes above 0x7F are unchanged).
 *
 * Arguments: none.
 *
 * Example: `select\xE9` becomes `SELECT\xE9`.
 */
export const uppercase: Transformation = (input) => {
  if (!/[a-z]/.test(input)) return input;
  return input.replace(/[a-z]+/g, (m) => m.toUpperCase());
};
