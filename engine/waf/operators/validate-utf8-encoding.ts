import type { OperatorDef } from '../types.ts';

/**
 * validateUtf8Encoding: true (a violation) when the input bytes are not valid UTF-8: a sequence
 * cut short, a bad lead or continuation byte, an overlong form, a surrogate (U+D800-U+DFFF) or a
 * code point above U+10FFFF. An empty input never matches.
 *
 * Arguments: none.
 *
 * Example: `SecRule ARGS "@validateUtf8Encoding" "id:920250,block"` matches "\xc0\xaf".
 */
export const validateUtf8Encoding: OperatorDef = {
  name: 'validateUtf8Encoding',
  compile() {
    return (input) => {
      const n = input.length;
      for (let k = 0; k < n;) {
        const c = input.charCodeAt(k);
        if (c < 0x80) {
          k++;
          continue;
        }
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
        } else {
          return true;
        }
        if (k + len > n) return true;
        for (let j = 1; j < len; j++) {
          const d = input.charCodeAt(k + j);
          if ((d & 0xc0) !== 0x80) return true;
          cp = (cp << 6) | (d & 0x3f);
        }
        if ((len === 2 && cp < 0x80) || (len === 3 && cp < 0x800) || (len === 4 && cp < 0x10000)) return true;
        if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return true;
        k += len;
      }
      return false;
    };
  },
};
