/**
 * PCRE to JavaScript translation. Contract: `translatePcre(pattern, options)` returns a RegExp
 * source and flags that match the same bytes of a binary string (one char per byte, codes 0-255)
 * as PCRE 8-bit non-UTF would, never using the `u` flag, or throws an Error naming the construct
 * that cannot be translated. `groups` maps PCRE group numbers to JavaScript ones; `required` lists
 * strings of which every match contains one (ASCII case-insensitively), for prefiltering. Importing this
 * module turns on V8's fallback to its linear-time engine for runaway backtracking.
 */
export { translatePcre, type PcreOptions, type TranslatedRegex } from './pcre.ts';
export { guardRegexBacktracking } from './backtrack-guard.ts';
