import type { Transformation } from '../types.ts';

/**
 * replaceNulls: replaces every NUL byte with a space.
 *
 * Arguments: none.
 *
 * Example: `a\0b` becomes `a b`.
 */
export const replaceNulls: Transformation = (input) => (input.indexOf('\0') < 0 ? input : input.replace(/\0/g, ' '));
