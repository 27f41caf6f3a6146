import type { Transformation } from '../types.ts';
import { hexValue } from './bytes.ts';

/**
 * sqlHexDecode: decodes SQL hex literals: `0x` followed by at least one pair of hex digits
 * becomes the bytes of those pairs (an odd last digit stays as text).
 *
 * Arguments: none.
 *
 * Example: `SELECT 0x414243 FROM` becomes `SELECT ABC FROM`.
 */
export const sqlHexDecode: Transformation = (input) => {
  const n = input.length;
  let out = '';
  let last = 0;
  for (let k = 0; k + 3 < n; k++) {
    if (
      input.charCodeAt(k) !== 0x30 ||
      (input.charCodeAt(k + 1) | 0x20) !== 0x78 ||
      hexValue(input.charCodeAt(k + 2)) < 0 ||
      hexValue(input.charCodeAt(k + 3)) < 0
    ) {
      continue;
    }
    out += input.slice(last, k);
    let j = k + 2;
    while (j + 1 < n && hexValue(input.charCodeAt(j)) >= 0 && hexValue(input.charCodeAt(j + 1)) >= 0) {
      out += String.fromCharCode(hexValue(input.charCodeAt(j)) * 16 + hexValue(input.charCodeAt(j + 1)));
      j += 2;
    }
    last = j;
    k = j - 1;
  }
  return last === 0 ? input : out + input.slice(last);
};
