import type { Transformation } from '../types.ts';
import { trimLeft } from './trim-left.ts';
import { trimRight } from './trim-right.ts';

/**
 * trim: removes leading and trailing whitespace (C isspace: HT LF VT FF CR space; NBSP stays).
 *
 * Arguments: none.
 *
 * Example: ` \t a b \n` becomes `a b`.
 */
export const trim: Transformation = (input) => trimRight(trimLeft(input));
