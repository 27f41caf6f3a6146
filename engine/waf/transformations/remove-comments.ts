import type { Transformation } from '../types.ts';

/**
 * removeComments: removes C comments `/* ... *\/` and HTML comments `<!-- ... -->` (an
 * unterminated one becomes a single space), and cuts the input at the first `--` or `#` outside a
 * comment. After a closing `*\/` or `-->` the next byte is always copied (ModSecurity's quirk).
 *
 * Arguments: none.
 *
 * Example: `1/*x*\/UNION<!--y-->SELECT--z` becomes `1UNIONSELECT`.
 */
export const removeComments: Transformation = (input) => {
  const n = input.length;
  let out = '';
  let inComment = false;
  let k = 0;
  while (k < n) {
    const c = input[k];
    if (!inComment) {
      if (c === '/' && input[k + 1] === '*') {
        inComment = true;
        k += 2;
      } else if (c === '<' && input.startsWith('!--', k + 1)) {
        inComment = true;
        k += 4;
      } else if ((c === '-' && input[k + 1] === '-') || c === '#') {
        break;
      } else {
        out += c;
        k++;
      }
    } else if (c === '*' && input[k + 1] === '/') {
      inComment = false;
      k += 2;
      if (k < n) out += input[k++];
    } else if (c === '-' && input[k + 1] === '-' && input[k + 2] === '>') {
      inComment = false;
      k += 3;
      if (k < n) out += input[k++];
    } else {
      k++;
    }
  }
  return inComment ? `${out} ` : out;
};
