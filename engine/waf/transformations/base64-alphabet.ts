/** Value of each byte in the base64 alphabet (A-Z a-z 0-9 + /), -1 for any other byte. */
export const BASE64_VALUE: Int8Array = (() => {
  const t = new Int8Array(256).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let k = 0; k < alphabet.length; k++) t[alphabet.charCodeAt(k)] = k;
  return t;
})();

/** Decodes base64 digits (values 0-63) four at a time; a final group of 2 or 3 gives 1 or 2 bytes. */
export function decodeDigits(values: Uint8Array, count: number): string {
  let out = '';
  let k = 0;
  for (; k + 3 < count; k += 4) {
    const v =
      ((values[k] as number) << 18) |
      ((values[k + 1] as number) << 12) |
      ((values[k + 2] as number) << 6) |
      (values[k + 3] as number);
    out += String.fromCharCode((v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
  }
  const rest = count - k;
  if (rest >= 2) out += String.fromCharCode((((values[k] as number) << 2) | ((values[k + 1] as number) >> 4)) & 0xff);
  if (rest === 3)
    out += String.fromCharCode((((values[k + 1] as number) << 4) | ((values[k + 2] as number) >> 2)) & 0xff);
  return out;
}
