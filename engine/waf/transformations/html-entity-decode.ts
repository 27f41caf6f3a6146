import type { Transformation } from '../types.ts';
import { hexValue } from './bytes.ts';

/**
 * htmlEntityDecode: decodes `&#DDD;`, `&#xHH;` (the `;` is optional; the value's low byte is
 * kept, and a value beyond a C long saturates to 0xFF as strtol does) and the named entities
 * `&quot;` `&amp;` `&lt;` `&gt;` `&nbsp;` (any case; nbsp becomes byte 0xA0). Anything else is
 * copied unchanged.
 *
 * Arguments: none.
 *
 * Example: `&lt;script&#x3e;&#106&AMP;&foo;` becomes `<script>j&&foo;`.
 */
export const htmlEntityDecode: Transformation = (input) => {
  if (input.indexOf('&') < 0) return input;
  const n = input.length;
  let out = '';
  let k = 0;
  while (k < n) {
    const amp = input.indexOf('&', k);
    if (amp < 0 || amp + 1 >= n) break;
    out += input.slice(k, amp);
    let j = amp + 1;
    if (input.charCodeAt(j) === 0x23) {
      j++;
      const hex = j < n && (input.charCodeAt(j) | 0x20) === 0x78;
      if (hex) j++;
      const start = j;
      while (j < n && (hex ? hexValue(input.charCodeAt(j)) >= 0 : isDigit(input.charCodeAt(j)))) j++;
      if (j > start && start < n) {
        out += String.fromCharCode(entityByte(input.slice(start, j), hex));
        k = j < n && input.charCodeAt(j) === 0x3b ? j + 1 : j;
        continue;
      }
      // "&#", "&#x" without digits: copied as they are.
      out += input.slice(amp, start);
      k = start;
      continue;
    }
    const start = j;
    while (j < n && isAlnum(input.charCodeAt(j))) j++;
    const decoded = j > start ? NAMED.get(input.slice(start, j).toLowerCase()) : undefined;
    if (decoded === undefined) {
      out += input.slice(amp, j);
      k = j;
      continue;
    }
    out += decoded;
    k = j < n && input.charCodeAt(j) === 0x3b ? j + 1 : j;
  }
  return out + input.slice(k);
};

const NAMED = new Map([
  ['quot', '"'],
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['nbsp', '\xa0'],
]);

const LONG_MAX_DEC = '9223372036854775807';

/** The byte `(unsigned char)strtol(digits, 0, radix)` gives. */
function entityByte(digits: string, hex: boolean): number {
  const significant = digits.replace(/^0+/, '');
  if (hex) {
    if (significant.length > 16 || (significant.length === 16 && (hexValue(significant.charCodeAt(0)) ?? 0) >= 8))
      return 0xff;
    return parseInt(digits.slice(-2), 16);
  }
  if (significant.length > 19 || (significant.length === 19 && significant > LONG_MAX_DEC)) return 0xff;
  let byte = 0;
  for (let k = 0; k < digits.length; k++) byte = (byte * 10 + (digits.charCodeAt(k) - 0x30)) % 256;
  return byte;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isAlnum(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}
