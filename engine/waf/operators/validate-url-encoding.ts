import type { OperatorDef } from '../types.ts';

/**
 * validateUrlEncoding: true (a violation) when a `%` is not followed by two hexadecimal digits,
 * including a `%` too close to the end. An empty input never matches.
 *
 * Arguments: none.
 *
 * Example: `SecRule REQUEST_URI "@validateUrlEncoding" "id:920220,block"` matches `/a%zz` and `/a%4`.
 */
export const validateUrlEncoding: OperatorDef = {
  name: 'validateUrlEncoding',
  compile() {
    return (input) => {
      for (let k = 0; k < input.length; k++) {
        if (input.charCodeAt(k) !== 0x25) continue;
        if (k + 2 >= input.length) return true;
        if (!isHex(input.charCodeAt(k + 1)) || !isHex(input.charCodeAt(k + 2))) return true;
        k += 2;
      }
      return false;
    };
  },
};

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
