import type { Transformation } from '../types.ts';
import { NBSP, isSpace } from './bytes.ts';

/**
 * compressWhitespace: turns each run of whitespace (C isspace: HT LF VT FF CR space, plus NBSP
 * 0xA0) into a single space.
 *
 * Arguments: none.
 *
 * Example: `a \t\r\n b\xa0\xa0c` becomes `a b c`.
 */
export const compressWhitespace: Transformation = (input) => {
  let out = '';
  let last = 0;
  const n = input.length;
  for (let k = 0; k < n; k++) {
    const c = input.charCodeAt(k);
    if (!isSpace(c) && c !== NBSP) continue;
    let end = k + 1;
    while (end < n && (isSpace(input.charCodeAt(end)) || input.charCodeAt(end) === NBSP)) end++;
    if (end === k + 1 && c === 0x20) continue; // already a single space
    out += `${input.slice(last, k)} `;
    last = end;
    k = end - 1;
  }
  return last === 0 ? input : out + input.slice(last);
};
