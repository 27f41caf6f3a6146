// Restart delays for the engine supervisor. Pure, so the schedule (1 s, 2 s, 4 s ... 30 s) is
// tested without waiting for it.

export interface BackoffPolicy {
  /** Delay before the first restart after a crash. */
  readonly initialMs: number;
  /** No restart waits longer than this, however often the engine crashed. */
  readonly maxMs: number;
  /** An engine that stayed up this long is considered healthy again: the next crash starts over. */
  readonly resetAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
  initialMs: 1_000,
  maxMs: 30_000,
  resetAfterMs: 60_000,
};

/** Delay before restart number `attempt` (1 for the first restart after a crash). */
export function backoffDelay(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  // Clamp the exponent so a long crash loop cannot overflow to Infinity before the cap applies.
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  return Math.min(policy.initialMs * 2 ** exponent, policy.maxMs);
}
