import type { Transformation } from '../types.ts';
import { hexValue } from './bytes.ts';

/**
 * urlDecodeUni: urlDecode plus IIS's `%uHHHH`: the low byte is kept and the high byte dropped,
 * except full-width ASCII (`%uFF01`-`%uFF5E`), which maps to the ASCII character (low byte +
 * 0x20). ModSecurity's optional SecUnicodeMapFile table is not applied. An invalid `%u` keeps
 * `%u` and goes on after it.
 *
 * Arguments: none.
 *
 * Example: `%u0041%uFF1C%2f+` becomes `A</ `.
 */
export const urlDecodeUni: Transformation = (input) => {
  if (input.indexOf('%') < 0 && input.indexOf('+') < 0) return input;
  let out = '';
  let last = 0;
  const n = input.length;
  for (let k = 0; k < n; k++) {
    const c = input.charCodeAt(k);
    if (c === 0x2b) {
      out += `${input.slice(last, k)} `;
      last = k + 1;
      continue;
    }
    if (c !== 0x25) continue;
    const next = input.charCodeAt(k + 1);
    if (k + 1 < n && (next === 0x75 || next === 0x55)) {
      if (k + 5 < n) {
        const h1 = hexValue(input.charCodeAt(k + 2));
        const h2 = hexValue(input.charCodeAt(k + 3));
        const h3 = hexValue(input.charCodeAt(k + 4));
        const h4 = hexValue(input.charCodeAt(k + 5));
        if (h1 >= 0 && h2 >= 0 && h3 >= 0 && h4 >= 0) {
          let byte = h3 * 16 + h4;
          if (byte > 0 && byte < 0x5f && h1 === 15 && h2 === 15) byte += 0x20;
          out += input.slice(last, k) + String.fromCharCode(byte);
          k += 5;
          last = k + 1;
          continue;
        }
      }
      k += 1; // keep "%u" as is
      continue;
    }
    if (k + 2 < n) {
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
