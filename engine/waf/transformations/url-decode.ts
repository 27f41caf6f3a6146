import type { Transformation } from '../types.ts';
import { hexValue } from './bytes.ts';

/**
 * urlDecode: decodes `%HH` and `+` (to space). Invalid or truncated `%` sequences are kept as
 * they are (ModSecurity's non-strict decoder).
 *
 * Arguments: none.
 *
 * Example: `a%20b+c%zz%4` becomes `a b c%zz%4`.
 */
export const urlDecode: Transformation = (input) => {
  if (input.indexOf('%') < 0 && input.indexOf('+') < 0) return input;
  let out = '';
  let last = 0;
  const n = input.length;
  for (let k = 0; k < n; k++) {
    const c = input.charCodeAt(k);
    if (c === 0x2b) {
      out += `${input.slice(last, k)} `;
      last = k + 1;
    } else if (c === 0x25 && k + 2 < n) {
      const hi = hexValue(input.charCodeAt(k + 1));
      const lo = hexValue(input.charCodeAt(k + 2));
      if (hi >= 0 && lo >= 0) {
        out += input.slice(last, k) + String.fromCharCode(hi * 16 + lo);
        k += 2;
        last = k + 1;
      }
    }
  }
  return out + input.slice(last);
};
