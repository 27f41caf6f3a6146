import { describe, expect, it } from 'vitest';
import { keepLast } from '#engine/shared';

describe('keepLast', () => {
  it('keeps everything while the list is below its limit', () => {
    const ring = [1, 2];
    keepLast(ring, [3], 5);
    expect(ring).toEqual([1, 2, 3]);
  });

  it('drops the oldest entries once the limit is passed', () => {
    const ring = [1, 2, 3];
    keepLast(ring, [4, 5], 3);
    expect(ring).toEqual([3, 4, 5]);
  });

  it('keeps only the tail of a flood larger than the limit, without the list ever holding it', () => {
    const flood = Array.from({ length: 200_000 }, (_, i) => i);
    const ring = [-1];
    keepLast(ring, flood, 4);
    expect(ring).toEqual([199_996, 199_997, 199_998, 199_999]);
  });

  it('one item at a time gives the same tail as a batch', () => {
    const one: number[] = [];
    for (let i = 0; i < 10; i += 1) keepLast(one, [i], 3);
    expect(one).toEqual([7, 8, 9]);
  });
});
