import { Lru, cryptoRandom, type Clock, type Random, type Result } from '#engine/shared';
import { ChallengeService, type UsedChallengeStore } from './challenge.ts';
import { assessReport, type AssessContext, type Assessment } from './report.ts';
import { TokenService } from './tokens.ts';

/** Reports accepted per minute from one source address at one site, by default. */
export const DEFAULT_REPORTS_PER_MINUTE = 30;
/** (site, address) pairs whose report budget is remembered; the least recently used are forgotten. */
export const DEFAULT_REPORT_LIMIT_KEYS = 65_536;

/**
 * Why a report was refused: not a valid report (`malformed`), a proof of work that failed its
 * signature, expiry, replay or work check (`proof_of_work`), none where the site requires one
 * (`proof_missing`), or too many reports from one address (`rate_limited`).
 */
export type ReportRefusal = 'malformed' | 'proof_of_work' | 'proof_missing' | 'rate_limited';

export type RefusedReportCounts = Readonly<Record<ReportRefusal, number>>;

export type ReportAdmission = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface ProbeServiceDeps {
  /** At least 16 bytes; every engine that must accept the same tokens shares it. */
  secret: Buffer;
  clock: Clock;
  random?: Random;
  /** Default challenge lifetime, seconds (default 300). */
  challengeTtlSeconds?: number;
  usedChallenges?: UsedChallengeStore;
  /** Reports accepted per minute from one address at one site (default 30; a burst of as many is allowed). */
  reportsPerMinute?: number;
  /** How many (site, address) budgets are remembered at most (default 65 536). */
  reportLimitKeys?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per (site, source address): `perMinute` reports at once, then one every
 * 60 / perMinute seconds. The buckets live in a bounded recently-used cache, so a flood of
 * addresses costs bounded memory; an address forgotten under that churn starts again with a full
 * bucket, which the log store's disk budget backs up.
 */
export class ReportRateLimiter {
  readonly #buckets: Lru<string, Bucket>;
  readonly #capacity: number;
  readonly #perMs: number;

  constructor(
    private readonly clock: Clock,
    perMinute: number = DEFAULT_REPORTS_PER_MINUTE,
    maxKeys: number = DEFAULT_REPORT_LIMIT_KEYS,
  ) {
    if (!(perMinute > 0)) throw new RangeError('reports per minute must be positive');
    this.#buckets = new Lru(maxKeys);
    this.#capacity = perMinute;
    this.#perMs = perMinute / 60_000;
  }

  /** Spends one report of the pair's budget, or says how many seconds until one is available. */
  admit(siteId: string, srcIp: string): ReportAdmission {
    const now = this.clock.now();
    // The address comes from request headers; its key is bounded whatever it holds.
    const key = `${siteId}\u0000${srcIp.length > 64 ? srcIp.slice(0, 64) : srcIp}`;
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      this.#buckets.set(key, { tokens: this.#capacity - 1, at: now });
      return { ok: true };
    }
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + Math.max(0, now - bucket.at) * this.#perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perMs / 1000)) };
  }

  get size(): number {
    return this.#buckets.size;
  }
}

const NO_REFUSALS: RefusedReportCounts = { malformed: 0, proof_of_work: 0, proof_missing: 0, rate_limited: 0 };

/**
 * Refused reports are counted per site and reason instead of written to the detection log: a client
 * that sends garbage costs a counter, not disk. Kept in memory since the engine started.
 */
export class RefusedReports {
  readonly #bySite = new Map<string, Record<ReportRefusal, number>>();

  constructor(private readonly maxSites = 10_000) {}

  add(siteId: string, reason: ReportRefusal): void {
    let counts = this.#bySite.get(siteId);
    if (counts === undefined) {
      // Callers pass known site ids; the bound only keeps a bug from growing the map without end.
      if (this.#bySite.size >= this.maxSites) return;
      counts = { ...NO_REFUSALS };
      this.#bySite.set(siteId, counts);
    }
    counts[reason]++;
  }

  of(siteId: string): RefusedReportCounts {
    return { ...(this.#bySite.get(siteId) ?? NO_REFUSALS) };
  }
}

/** Tokens, identity cookies, challenges and report assessment from one secret: what the endpoints need. */
export class ProbeService {
  readonly tokens: TokenService;
  readonly challenges: ChallengeService;
  readonly #limiter: ReportRateLimiter;
  readonly #refused = new RefusedReports();

  constructor(deps: ProbeServiceDeps) {
    const random = deps.random ?? cryptoRandom;
    this.tokens = new TokenService(deps.secret, deps.clock, { random });
    this.challenges = new ChallengeService(deps.secret, deps.clock, {
      random,
      ...(deps.challengeTtlSeconds === undefined ? {} : { ttlSeconds: deps.challengeTtlSeconds }),
      ...(deps.usedChallenges === undefined ? {} : { used: deps.usedChallenges }),
    });
    this.#limiter = new ReportRateLimiter(deps.clock, deps.reportsPerMinute, deps.reportLimitKeys);
  }

  /**
   * Whether a report from `srcIp` at `siteId` may be judged now. Reports need no key, so this comes
   * first: over the limit, answer 429 with Retry-After and write nothing. Refusals are counted.
   */
  admitReport(siteId: string, srcIp: string): ReportAdmission {
    const admission = this.#limiter.admit(siteId, srcIp);
    if (!admission.ok) this.#refused.add(siteId, 'rate_limited');
    return admission;
  }

  /**
   * Validates a probe report (the parsed JSON body), checks its proof of work and judges the client.
   * A refused report is counted by reason (`refusedReports`); it is never a log record.
   */
  assessReport(raw: unknown, ctx: AssessContext): Result<Assessment> {
    const result = assessReport(this.challenges, raw, ctx);
    if (!result.ok) {
      const { field, params } = result.error;
      this.#refused.add(
        ctx.siteId,
        field !== 'pow' ? 'malformed' : params.reason === 'missing' ? 'proof_missing' : 'proof_of_work',
      );
    }
    return result;
  }

  /** Reports refused at a site since the engine started, by reason (for site status and diagnostics). */
  refusedReports(siteId: string): RefusedReportCounts {
    return this.#refused.of(siteId);
  }
}
