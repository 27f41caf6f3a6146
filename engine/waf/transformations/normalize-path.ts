import type { Transformation } from '../types.ts';
import { normalizePathBytes } from './path-normalizer.ts';

/**
 * normalizePath (also normalisePath): removes multiple slashes, `./` self-references and
 * resolves `../` back-references, as ModSecurity does (a relative path keeps the `..` it cannot
 * resolve; a trailing slash survives only if the input had one).
 *
 * Arguments: none.
 *
 * Example: `/a//b/./c/../d` becomes `/a/b/d`; `../../etc/passwd` stays `../../etc/passwd`.
 */
export const normalizePath: Transformation = (input) => normalizePathBytes(input, false);
