import { describe, expect, it } from 'vitest';
import { KeySlab, type SlabMember } from '../../../engine/events/slab.ts';

const member = (): SlabMember => ({ keys: 0, evictions: 0 });
const slabOf = (capacity: number) =>
  new KeySlab<SlabMember>(
    'ip',
    capacity,
    [member()],
    () => 4,
    () => null,
  );

/** Keys that pack into a slot's header (short, code units below 256) and keys that do not. */
const KEYS = [
  '10.0.0.1',
  '10.0.0.10',
  '10.0.0.1\u0000',
  '255.255.255.255',
  '123456789012345678',
  '1234567890123456789',
  '2001:db8::1',
  '2001:0db8:85a3:0000:0000:8a2e:0370:7334',
  'fp1a2b3c4d5e6f',
  'élève',
  'ユーザー',
  'user\u0100',
  'x',
];

describe('KeySlab: the key table', () => {
  it('finds every key it holds, packed in the header or not, and no key it does not hold', () => {
    const slab = slabOf(100);
    const slots = KEYS.map((k) => slab.create(k));
    expect(new Set(slots).size).toBe(KEYS.length);
    KEYS.forEach((k, i) => expect(slab.find(k)).toBe(slots[i]));
    for (const other of ['10.0.0.2', '10.0.0.', '10.0.0.100', '12345678901234567', 'ユーザ', 'user\u0101', 'y']) {
      expect(slab.find(other)).toBe(-1);
    }
    // Fresh copies of the strings find the same slots (no reliance on string identity).
    KEYS.forEach((k, i) => expect(slab.find(Buffer.from(k, 'utf16le').toString('utf16le'))).toBe(slots[i]));
  });

  it('reuses a released slot for another key without mistaking it for the old one', () => {
    const slab = slabOf(100);
    const a = slab.create('10.0.0.1');
    slab.create('2001:0db8:85a3:0000:0000:8a2e:0370:7334');
    slab.release(a, false);
    expect(slab.find('10.0.0.1')).toBe(-1);
    const b = slab.create('10.9.9.9');
    expect(b).toBe(a);
    expect(slab.find('10.9.9.9')).toBe(b);
    expect(slab.find('10.0.0.1')).toBe(-1);
    expect(slab.find('2001:0db8:85a3:0000:0000:8a2e:0370:7334')).not.toBe(-1);
  });

  it('keeps finding keys as it grows past its first blocks and evicts the least recently used at its cap', () => {
    const slab = slabOf(5_000);
    const keys = Array.from({ length: 6_000 }, (_, i) => (i % 3 === 0 ? `key-number-${i}-long-enough` : `k${i}`));
    keys.forEach((k) => slab.create(k));
    expect(slab.size).toBe(5_000);
    keys.slice(0, 1_000).forEach((k) => expect(slab.find(k)).toBe(-1));
    keys.slice(1_000).forEach((k) => expect(slab.find(k)).not.toBe(-1));
  });
});
