import type { Transformation } from '../types.ts';

/**
 * base64Encode: the input bytes in standard base64 with padding.
 *
 * Arguments: none.
 *
 * Example: `foob` becomes `Zm9vYg==`.
 */
export const base64Encode: Transformation = (input) => Buffer.from(input, 'latin1').toString('base64');
