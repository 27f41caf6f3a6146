import { cryptoRandom, type Clock, type Random, type Result } from '#engine/shared';
import { ChallengeService, type UsedChallengeStore } from './challenge.ts';
import { assessReport, type AssessContext, type Assessment } from './report.ts';
import { TokenService } from './tokens.ts';

export interface ProbeServiceDeps {
  /** At least 16 bytes; every engine that must accept the same tokens shares it. */
  secret: Buffer;
  clock: Clock;
  random?: Random;
  /** Default challenge lifetime, seconds (default 300). */
  challengeTtlSeconds?: number;
  usedChallenges?: UsedChallengeStore;
}

/** Tokens, identity cookies, challenges and report assessment from one secret: what the endpoints need. */
export class ProbeService {
  readonly tokens: TokenService;
  readonly challenges: ChallengeService;

  constructor(deps: ProbeServiceDeps) {
    const random = deps.random ?? cryptoRandom;
    this.tokens = new TokenService(deps.secret, deps.clock, { random });
    this.challenges = new ChallengeService(deps.secret, deps.clock, {
      random,
      ...(deps.challengeTtlSeconds === undefined ? {} : { ttlSeconds: deps.challengeTtlSeconds }),
      ...(deps.usedChallenges === undefined ? {} : { used: deps.usedChallenges }),
    });
  }

  /** Validates a probe report (the parsed JSON body), checks its proof of work and judges the client. */
  assessReport(raw: unknown, ctx: AssessContext): Result<Assessment> {
    return assessReport(this.challenges, raw, ctx);
  }
}
