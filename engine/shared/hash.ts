/**
 * A 53-bit hash of a string (two 32-bit multiply-xor hashes over the UTF-16 code units, each
 * finished with MurmurHash3's avalanche step): distinct counts keep these instead of the values, so
 * a key's memory does not depend on how long the values are. Two different values collide with a
 * probability of about 2^-53 per pair (about 1e-10 for a full set of 1,024 values). Never 0 (the
 * empty slot of ExactSet).
 */
export function hash53(text: string): number {
  let h1 = 0x811c9dc5 ^ text.length;
  let h2 = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 = fmix32(h1);
  h2 = fmix32(h2 ^ text.length);
  const value = (h1 >>> 0) * 0x200000 + (h2 >>> 11);
  return value === 0 ? 1 : value;
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The top 32 bits of a hash53 (its first hash). */
export const highBits = (hash: number): number => Math.floor(hash / 0x200000);
/** The low 21 bits of a hash53. */
export const lowBits = (hash: number): number => hash % 0x200000;
