import type { Transformation } from '../types.ts';

/**
 * hexEncode: each byte as two lower-case hexadecimal digits.
 *
 * Arguments: none.
 *
 * Example: `a\n` becomes `610a`.
 */
export const hexEncode: Transformation = (input) => Buffer.from(input, 'latin1').toString('hex');
