/**
 * The transformation table: every SecLang transformation the WAF knows, keyed by lower-case name
 * (both spellings of normalise/normalize). Contract: each entry maps a binary string (one char
 * per byte) to a binary string, purely, totally and in linear time, with ModSecurity's byte-level
 * semantics. `none` is not here: it resets the rule's transformation list, which the engine does.
 */
import type { Transformation } from '../types.ts';
import { base64Decode } from './base64-decode.ts';
import { base64DecodeExt } from './base64-decode-ext.ts';
import { base64Encode } from './base64-encode.ts';
import { cmdLine } from './cmd-line.ts';
import { compressWhitespace } from './compress-whitespace.ts';
import { cssDecode } from './css-decode.ts';
import { escapeSeqDecode } from './escape-seq-decode.ts';
import { hexDecode } from './hex-decode.ts';
import { hexEncode } from './hex-encode.ts';
import { htmlEntityDecode } from './html-entity-decode.ts';
import { jsDecode } from './js-decode.ts';
import { length } from './length.ts';
import { lowercase } from './lowercase.ts';
import { md5 } from './md5.ts';
import { normalizePath } from './normalize-path.ts';
import { normalizePathWin } from './normalize-path-win.ts';
import { removeComments } from './remove-comments.ts';
import { removeCommentsChar } from './remove-comments-char.ts';
import { removeNulls } from './remove-nulls.ts';
import { removeWhitespace } from './remove-whitespace.ts';
import { replaceComments } from './replace-comments.ts';
import { replaceNulls } from './replace-nulls.ts';
import { sha1 } from './sha1.ts';
import { sqlHexDecode } from './sql-hex-decode.ts';
import { trim } from './trim.ts';
import { trimLeft } from './trim-left.ts';
import { trimRight } from './trim-right.ts';
import { uppercase } from './uppercase.ts';
import { urlDecode } from './url-decode.ts';
import { urlDecodeUni } from './url-decode-uni.ts';
import { utf8toUnicode } from './utf8-to-unicode.ts';

const ENTRIES: readonly (readonly [string, Transformation])[] = [
  ['base64Decode', base64Decode],
  ['base64DecodeExt', base64DecodeExt],
  ['base64Encode', base64Encode],
  ['cmdLine', cmdLine],
  ['compressWhitespace', compressWhitespace],
  ['cssDecode', cssDecode],
  ['escapeSeqDecode', escapeSeqDecode],
  ['hexDecode', hexDecode],
  ['hexEncode', hexEncode],
  ['htmlEntityDecode', htmlEntityDecode],
  ['jsDecode', jsDecode],
  ['length', length],
  ['lowercase', lowercase],
  ['md5', md5],
  ['normalizePath', normalizePath],
  ['normalisePath', normalizePath],
  ['normalizePathWin', normalizePathWin],
  ['normalisePathWin', normalizePathWin],
  ['removeComments', removeComments],
  ['removeCommentsChar', removeCommentsChar],
  ['removeNulls', removeNulls],
  ['removeWhitespace', removeWhitespace],
  ['replaceComments', replaceComments],
  ['replaceNulls', replaceNulls],
  ['sha1', sha1],
  ['sqlHexDecode', sqlHexDecode],
  ['trim', trim],
  ['trimLeft', trimLeft],
  ['trimRight', trimRight],
  ['uppercase', uppercase],
  ['urlDecode', urlDecode],
  ['urlDecodeUni', urlDecodeUni],
  ['utf8toUnicode', utf8toUnicode],
];

export const TRANSFORMATIONS: ReadonlyMap<string, Transformation> = new Map(
  ENTRIES.map(([name, fn]) => [name.toLowerCase(), fn]),
);
