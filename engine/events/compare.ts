import type { Comparator } from '#engine/shared';

/** Comparators as small integers (index in COMPARATORS' order), so the hot path switches on a number. */
export type Cmp = 0 | 1 | 2 | 3 | 4;
const CODES: Readonly<Record<Comparator, Cmp>> = { '>=': 0, '>': 1, '=': 2, '<': 3, '<=': 4 };

export const cmpOf = (comparator: Comparator): Cmp => CODES[comparator];

/** `value <comparator> threshold`. */
export function compare(cmp: Cmp, value: number, threshold: number): boolean {
  switch (cmp) {
    case 0:
      return value >= threshold;
    case 1:
      return value > threshold;
    case 2:
      return value === threshold;
    case 3:
      return value < threshold;
    default:
      return value <= threshold;
  }
}
