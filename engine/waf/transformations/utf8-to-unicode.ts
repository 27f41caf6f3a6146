import type { Transformation } from '../types.ts';

/**
 * utf8toUnicode: writes each well-formed 2, 3 or 4 byte UTF-8 sequence as `%uHHHH` (lower-case
 * hex, at least four digits), as ModSecurity does, with its quirks kept: the lead byte is appended
 * again after an overlong form or a surrogate; a lead byte whose continuation bytes are missing
 * or wrong is dropped; a lead byte F5-F7 is copied before its sequence; stray continuation bytes
 * and F8-FF are copied. ASCII is unchanged.
 *
 * Arguments: none.
 *
 * Example: `a\xc3\xa9\xe2\x82\xac` becomes `a%u00e9%u20ac`.
 */
export const utf8toUnicode: Transformation = (input) => {
  const n = input.length;
  let out = '';
  let last = 0;
  let k = 0;
  while (k < n) {
    const c = input.charCodeAt(k);
    if (c < 0x80) {
      k++;
      continue;
    }
    out += input.slice(last, k);
    let len: number;
    let cp: number;
    if ((c & 0xe0) === 0xc0) {
      len = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) === 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) === 0xf0) {
      len = 4;
      cp = c & 0x07;
      if (c >= 0xf5) out += input[k];
    } else {
      out += input[k];
      k++;
      last = k;
      continue;
    }
    let valid = true;
    for (let j = 1; j < len; j++) {
      const d = k + j < n ? input.charCodeAt(k + j) : 0;
      if ((d & 0xc0) !== 0x80) {
        valid = false;
        break;
      }
      cp = (cp << 6) | (d & 0x3f);
    }
    if (!valid) {
      k++;
      last = k;
      continue;
    }
    out += `%u${cp.toString(16).padStart(4, '0')}`;
    if (cp >= 0xd800 && cp <= 0xdfff) out += input[k];
    if ((len === 4 && cp < 0x10000) || (len === 3 && cp < 0x800) || (len === 2 && cp < 0x80)) out += input[k];
    k += len;
    last = k;
  }
  return last === 0 ? input : out + input.slice(last);
};
