import { z } from 'zod';
import { RampartError, capRecord, err, ok, type Result } from '#engine/shared';
import type { ChallengeService, IssuedChallenge } from './challenge.ts';
import { HEADLESS_UA_PATTERN, SIGNS, SIGN_NAMES, isSignName, type ClientBotType, type SignName } from './signs.ts';

/** Largest report body the endpoint should accept (set the HTTP body limit to this). */
export const MAX_REPORT_BYTES = 16 * 1024;

/**
 * Largest detection record, as JSON in UTF-8 bytes. Its strings come from request headers and the
 * report (each at most MAX_LOG_FIELD characters); past this the longest are shortened further.
 */
export const MAX_DETECTION_RECORD_BYTES = 8 * 1024;

/**
 * The JSON the probe POSTs. Every string and array is bounded. Unknown fields are ignored (zod
 * strips them): a script cached in a browser may be older or newer than the engine, and an
 * extra field must not turn a person into an error. Unknown sign names are ignored for the same
 * reason; they are never counted.
 */
export const ReportSchema = z.object({
  v: z.literal(1),
  mode: z.enum(['reload', 'page', 'sdk']),
  event: z.string().max(16),
  signs: z.array(z.string().max(64)).max(64),
  fp: z.string().regex(/^[0-9a-f]{8,64}$/),
  ua: z.string().max(1024).optional(),
  url: z.string().max(2048).optional(),
  host: z.string().max(253).optional(),
  pow: z
    .object({
      challenge: z.string().max(128),
      counter: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    })
    .optional(),
  account: z.string().max(256).optional(),
  login_status: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
});

export type ProbeReport = z.infer<typeof ReportSchema>;

export type Verdict = 'human' | 'bot' | 'suspicious';

/** 0 no login behaviour; 2 the success element matched; 1 the failure element matched (spec 2.3 note). */
export type LoginStatus = 0 | 1 | 2;

export interface AssessContext {
  siteId: string;
  srcIp: string;
  /** The User-Agent request header of the report. */
  userAgent: string;
  /** Epoch ms of the report; becomes the record's `_timestamp`. */
  now: number;
  powRequired: boolean;
  /** The Host of the report request; preferred over what the page says. */
  hostname?: string;
  session?: string;
}

export interface Assessment {
  verdict: Verdict;
  /** The family of the first strong sign, null unless the verdict is bot. */
  botType: ClientBotType | null;
  /** Known signs found by the probe and by the server, in catalogue order. */
  signs: SignName[];
  fingerprint: string;
  account?: string;
  loginStatus: LoginStatus;
  /** The page the probe ran on (`location.href`), logged as `referrer`. */
  referrer: string;
  hostname: string;
  event: string;
  /** Difficulty of the proof of work verified with this report, 0 when none. */
  powDifficulty: number;
}

/** Two weak signs together make a client suspicious; one alone is ordinary. */
export const WEAK_SIGNS_FOR_SUSPICIOUS = 2;

