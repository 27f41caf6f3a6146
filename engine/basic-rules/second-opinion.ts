import type { ProbeSignal } from '#engine/verdict';
import type { MatchedRule } from '#engine/waf';
import { checkMatch, checkedFamily, ruleParanoia, SEVERITY_POINTS, type TokenizerSignal } from './confirmation.ts';
import type { LearnedFit } from './learned-normal.ts';
import { SiteClients } from './site-clients.ts';

/**
 * The second opinion (issue 18, item 4): a request the Core Rule Set's anomaly score would block is
 * looked at again, with what CRS does not know, before it is blocked.
 *
 * - Rules of paranoia level 1 are never discounted: they are the `loose` level's own judgement.
 * - A rule of level 2 or above in the SQL injection or XSS family counts only when our tokenizers
 *   confirm it (confirmation.ts); otherwise its points are taken off. Matches the protection level
 *   `normal` checked already (`checked`) are not checked again.
 * - Other rules of level 2 or above (no tokenizer for their family) are weighed with the client:
 *   - a client whose token says it passed the browser probe takes up to PROBED_CREDIT points off
 *     them, SETTLED_CREDIT when its token is SETTLED_TOKEN_MS old or more and it has no block in
 *     the last hour (a session that has browsed for minutes, not one that just ran the probe);
 *   - the site's learned normal (learned-normal.ts): a matched parameter whose value has the
 *     shape and length the path's clean requests usually carry takes up to LEARNED_CREDIT more
 *     off; one with a character class or a length the parameter does not usually carry adds
 *     LEARNED_POINTS.
 *   Credits never take off more than these rules' own points.
 * - The client's history on the site: each block in the last hour adds HISTORY_POINTS (at most
 *   HISTORY_CAP), a client the probe flagged as automation adds BOT_POINTS, and a client that sent
 *   RATE_AT requests or more to the site in the last minute adds RATE_POINTS.
 *
 * Only blocks are reconsidered: a request under the threshold is never blocked by the opinion.
 * Points follow CRS's defaults by severity (critical 5, error 4, warning 3, notice 2), once per
 * match, as the engine adds them.
 */

export interface OpinionInput {
  matched: readonly MatchedRule[];
  /** The inbound anomaly score the WAF ended with. */
  score: number;
  /** The score that blocks (tx.inbound_anomaly_score_threshold, CRS's 5 when unset). */
  threshold: number;
  probe: ProbeSignal;
  /** Blocks of this client on this site in the last hour. */
  earlierBlocks: number;
  /** Requests of this client to this site in the last minute, this one included. */
  recentRequests: number;
  /** The site's learned normal of a match's parameter value; null when it has none that speaks. */
  learned?: (match: MatchedRule) => LearnedFit | null;
  /** Matches the protection level's tokenizer check looked at (their points are in `score` already). */
  checked?: ReadonlySet<MatchedRule>;
}

export type OpinionSignal = TokenizerSignal | ClientSignal;

interface ClientSignal {
  /** `learned`: a matched parameter against the site's learned normal; `probe`, `history`, `rate`: the client. */
  kind: 'learned' | 'probe' | 'history' | 'rate';
  /** Points added (positive) or taken off (negative). */
  points: number;
  /** `942260 ARGS:q: no SQL`, `probed browser`, `2 blocks in the last hour`. */
  detail: string;
}

export interface Opinion {
  /** Whether the request is still blocked. */
  blocked: boolean;
  /** The score after the signals. */
  score: number;
  threshold: number;
  signals: OpinionSignal[];
}

export const PROBED_CREDIT = 3;
export const SETTLED_CREDIT = 4;
export const SETTLED_TOKEN_MS = 5 * 60_000;
export const LEARNED_CREDIT = 2;
export const LEARNED_POINTS = 2;
export const RATE_AT = 300;
export const RATE_POINTS = 2;
export const HISTORY_POINTS = 2;
export const HISTORY_CAP = 6;
export const BOT_POINTS = 3;
export const DEFAULT_THRESHOLD = 5;

