import type { Clock } from '#engine/shared';

/**
 * A sliding-window counter: at most `limit` hits per key within `windowMs`. `check` says whether
 * one more is allowed and, if not, how long until it will be.
 */
export class SlidingWindowLimiter {
  readonly #hits = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  check(key: string): { allowed: true } | { allowed: false; retryAfterMs: number } {
    const hits = this.#recent(key);
    if (hits.length < this.limit) return { allowed: true };
    const oldest = hits[hits.length - this.limit] ?? this.clock.now();
    return { allowed: false, retryAfterMs: Math.max(1, oldest + this.windowMs - this.clock.now()) };
  }

  hit(key: string): void {
    const hits = this.#recent(key);
    hits.push(this.clock.now());
    this.#hits.set(key, hits);
  }

  reset(key: string): void {
    this.#hits.delete(key);
  }

  #recent(key: string): number[] {
    const since = this.clock.now() - this.windowMs;
    const hits = (this.#hits.get(key) ?? []).filter((t) => t > since);
    if (hits.length === 0) this.#hits.delete(key);
    else this.#hits.set(key, hits);
    return hits;
  }
}
