/**
 * Small bit sets over operator indexes (CompiledRule.memo), as plain arrays of 30-bit words.
 * Typed arrays would be the obvious choice, but those above 64 bytes keep their storage outside
 * V8's heap and cost far more to allocate than the few word operations they hold; 30-bit words
 * stay small integers (no boxing) on every V8 build, with or without pointer compression.
 */
export type Bits = number[];

export const WORD_BITS = 30;

export function wordsFor(count: number): number {
  return Math.max(1, Math.ceil(count / WORD_BITS));
}

export function emptyBits(words: number): Bits {
  const bits: Bits = [];
  for (let w = 0; w < words; w++) bits.push(0);
  return bits;
}

export function setBit(bits: Bits, i: number): void {
  const w = (i / WORD_BITS) | 0;
  bits[w] = (bits[w] as number) | (1 << (i - w * WORD_BITS));
}

export function hasBit(bits: Bits | null | undefined, i: number): boolean {
  if (bits === null || bits === undefined) return false;
  const w = (i / WORD_BITS) | 0;
  return ((bits[w] as number) & (1 << (i - w * WORD_BITS))) !== 0;
}
