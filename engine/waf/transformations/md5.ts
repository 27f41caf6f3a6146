import { createHash } from 'node:crypto';
import type { Transformation } from '../types.ts';

/**
 * md5: the MD5 digest of the input bytes, as 16 raw bytes (chain t:hexEncode for hex).
 *
 * Arguments: none.
 *
 * Example: `abc` becomes the bytes 90 01 50 98 ... 28 e1 7f 72.
 */
export const md5: Transformation = (input) => createHash('md5').update(input, 'latin1').digest().toString('latin1');
