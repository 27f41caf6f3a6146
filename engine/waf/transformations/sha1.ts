import { createHash } from 'node:crypto';
import type { Transformation } from '../types.ts';

/**
 * sha1: the SHA-1 digest of the input bytes, as 20 raw bytes (chain t:hexEncode for hex).
 *
 * Arguments: none.
 *
 * Example: `abc` becomes the bytes a9 99 3e 36 ... 9c d0 d8 9d.
 */
export const sha1: Transformation = (input) => createHash('sha1').update(input, 'latin1').digest().toString('latin1');
