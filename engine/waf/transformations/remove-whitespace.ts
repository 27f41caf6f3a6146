import type { Transformation } from '../types.ts';

/**
 * removeWhitespace: removes every whitespace byte (C isspace: HT LF VT FF CR space, plus NBSP 0xA0).
 *
 * Arguments: none.
 *
 * Example: `un ion\t\xa0sel\nect` becomes `unionselect`.
 */
export const removeWhitespace: Transformation = (input) =>
  WHITESPACE.test(input) ? input.replace(WHITESPACE_RUNS, '') : input;

const WHITESPACE = /[\t\n\v\f\r \xa0]/;
const WHITESPACE_RUNS = /[\t\n\v\f\r \xa0]+/g;
