import { describe, expect, it } from 'vitest';
import { Lru } from '#engine/shared';

describe('Lru (two generations)', () => {
  it('never holds more than its capacity, for odd and even capacities', () => {
    for (const capacity of [1, 2, 3, 4, 7, 100]) {
      const cache = new Lru<number, number>(capacity);
      for (let i = 0; i < 1000; i++) {
        cache.set(i, i);
        expect(cache.size).toBeLessThanOrEqual(capacity);
      }
      expect(cache.size).toBe(capacity);
    }
  });

  it('keeps an entry that is used while others come and go', () => {
    const cache = new Lru<string, number>(10);
    cache.set('hot', 1);
    for (let i = 0; i < 500; i++) {
      cache.set(`cold-${i}`, i);
      expect(cache.get('hot')).toBe(1);
    }
    expect(cache.get('cold-0')).toBeUndefined();
    expect(cache.get('cold-499')).toBe(499);
  });

  it('updates a value in place and refuses a capacity below one', () => {
    const cache = new Lru<string, number>(4);
    cache.set('a', 1);
    cache.set('a', 2);
    expect(cache.get('a')).toBe(2);
    expect(cache.size).toBe(1);
    expect(() => new Lru(0)).toThrow(RangeError);
  });
});
