/**
 * What a browser makes of an attribute value before it reads a URL scheme from it: character
 * references decoded (`&colon;`, `&#58;`, `&#x3A`, `&#0000106`, with or without the `;`), then tab,
 * newline and other control characters and spaces dropped (the URL parser strips them), then lower
 * case. `java&Tab;script&colon;` and `&#106;avascript:` both come out as `javascript:`.
 *
 * Only the named references that stand for characters of a script URL, a CSS expression or
 * markup are known; any other `&name;` stays as written, which is the safe side for a detector (it
 * cannot make a scheme appear). Names are matched ignoring case, and without their `;`, more
 * generously than browsers: a detector must not be fooled by `&COLON;` or `&colon`.
 *
 * Linear: one pass, each reference read once, output capped at `max` characters.
 */

const NAMED: ReadonlyMap<string, number> = new Map([
  ['colon', 0x3a],
  ['tab', 0x09],
  ['newline', 0x0a],
  ['lpar', 0x28],
  ['rpar', 0x29],
  ['sol', 0x2f],
  ['bsol', 0x5c],
  ['lt', 0x3c],
  ['gt', 0x3e],
  ['quot', 0x22],
  ['apos', 0x27],
  ['amp', 0x26],
  ['semi', 0x3b],
  ['equals', 0x3d],
  ['period', 0x2e],
  ['comma', 0x2c],
  ['excl', 0x21],
  ['num', 0x23],
  ['nbsp', 0x20],
  ['plus', 0x2b],
  ['grave', 0x60],
  ['ast', 0x2a],
  ['lsqb', 0x5b],
  ['rsqb', 0x5d],
  ['lcub', 0x7b],
  ['rcub', 0x7d],
  ['percnt', 0x25],
  ['commat', 0x40],
  ['quest', 0x3f],
]);

/** Longest name in NAMED. */
const NAME_MAX = 7;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hexValue(c: number): number {
  if (isDigit(c)) return c - 0x30;
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x57 : -1;
}

function isLetter(c: number): boolean {
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x7a;
}

/** Where the last reference read by `reference` ended. */
let referenceEnd = 0;

/**
 * The character of the reference at `s[at]` (an `&`), or -1 when there is none; sets
 * `referenceEnd`. Digit runs are read whole (leading zeros are legal) but the value is capped.
 */
function reference(s: string, at: number, end: number): number {
  let p = at + 1;
  if (s.charCodeAt(p) === 0x23) {
    p++;
    let code = 0;
    let digits = 0;
    if ((s.charCodeAt(p) | 0x20) === 0x78) {
      p++;
      for (let h = hexValue(s.charCodeAt(p)); p < end && h >= 0; h = hexValue(s.charCodeAt(++p))) {
        code = Math.min(code * 16 + h, 0x110000);
        digits++;
      }
    } else {
      for (; p < end && isDigit(s.charCodeAt(p)); p++) {
        code = Math.min(code * 10 + (s.charCodeAt(p) - 0x30), 0x110000);
        digits++;
      }
    }
    if (digits === 0) return -1;
    if (s.charCodeAt(p) === 0x3b) p++;
    referenceEnd = p;
    return code;
  }
  const nameStart = p;
  while (p < end && p - nameStart <= NAME_MAX && isLetter(s.charCodeAt(p))) p++;
  if (p === nameStart || p - nameStart > NAME_MAX) return -1;
  const code = NAMED.get(s.slice(nameStart, p).toLowerCase());
  if (code === undefined) return -1;
  if (s.charCodeAt(p) === 0x3b) p++;
  referenceEnd = p;
  return code;
}

/**
 * `s[start, end)` as a browser's URL parser sees it in an attribute: references decoded, control
 * characters and spaces dropped, lower case; at most `max` characters.
 */
export function decodedUrl(s: string, start: number, end: number, max: number): string {
  // Most values have nothing to decode, drop or fold: one slice, no per-character building.
  const stop = Math.min(end, start + max);
  let clean = true;
  for (let i = start; i < stop; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c === 0x26 || c === 0x7f || (c >= 0x41 && c <= 0x5a)) {
      clean = false;
      break;
    }
  }
  if (clean) return s.slice(start, stop);
  let out = '';
  let p = start;
  while (p < end && out.length < max) {
    let c = s.charCodeAt(p);
    let next = p + 1;
    if (c === 0x26) {
      const code = reference(s, p, end);
      if (code >= 0) {
        c = code;
        next = referenceEnd;
      }
    }
    p = next;
    if (c <= 0x20 || c === 0x7f) continue;
    out += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
  }
  return out;
}