/** The second opinion on a request the anomaly score blocks; null when nothing in it is borderline. */
export function weigh(input: OpinionInput): Opinion | null {
  const signals: OpinionSignal[] = [];
  let score = input.score;
  let unchecked = 0;
  let borderline = false;
  /** Variables already judged against the learned normal, and the points of usual ones. */
  const judged = new Set<string>();
  let usualPoints = 0;
  let usualDetail = '';
  let unusualDetail = '';
  for (const match of input.matched) {
    const points = SEVERITY_POINTS[match.severity.toUpperCase()];
    if (points === undefined || ruleParanoia(match.tags) < 2) continue;
    borderline = true;
    const family = checkedFamily(match);
    if (family === null) {
      unchecked += points;
      const fit = input.learned === undefined || judged.has(match.variable) ? undefined : input.learned(match);
      if (fit === undefined) continue;
      judged.add(match.variable);
      if (fit?.fit === 'usual') {
        usualPoints += points;
        usualDetail ||= fit.detail;
      } else if (fit?.fit === 'unusual') unusualDetail ||= fit.detail;
      continue;
    }
    if (input.checked?.has(match)) continue;
    const signal = checkMatch(match, family, points);
    score += signal.points;
    signals.push(signal);
  }
  if (!borderline) return null;
  let credited = 0;
  const { probe } = input;
  if (probe.result === 'browser' && unchecked > 0) {
    const settled = probe.tokenAgeMs !== null && probe.tokenAgeMs >= SETTLED_TOKEN_MS && input.earlierBlocks === 0;
    credited = Math.min(unchecked, settled ? SETTLED_CREDIT : PROBED_CREDIT);
    score -= credited;
    signals.push({
      kind: 'probe',
      points: -credited,
      detail: settled ? `probed browser, token ${Math.floor(probe.tokenAgeMs! / 60_000)} min old` : 'probed browser',
    });
  } else if (probe.result === 'bot') {
    score += BOT_POINTS;
    signals.push({ kind: 'probe', points: BOT_POINTS, detail: 'the probe found automation' });
  }
  if (usualPoints > 0) {
    const credit = Math.min(LEARNED_CREDIT, usualPoints, unchecked - credited);
    score -= credit;
    signals.push({ kind: 'learned', points: -credit, detail: usualDetail });
  }
  if (unusualDetail !== '') {
    score += LEARNED_POINTS;
    signals.push({ kind: 'learned', points: LEARNED_POINTS, detail: unusualDetail });
  }
  if (input.earlierBlocks > 0) {
    const points = Math.min(HISTORY_CAP, HISTORY_POINTS * input.earlierBlocks);
    score += points;
    signals.push({
      kind: 'history',
      points,
      detail: `${input.earlierBlocks} block${input.earlierBlocks === 1 ? '' : 's'} in the last hour`,
    });
  }
  if (input.recentRequests >= RATE_AT) {
    score += RATE_POINTS;
    signals.push({ kind: 'rate', points: RATE_POINTS, detail: `${input.recentRequests} requests in the last minute` });
  }
  return { blocked: score >= input.threshold, score, threshold: input.threshold, signals };
}

/** The access record's `waf_second_opinion`: `cleared 10 -> 0 (threshold 5): 942260 ARGS:q: no SQL -5; ...`. */
export function opinionText(before: number, opinion: Opinion): string {
  const signals = opinion.signals
    .map((s) => `${s.detail}${s.points === 0 ? '' : ` ${s.points > 0 ? '+' : ''}${s.points}`}`)
    .join('; ');
  return `${opinion.blocked ? 'kept' : 'cleared'} ${before} -> ${opinion.score} (threshold ${opinion.threshold}): ${signals || 'no signal'}`;
}

const HOUR = 3_600_000;
const MINUTE = 60_000;
const MAX_CLIENTS = 100_000;

/** Blocks per (site, client address) in the last hour, bounded: the history signal. */
export class BlockHistory {
  readonly #blocks = new SiteClients<number[]>(MAX_CLIENTS);

  record(siteId: string, ip: string, now: number): void {
    const times = this.#blocks.get(siteId, ip);
    if (times === undefined) {
      this.#blocks.set(siteId, ip, [now]);
      return;
    }
    times.push(now);
    if (times.length > HISTORY_CAP) times.shift();
  }

  count(siteId: string, ip: string, now: number): number {
    const times = this.#blocks.get(siteId, ip);
    if (times === undefined) return 0;
    let n = 0;
    for (const at of times) if (now - at < HOUR) n++;
    return n;
  }

  forget(siteId: string): void {
    this.#blocks.forget(siteId);
  }
}

/**
 * Requests per (site, client address) in the last minute, bounded: the rate signal. Two fixed
 * one-minute windows, the previous one weighted by how much of it the last minute still covers.
 */
export class RequestRate {
  readonly #clients = new SiteClients<{ window: number; count: number; previous: number }>(MAX_CLIENTS);

  /** Counts a request and answers the client's requests in the last minute, this one included. */
  hit(siteId: string, ip: string, now: number): number {
    const window = Math.floor(now / MINUTE);
    let entry = this.#clients.get(siteId, ip);
    if (entry === undefined) {
      this.#clients.set(siteId, ip, (entry = { window, count: 0, previous: 0 }));
    } else if (entry.window !== window) {
      entry.previous = entry.window === window - 1 ? entry.count : 0;
      entry.count = 0;
      entry.window = window;
    }
    entry.count++;
    const covered = 1 - (now - window * MINUTE) / MINUTE;
    return entry.count + Math.floor(entry.previous * covered);
  }

  forget(siteId: string): void {
    this.#clients.forget(siteId);
  }
}
