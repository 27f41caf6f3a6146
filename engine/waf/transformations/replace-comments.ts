import type { Transformation } from '../types.ts';

/**
 * replaceComments: replaces each C comment `/* ... *\/` with one space; an unterminated comment
 * also becomes one space. A lone `*\/` is kept.
 *
 * Arguments: none.
 *
 * Example: `UNION/**\/SELECT/*x` becomes `UNION SELECT `.
 */
export const replaceComments: Transformation = (input) => {
  let start = input.indexOf('/*');
  if (start < 0) return input;
  let out = '';
  let last = 0;
  while (start >= 0) {
    out += `${input.slice(last, start)} `;
    const close = input.indexOf('*/', start + 2);
    if (close < 0) return out;
    last = close + 2;
    start = input.indexOf('/*', last);
  }
  return out + input.slice(last);
};
