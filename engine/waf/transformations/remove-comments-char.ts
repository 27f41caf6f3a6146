import type { Transformation } from '../types.ts';

/**
 * removeCommentsChar: removes the comment markers themselves, not the text between them:
 * `/*`, `*\/`, `<!--`, `-->`, `--` and `#`.
 *
 * Arguments: none.
 *
 * Example: `1/*x*\/2--3#4<!--5-->` becomes `1x2345`.
 */
export const removeCommentsChar: Transformation = (input) => {
  const n = input.length;
  let out = '';
  let last = 0;
  let k = 0;
  while (k < n) {
    const c = input[k];
    let skip = 0;
    if (c === '/' && input[k + 1] === '*') skip = 2;
    else if (c === '*' && input[k + 1] === '/') skip = 2;
    else if (c === '<' && input.startsWith('!--', k + 1)) skip = 4;
    else if (c === '-' && input[k + 1] === '-') skip = input[k + 2] === '>' ? 3 : 2;
    else if (c === '#') skip = 1;
    if (skip === 0) {
      k++;
      continue;
    }
    out += input.slice(last, k);
    k += skip;
    last = k;
  }
  return last === 0 ? input : out + input.slice(last);
};
