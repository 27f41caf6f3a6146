/** Byte helpers shared by the transformations (C-locale ctype, ModSecurity's x2c). */

/** C isspace: HT, LF, VT, FF, CR, space. */
export function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

export const NBSP = 0xa0;

export function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

export function isHex(c: number): boolean {
  return hexValue(c) >= 0;
}

export function isOctal(c: number): boolean {
  return c >= 0x30 && c <= 0x37;
}

/**
 * ModSecurity's x2c on the two chars at `at`: exact for hex digits and, like the C original, some
 * byte for anything else (hexDecode does not validate its input).
 */
export function x2c(s: string, at: number): number {
  return (looseDigit(s.charCodeAt(at)) * 16 + looseDigit(s.charCodeAt(at + 1))) & 0xff;
}

function looseDigit(c: number): number {
  return c >= 0x41 ? (c & 0xdf) - 0x41 + 10 : c - 0x30;
}

/** Binary string from the first `length` bytes. */
export function fromBytes(bytes: Uint8Array, length: number): string {
  // Short strings (nearly all request values) are built without a Buffer round trip.
  if (length <= 1024) return String.fromCharCode.apply(null, bytes.subarray(0, length) as unknown as number[]);
  return Buffer.from(bytes.buffer, bytes.byteOffset, length).toString('latin1');
}
