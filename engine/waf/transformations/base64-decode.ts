import type { Transformation } from '../types.ts';
import { BASE64_VALUE, decodeDigits } from './base64-alphabet.ts';

/**
 * base64Decode: decodes base64 up to the first byte outside the alphabet (padding `=` included);
 * CR and LF are skipped. A final partial group yields the whole bytes it holds. (Coraza's and
 * ModSecurity 2's forgiving decoder; ModSecurity 3 returns nothing for invalid input.)
 *
 * Arguments: none.
 *
 * Example: `Zm9v\r\nYmFy=ignored` becomes `foobar`.
 */
export const base64Decode: Transformation = (input) => {
  const values = new Uint8Array(input.length);
  let count = 0;
  for (let k = 0; k < input.length; k++) {
    const c = input.charCodeAt(k);
    if (c === 0x0d || c === 0x0a) continue;
    const v = c < 256 ? (BASE64_VALUE[c] as number) : -1;
    if (v < 0) break;
    values[count++] = v;
  }
  return decodeDigits(values, count);
};
