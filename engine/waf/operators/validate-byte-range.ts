import type { OperatorDef } from '../types.ts';

/**
 * validateByteRange: true (a violation) when the input holds any byte outside the allowed
 * ranges; an empty input never matches.
 *
 * Arguments: bytes and inclusive ranges, 0 to 255, separated by commas: `1-255`,
 * `9,10,13,32-126`.
 *
 * Example: `SecRule ARGS "@validateByteRange 32-126" "id:920270,block"`
 */
export const validateByteRange: OperatorDef = {
  name: 'validateByteRange',
  compile(argument) {
    const allowed = new Uint8Array(256);
    for (const raw of argument.split(',')) {
      const part = raw.trim();
      const m = /^(\d{1,3})(?:\s*-\s*(\d{1,3}))?$/.exec(part);
      if (!m) throw new Error(`@validateByteRange: invalid range "${part}" (expected N or N-M, 0 to 255)`);
      const from = Number(m[1]);
      const to = m[2] === undefined ? from : Number(m[2]);
      if (from > 255 || to > 255 || from > to) {
        throw new Error(`@validateByteRange: invalid range "${part}" (expected N or N-M, 0 to 255)`);
      }
      allowed.fill(1, from, to + 1);
    }
    return (input) => {
      for (let k = 0; k < input.length; k++) {
        const c = input.charCodeAt(k);
        if (c > 255 || allowed[c] === 0) return true;
      }
      return false;
    };
  },
};
