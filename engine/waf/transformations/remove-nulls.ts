import type { Transformation } from '../types.ts';

/**
 * removeNulls: removes every NUL byte.
 *
 * Arguments: none.
 *
 * Example: `a\0b\0` becomes `ab`.
 */
export const removeNulls: Transformation = (input) => (input.indexOf('\0') < 0 ? input : input.replace(/\0+/g, ''));
