import { createHash } from 'node:crypto';
import { leadingZeroBits } from '#engine/probe';

/** Solves a challenge the way the probe does, with Node's SHA-256. */
export function solve(challenge: string, difficulty: number): number {
  for (let counter = 0; ; counter++) {
    if (leadingZeroBits(createHash('sha256').update(`${challenge}:${counter}`).digest()) >= difficulty) return counter;
  }
}

/** A counter whose hash does NOT reach the difficulty. */
export function nonSolution(challenge: string, difficulty: number): number {
  for (let counter = 0; ; counter++) {
    if (leadingZeroBits(createHash('sha256').update(`${challenge}:${counter}`).digest()) < difficulty) return counter;
  }
}
