import type { Transformation } from '../types.ts';
import { hexValue, isOctal } from './bytes.ts';

/**
 * escapeSeqDecode: decodes ANSI C escapes: `\a \b \f \n \r \t \v \\ \? \' \"`, `\xHH` (exactly
 * two hex digits) and octal `\O` to `\OOO` (low byte kept). For any other `\C` the backslash is
 * dropped and C kept; a lone trailing backslash is kept.
 *
 * Arguments: none.
 *
 * Example: `\x41\102\n\q` becomes `AB<newline>q`.
 */
export const escapeSeqDecode: Transformation = (input) => {
  if (input.indexOf('\\') < 0) return input;
  const n = input.length;
  let out = '';
  let last = 0;
  for (let k = 0; k + 1 < n; k++) {
    if (input.charCodeAt(k) !== 0x5c) continue;
    out += input.slice(last, k);
    const e = input.charCodeAt(k + 1);
    const simple = SIMPLE.get(e);
    if (simple !== undefined) {
      out += simple;
      k += 1;
    } else if (
      (e | 0x20) === 0x78 &&
      k + 3 < n &&
      hexValue(input.charCodeAt(k + 2)) >= 0 &&
      hexValue(input.charCodeAt(k + 3)) >= 0
    ) {
      out += String.fromCharCode(hexValue(input.charCodeAt(k + 2)) * 16 + hexValue(input.charCodeAt(k + 3)));
      k += 3;
    } else if (isOctal(e)) {
      let j = 0;
      while (k + 1 + j < n && j < 3 && isOctal(input.charCodeAt(k + 1 + j))) j++;
      out += String.fromCharCode(parseInt(input.slice(k + 1, k + 1 + j), 8) & 0xff);
      k += j;
    } else {
      out += input[k + 1];
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
  [0x5c, '\\'],
  [0x3f, '?'],
  [0x27, "'"],
  [0x22, '"'],
]);
