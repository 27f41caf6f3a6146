import type { Transformation } from '../types.ts';
import { fromBytes, x2c } from './bytes.ts';

/**
 * hexDecode: each pair of characters as one byte (ModSecurity's x2c, which does not validate:
 * non-hex pairs give some byte rather than an error); an odd last character is dropped.
 *
 * Arguments: none.
 *
 * Example: `414243` becomes `ABC`.
 */
export const hexDecode: Transformation = (input) => {
  const out = new Uint8Array(input.length >> 1);
  for (let k = 0; k + 1 < input.length; k += 2) out[k >> 1] = x2c(input, k);
  return fromBytes(out, out.length);
};
