import type { Transformation } from '../types.ts';
import { BASE64_VALUE, decodeDigits } from './base64-alphabet.ts';

/**
 * base64DecodeExt: forgiving base64: every byte outside the alphabet (padding, dots, spaces,
 * anything) is skipped and the rest decoded.
 *
 * Arguments: none.
 *
 * Example: `Zm9v.YmFy==` becomes `foobar`.
 */
export const base64DecodeExt: Transformation = (input) => {
  const values = new Uint8Array(input.length);
  let count = 0;
  for (let k = 0; k < input.length; k++) {
    const c = input.charCodeAt(k);
    const v = c < 256 ? (BASE64_VALUE[c] as number) : -1;
    if (v >= 0) values[count++] = v;
  }
  return decodeDigits(values, count);
};
