import type { Transformation } from '../types.ts';
import { hexValue, isOctal } from './bytes.ts';

/**
 * jsDecode: decodes JavaScript escapes: `\uHHHH` (low byte; full-width ASCII FF01-FF5E mapped to
 * ASCII), `\xHH`, octal `\OOO` (at most one byte: three digits only when the first is 0-3),
 * `\a \b \f \n \r \t \v`, and `\C` for any other C (the backslash dropped). A lone trailing
 * backslash is kept.
 *
 * Arguments: none.
 *
 * Example: `\u0061\x62\143\n\'\uff1c` becomes `abc<newline>'<`.
 */
export const jsDecode: Transformation = (input) => {
  if (input.indexOf('\\') < 0) return input;
  const n = input.length;
  let out = '';
  let last = 0;
  for (let k = 0; k < n; k++) {
    if (input.charCodeAt(k) !== 0x5c || k + 1 >= n) continue;
    out += input.slice(last, k);
    const e = input.charCodeAt(k + 1);
    if (
      e === 0x75 &&
      k + 5 < n &&
      hexValue(input.charCodeAt(k + 2)) >= 0 &&
      hexValue(input.charCodeAt(k + 3)) >= 0 &&
      hexValue(input.charCodeAt(k + 4)) >= 0 &&
      hexValue(input.charCodeAt(k + 5)) >= 0
    ) {
      let byte = hexValue(input.charCodeAt(k + 4)) * 16 + hexValue(input.charCodeAt(k + 5));
      if (
        byte > 0 &&
        byte < 0x5f &&
        hexValue(input.charCodeAt(k + 2)) === 15 &&
        hexValue(input.charCodeAt(k + 3)) === 15
      ) {
        byte += 0x20;
      }
      out += String.fromCharCode(byte);
      k += 5;
    } else if (
      e === 0x78 &&
      k + 3 < n &&
      hexValue(input.charCodeAt(k + 2)) >= 0 &&
      hexValue(input.charCodeAt(k + 3)) >= 0
    ) {
      out += String.fromCharCode(hexValue(input.charCodeAt(k + 2)) * 16 + hexValue(input.charCodeAt(k + 3)));
      k += 3;
    } else if (isOctal(e)) {
      let j = 0;
      while (k + 1 + j < n && j < 3 && isOctal(input.charCodeAt(k + 1 + j))) j++;
      if (j === 3 && e > 0x33) j = 2;
      out += String.fromCharCode(parseInt(input.slice(k + 1, k + 1 + j), 8));
      k += j;
    } else {
      out += SIMPLE.get(e) ?? input[k + 1];
      k += 1;
    }
    last = k + 1;
  }
  return out + input.slice(last);
};

const SIMPLE = new Map([
  [0x61, '\x07'],
  [0x62, '\b'],
  [0x66, '\f'],
  [0x6e, '\n'],
  [0x72, '\r'],
  [0x74, '\t'],
  [0x76, '\v'],
]);
