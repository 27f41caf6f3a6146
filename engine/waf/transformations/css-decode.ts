import type { Transformation } from '../types.ts';
import { hexValue, isSpace } from './bytes.ts';

/**
 * cssDecode: decodes CSS 2 escapes: `\` plus 1 to 6 hex digits gives one byte (the last two
 * digits; full-width ASCII FF01-FF5E mapped to ASCII when the upper digits allow), and one
 * whitespace after a hex escape is swallowed; `\` plus newline is removed; `\` plus any other
 * character gives that character; a trailing `\` is dropped.
 *
 * Arguments: none.
 *
 * Example: `j\61 vascript\:\ff1c` becomes `javascript:<`.
 */
export const cssDecode: Transformation = (input) => {
  if (input.indexOf('\\') < 0) return input;
  const n = input.length;
  let out = '';
  let last = 0;
  for (let k = 0; k < n; k++) {
    if (input.charCodeAt(k) !== 0x5c) continue;
    out += input.slice(last, k);
    if (k + 1 >= n) {
      last = n;
      break;
    }
    const i = k + 1;
    let j = 0;
    while (j < 6 && i + j < n && hexValue(input.charCodeAt(i + j)) >= 0) j++;
    if (j > 0) {
      const digit = (at: number): number => hexValue(input.charCodeAt(at));
      let byte = j === 1 ? digit(i) : digit(i + j - 2) * 16 + digit(i + j - 1);
      const fullCheck =
        j === 4 || (j === 5 && input[i] === '0') || (j === 6 && input[i] === '0' && input[i + 1] === '0');
      if (fullCheck && byte > 0 && byte < 0x5f && digit(i + j - 3) === 15 && digit(i + j - 4) === 15) byte += 0x20;
      out += String.fromCharCode(byte);
      if (i + j < n && isSpace(input.charCodeAt(i + j))) j++;
      k = i + j - 1;
    } else if (input.charCodeAt(i) === 0x0a) {
      k = i;
    } else {
      out += input[i];
      k = i;
    }
    last = k + 1;
  }
  return out + input.slice(last);
};
