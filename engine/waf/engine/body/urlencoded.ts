/**
 * application/x-www-form-urlencoded (and query strings), as ModSecurity v3 splits them: pairs on
 * `&`, name and value on the first `=`, both URL-decoded (`+` is a space, a bad `%` escape stays as
 * written and flags URLENCODED_ERROR). Empty pairs are skipped.
 */

export interface UrlencodedResult {
  pairs: [string, string][];
  /** True when some `%` escape was invalid. */
  invalidEncoding: boolean;
}

function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** URL-decodes a binary string; returns the decoded text and whether an escape was invalid. */
export function urlDecode(input: string, plusAsSpace: boolean): { value: string; invalid: boolean } {
  if (input.indexOf('%') < 0 && (!plusAsSpace || input.indexOf('+') < 0)) {
    return { value: input, invalid: false };
  }
  let out = '';
  let invalid = false;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c === 37 /* % */) {
      const h = i + 2 < input.length ? hexVal(input.charCodeAt(i + 1)) : -1;
      const l = h >= 0 ? hexVal(input.charCodeAt(i + 2)) : -1;
      if (h >= 0 && l >= 0) {
        out += String.fromCharCode(h * 16 + l);
        i += 2;
      } else {
        invalid = true;
        out += '%';
      }
    } else if (c === 43 /* + */ && plusAsSpace) {
      out += ' ';
    } else {
      out += input[i];
    }
  }
  return { value: out, invalid };
}

/** Parses `a=1&b=2`; at most `maxPairs` pairs are kept (the rest counted as dropped). */
export function parseUrlencoded(input: string, separator = '&', maxPairs = 10_000): UrlencodedResult {
  const pairs: [string, string][] = [];
  let invalidEncoding = false;
  let start = 0;
  const n = input.length;
  while (start <= n && pairs.length < maxPairs) {
    let end = input.indexOf(separator, start);
    if (end < 0) end = n;
    if (end > start) {
      const piece = input.slice(start, end);
      const eq = piece.indexOf('=');
      const rawName = eq < 0 ? piece : piece.slice(0, eq);
      const rawValue = eq < 0 ? '' : piece.slice(eq + 1);
      const name = urlDecode(rawName, true);
      const value = urlDecode(rawValue, true);
      if (name.invalid || value.invalid) invalidEncoding = true;
      pairs.push([name.value, value.value]);
    }
    start = end + 1;
  }
  return { pairs, invalidEncoding };
}