export function assessReport(challenges: ChallengeService, raw: unknown, ctx: AssessContext): Result<Assessment> {
  const parsed = ReportSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : 'report';
    return err(
      new RampartError(
        'VALIDATION_FAILED',
        `The probe report field "${field}" is not valid: ${issue?.message ?? 'not an object'}.`,
        {
          field,
          params: { reason: issue?.code ?? 'invalid_type' },
        },
      ),
    );
  }
  const report = parsed.data;

  let powDifficulty = 0;
  if (report.pow) {
    const check = challenges.verifySolution(report.pow.challenge, report.pow.counter, { siteId: ctx.siteId });
    if (check.kind !== 'valid') {
      const reason = check.kind === 'invalid' ? check.reason : check.kind;
      return err(
        new RampartError(
          'VALIDATION_FAILED',
          `The proof of work was refused (${reason}); the probe retries with a new challenge.`,
          {
            field: 'pow',
            params: { reason },
          },
        ),
      );
    }
    powDifficulty = check.difficulty;
  } else if (ctx.powRequired) {
    return err(
      new RampartError('VALIDATION_FAILED', 'The report carries no proof of work, which this site requires.', {
        field: 'pow',
        params: { reason: 'missing' },
      }),
    );
  }

  const found = new Set<SignName>();
  for (const name of report.signs) if (isSignName(name)) found.add(name);
  if (HEADLESS_UA_PATTERN.test(ctx.userAgent)) found.add('headless_ua');
  if (report.ua !== undefined && ctx.userAgent !== '' && report.ua !== ctx.userAgent) found.add('ua_mismatch');

  const signs = SIGN_NAMES.filter((name) => found.has(name));
  let botType: ClientBotType | null = null;
  let weak = 0;
  for (const name of signs) {
    const info = SIGNS[name];
    if (info.strength === 'strong') botType ??= info.family;
    else weak++;
  }
  const verdict: Verdict = botType !== null ? 'bot' : weak >= WEAK_SIGNS_FOR_SUSPICIOUS ? 'suspicious' : 'human';

  const account = report.account !== undefined && report.account !== '' ? report.account : undefined;
  return ok({
    verdict,
    botType,
    signs,
    fingerprint: report.fp,
    ...(account === undefined ? {} : { account }),
    loginStatus: account === undefined ? 0 : (report.login_status ?? 0),
    referrer: report.url ?? '',
    hostname: ctx.hostname ?? report.host ?? '',
    event: report.event,
    powDifficulty,
  });
}

/** A detection log record (spec 2.3 field names), ready for the log store. */
export type DetectionRecord = {
  /** Epoch ms, whole seconds (spec 8: milliseconds become 000). */
  _timestamp: number;
  site_id: string;
  src_ip: string;
  user_agent: string;
  referrer: string;
  hostname: string;
  detection_result: Verdict;
  /** Empty unless the verdict is bot. */
  client_bot_type: ClientBotType | '';
  fingerprint: string;
  account?: string;
  login_status: LoginStatus;
  session?: string;
  /** The fields cut to fit (each ends in `…`); absent when nothing was cut. */
  _truncated?: string[];
};

/** The record of a judged report. Every string is capped and the whole fits MAX_DETECTION_RECORD_BYTES. */
export function detectionRecord(assessment: Assessment, ctx: AssessContext): DetectionRecord {
  const record: DetectionRecord = {
    _timestamp: Math.floor(ctx.now / 1000) * 1000,
    site_id: ctx.siteId,
    src_ip: ctx.srcIp,
    user_agent: ctx.userAgent,
    referrer: assessment.referrer,
    hostname: assessment.hostname,
    detection_result: assessment.verdict,
    client_bot_type: assessment.botType ?? '',
    fingerprint: assessment.fingerprint,
    ...(assessment.account === undefined ? {} : { account: assessment.account }),
    login_status: assessment.loginStatus,
    ...(ctx.session === undefined ? {} : { session: ctx.session }),
  };
  return capRecord(record, { maxBytes: MAX_DETECTION_RECORD_BYTES });
}

/**
 * The JSON body the report endpoint answers with; the probe reads it whatever the status.
 * `next` is the challenge for the following report (page-mode refresh, login report, retry): send
 * it on refusals too (400 with the error body plus `next`), so the probe can try again.
 */
export type ReportResponse =
  | { blocked: false; ttl: number; next?: Pick<IssuedChallenge, 'challenge' | 'difficulty'> }
  | { blocked: true; html: string; next?: Pick<IssuedChallenge, 'challenge' | 'difficulty'> };

export function reportResponse(input: {
  /** Token lifetime in seconds: page mode refreshes at 70 % of it. */
  ttlSeconds: number;
  /** The site's block response content when this client is to be blocked (answer with the block status). */
  blockHtml?: string | null;
  next?: IssuedChallenge | null;
}): ReportResponse {
  const next = input.next ? { next: { challenge: input.next.challenge, difficulty: input.next.difficulty } } : {};
  if (input.blockHtml !== undefined && input.blockHtml !== null)
    return { blocked: true, html: input.blockHtml, ...next };
  return { blocked: false, ttl: input.ttlSeconds, ...next };
}
