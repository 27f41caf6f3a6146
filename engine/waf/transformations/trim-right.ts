import type { Transformation } from '../types.ts';
import { isSpace } from './bytes.ts';

/**
 * trimRight: removes trailing whitespace (C isspace: HT LF VT FF CR space).
 *
 * Arguments: none.
 *
 * Example: ` a \r\n` becomes ` a`.
 */
export const trimRight: Transformation = (input) => {
  let k = input.length;
  while (k > 0 && isSpace(input.charCodeAt(k - 1))) k--;
  return k === input.length ? input : input.slice(0, k);
};
