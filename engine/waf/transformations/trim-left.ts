import type { Transformation } from '../types.ts';
import { isSpace } from './bytes.ts';

/**
 * trimLeft: removes leading whitespace (C isspace: HT LF VT FF CR space).
 *
 * Arguments: none.
 *
 * Example: ` \t a ` becomes `a `.
 */
export const trimLeft: Transformation = (input) => {
  let k = 0;
  while (k < input.length && isSpace(input.charCodeAt(k))) k++;
  return k === 0 ? input : input.slice(k);
};
