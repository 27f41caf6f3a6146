import type { Transformation } from '../types.ts';
import { fromBytes } from './bytes.ts';

/**
 * cmdLine: normalises a command line the way CRS's command-injection rules expect: removes
 * `\` `"` `'` `^`; turns runs of space, tab, CR, LF, `,` and `;` into one space; drops a space
 * before `/` and `(`; lower-cases ASCII letters.
 *
 * Arguments: none.
 *
 * Example: `C^O"M"M;A,N\D  /c (Foo)` becomes `comm a nd/c(foo)`.
 */
export const cmdLine: Transformation = (input) => {
  if (unchanged(input)) return input;
  const out = new Uint8Array(input.length);
  let n = 0;
  let space = false;
  for (let k = 0; k < input.length; k++) {
    const c = input.charCodeAt(k);
    switch (c) {
      case 0x22: // "
      case 0x27: // '
      case 0x5c: // \
      case 0x5e: // ^
        break;
      case 0x20:
      case 0x2c: // ,
      case 0x3b: // ;
      case 0x09:
      case 0x0d:
      case 0x0a:
        if (!space) {
          out[n++] = 0x20;
          space = true;
        }
        break;
      case 0x2f: // /
      case 0x28: // (
        if (space) n--;
        space = false;
        out[n++] = c;
        break;
      default:
        out[n++] = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
        space = false;
    }
  }
  return fromBytes(out, n);
};

/** True when cmdLine would return its input: nothing to drop, fold or squeeze. */
function unchanged(input: string): boolean {
  let space = false;
  for (let k = 0; k < input.length; k++) {
    const c = input.charCodeAt(k);
    if (c > 0xff) return false;
    if (c === 0x20) {
      if (space) return false;
      space = true;
      continue;
    }
    if (
      c === 0x22 ||
      c === 0x27 ||
      c === 0x5c ||
      c === 0x5e ||
      c === 0x2c ||
      c === 0x3b ||
      (c >= 0x09 && c <= 0x0d) ||
      (c >= 0x41 && c <= 0x5a)
    ) {
      return false;
    }
    if (space && (c === 0x2f || c === 0x28)) return false;
    space = false;
  }
  return true;
}
