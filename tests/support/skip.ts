/**
 * Skips that say why. Vitest's `describe.skipIf` / `it.skipIf` record no reason; these note one
 * with `ctx.skip(reason)`, which tests/support/skip-reporter.ts prints beside each skipped test (and
 * under CI=true turns into a failure).
 */
import { beforeEach } from 'vitest';

/**
 * Skips every test of the enclosing `describe` with `reason`, when there is one. Work done while
 * collecting the describe (or in its beforeAll) must itself check that its data is there.
 */
export function skipAllWithout(reason: string | undefined): void {
  if (reason !== undefined) beforeEach((ctx) => ctx.skip(reason));
}
