import type { Transformation } from '../types.ts';
import { normalizePathBytes } from './path-normalizer.ts';

/**
 * normalizePathWin (also normalisePathWin): normalizePath after turning backslashes into slashes.
 *
 * Arguments: none.
 *
 * Example: `C:\a\..\windows\.\win.ini` becomes `C:/windows/win.ini`.
 */
export const normalizePathWin: Transformation = (input) => normalizePathBytes(input, true);
