import { fromBytes } from './bytes.ts';

/**
 * ModSecurity's normalize_path_inplace, re-expressed over a byte array: collapses `//`, removes
 * `./` segments, resolves `../` against the previous segment (a relative path keeps the `..` it
 * cannot resolve; an absolute one stops at the root), keeps a trailing slash only if the input
 * had one. With `win`, backslashes count as slashes and come out as `/`.
 */
export function normalizePathBytes(input: string, win: boolean): string {
  const n = input.length;
  if (n === 0) return input;
  // Most paths have nothing to normalise: no empty, `.` or `..` segment and (Windows) no backslash.
  if (
    input.indexOf('//') === -1 &&
    input.indexOf('/.') === -1 &&
    input.indexOf('./') === -1 &&
    input !== '.' &&
    input !== '..' &&
    !(win && input.indexOf('\\') !== -1)
  ) {
    return input;
  }
  const buf = new Uint8Array(n);
  for (let k = 0; k < n; k++) buf[k] = input.charCodeAt(k) & 0xff;
  const SLASH = 0x2f;
  const isSep = (c: number | undefined): boolean => c === SLASH || (win && c === 0x5c);
  const end = n - 1;
  const relative = !isSep(buf[0]);
  const trailing = isSep(buf[end]);
  let src = 0;
  let dst = 0;
  let hitRoot = false;
  let done = false;
  while (!done && src <= end && dst <= end) {
    if (win) {
      if (buf[src] === 0x5c) buf[src] = SLASH;
      if (src < end && buf[src + 1] === 0x5c) buf[src + 1] = SLASH;
    }
    let normalize = true;
    if (src === end) done = true;
    else if (buf[src + 1] !== SLASH) normalize = false;

    if (normalize) {
      if (src !== end && buf[src] === SLASH) {
        // empty segment: the copy below skips repeated slashes
      } else if (buf[src] === 0x2e) {
        if (dst > 0 && buf[dst - 1] === 0x2e) {
          // "..": back-reference
          if (relative && (hitRoot || dst - 2 <= 0)) {
            hitRoot = true;
          } else {
            dst -= 3;
            while (dst > 0 && buf[dst] !== SLASH) dst--;
            if (dst <= 0) {
              hitRoot = true;
              dst = 0;
              if (!relative && src === end) dst++;
            }
            if (done) break;
            src++;
          }
        } else if (dst === 0) {
          // relative self-reference "./"
          if (done) break;
          src++;
        } else if (buf[dst - 1] === SLASH) {
          // self-reference "/./"
          if (done) break;
          dst--;
          src++;
        }
      } else if (dst > 0) {
        hitRoot = false;
      }
    }
    // A skipped '.' falls through: the byte after it (a slash) is copied as usual.
    if (buf[src] === SLASH) {
      while (src < end && isSep(buf[src + 1])) src++;
      if (relative && dst === 0) {
        src++;
        continue;
      }
    }
    buf[dst++] = buf[src++] as number;
  }
  if (!trailing && dst > 0 && buf[dst - 1] === SLASH) dst--;
  return fromBytes(buf, dst);
}
