/**
 * ModSecurity's reading of numbers for @eq, @ge, @gt, @le, @lt (atoi/stoi): leading whitespace,
 * an optional sign, then the leading decimal digits; anything without digits is 0. Values beyond
 * a 64-bit integer saturate.
 */
export function leadingInteger(s: string): number {
  let k = 0;
  while (k < s.length && isSpace(s.charCodeAt(k))) k++;
  let sign = 1;
  if (s[k] === '+' || s[k] === '-') {
    if (s[k] === '-') sign = -1;
    k++;
  }
  let value = 0;
  let digits = 0;
  for (; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x30 || c > 0x39) break;
    value = value * 10 + (c - 0x30);
    digits++;
  }
  if (digits === 0) return 0;
  const limit = 2 ** 63;
  return sign * Math.min(value, limit);
}

function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}
