import type { Transformation } from '../types.ts';

/**
 * length: the input's length in bytes, as a decimal string.
 *
 * Arguments: none.
 *
 * Example: `abc` becomes `3`.
 */
export const length: Transformation = (input) => String(input.length);
