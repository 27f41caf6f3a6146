import { describe, expect, it } from 'vitest';
import {
  MAX_DETECTION_RECORD_BYTES,
  ProbeService,
  ReportRateLimiter,
  detectionRecord,
  reportResponse,
  type AssessContext,
  type Assessment,
} from '#engine/probe';
import { MAX_LOG_FIELD, ManualClock, RampartError, TRUNCATED_MARK, type Result } from '#engine/shared';
import { solve } from './support.ts';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
const clock = new ManualClock(Date.UTC(2026, 2, 1, 8, 30, 15, 456));
const probe = new ProbeService({ secret: Buffer.alloc(32, 9), clock });
const ctx: AssessContext = {
  siteId: 'site_a',
  srcIp: '192.0.2.10',
  userAgent: UA,
  now: clock.now(),
  powRequired: false,
};

function report(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    v: 1,
    mode: 'reload',
    event: 'load',
    signs: [],
    fp: '0123456789abcdef',
    ua: UA,
    url: 'http://shop.example/a?b=1',
    host: 'shop.example',
    ...overrides,
  };
}

function assessed(result: Result<Assessment>): Assessment {
  if (!result.ok) throw result.error;
  return result.value;
}

function failure(result: Result<Assessment>): RampartError {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

describe('report assessment', () => {
  it('judges a report without signs human', () => {
    expect(assessed(probe.assessReport(report(), ctx))).toMatchObject({
      verdict: 'human',
      botType: null,
      signs: [],
      fingerprint: '0123456789abcdef',
    });
  });

  it('judges a strong sign bot, with its family as bot type', () => {
    expect(assessed(probe.assessReport(report({ signs: ['webdriver'] }), ctx))).toMatchObject({
      verdict: 'bot',
      botType: 'webdriver',
      signs: ['webdriver'],
    });
  });

  it('judges a single weak sign human', () => {
    expect(assessed(probe.assessReport(report({ signs: ['software_webgl'] }), ctx))).toMatchObject({
      verdict: 'human',
      signs: ['software_webgl'],
    });
  });

  it('judges two weak signs suspicious', () => {
    expect(
      assessed(probe.assessReport(report({ signs: ['software_webgl', 'no_window_chrome_ui'] }), ctx)).verdict,
    ).toBe('suspicious');
  });

  it('takes the bot type from the first strong sign of the catalogue', () => {
    const result = assessed(
      probe.assessReport(report({ signs: ['playwright_global', 'software_webgl', 'headless_ua'] }), ctx),
    );
    expect(result).toMatchObject({
      verdict: 'bot',
      botType: 'headless',
      signs: ['headless_ua', 'playwright_global', 'software_webgl'],
    });
  });

  it('finds a headless user agent in the request header even when the probe says nothing', () => {
    const headless = UA.replace('Chrome/', 'HeadlessChrome/');
    const result = assessed(probe.assessReport(report({ ua: headless }), { ...ctx, userAgent: headless }));
    expect(result).toMatchObject({ verdict: 'bot', botType: 'headless', signs: ['headless_ua'] });
  });

  it('notes a user agent that differs between page and header as a weak sign', () => {
    expect(assessed(probe.assessReport(report({ ua: 'Other/1.0' }), ctx)).signs).toEqual(['ua_mismatch']);
  });

  it('ignores sign names it does not know, and unknown fields', () => {
    const result = assessed(
      probe.assessReport(report({ signs: ['made_up', 'software_webgl'], extra: { deep: true } }), ctx),
    );
    expect(result).toMatchObject({ verdict: 'human', signs: ['software_webgl'] });
  });

  it('refuses an oversized sign list naming the field', () => {
    const error = failure(probe.assessReport(report({ signs: Array.from({ length: 65 }, () => 'webdriver') }), ctx));
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'signs' });
  });

  it('refuses an oversized string naming its path', () => {
    expect(failure(probe.assessReport(report({ signs: ['x'.repeat(65)] }), ctx)).field).toBe('signs.0');
    expect(failure(probe.assessReport(report({ account: 'a'.repeat(257) }), ctx)).field).toBe('account');
    expect(failure(probe.assessReport(report({ url: 'u'.repeat(2049) }), ctx)).field).toBe('url');
  });

  it('refuses a malformed fingerprint naming the field', () => {
    expect(failure(probe.assessReport(report({ fp: 'not hex' }), ctx))).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'fp',
    });
  });

  it('refuses something that is not a report', () => {
    for (const raw of [null, 'text', 42, []])
      expect(failure(probe.assessReport(raw, ctx)).code).toBe('VALIDATION_FAILED');
  });

  it('refuses a report without proof of work when the site requires it', () => {
    expect(failure(probe.assessReport(report(), { ...ctx, powRequired: true }))).toMatchObject({
      field: 'pow',
      params: { reason: 'missing' },
    });
  });

  it('accepts a solved challenge once and refuses its replay', () => {
    const issued = probe.challenges.issueChallenge({ siteId: 'site_a', difficulty: 8 });
    const pow = { challenge: issued.challenge, counter: solve(issued.challenge, 8) };
    const withPow = { ...ctx, powRequired: true };
    expect(assessed(probe.assessReport(report({ pow }), withPow)).powDifficulty).toBe(8);
    expect(failure(probe.assessReport(report({ pow }), withPow))).toMatchObject({
      field: 'pow',
      params: { reason: 'replayed' },
    });
  });

  it('reports account and login status only with an account', () => {
    expect(assessed(probe.assessReport(report({ account: 'alice', login_status: 2 }), ctx))).toMatchObject({
      account: 'alice',
      loginStatus: 2,
    });
    expect(assessed(probe.assessReport(report({ login_status: 2 }), ctx)).loginStatus).toBe(0);
  });

  it('refuses a login status outside 0, 1, 2', () => {
    expect(failure(probe.assessReport(report({ account: 'alice', login_status: 3 }), ctx)).field).toBe('login_status');
  });
});

describe('detection record', () => {
  it('carries the spec 2.3 fields with the timestamp cut to the second', () => {
    const assessment = assessed(
      probe.assessReport(report({ signs: ['webdriver'], account: 'alice', login_status: 1 }), ctx),
    );
    expect(detectionRecord(assessment, { ...ctx, session: 's1' })).toEqual({
      _timestamp: Date.UTC(2026, 2, 1, 8, 30, 15),
      site_id: 'site_a',
      src_ip: '192.0.2.10',
      user_agent: UA,
      referrer: 'http://shop.example/a?b=1',
      hostname: 'shop.example',
      detection_result: 'bot',
      client_bot_type: 'webdriver',
      fingerprint: '0123456789abcdef',
      account: 'alice',
      login_status: 1,
      session: 's1',
    });
  });

  it('prefers the Host of the report request over the page hostname', () => {
    const assessment = assessed(probe.assessReport(report(), { ...ctx, hostname: 'www.shop.example' }));
    expect(detectionRecord(assessment, ctx)).toMatchObject({ hostname: 'www.shop.example', client_bot_type: '' });
  });

  it('caps every string taken from the request at 2 KB and the whole record at 8 KB, naming what was cut', () => {
    const huge = 'x'.repeat(200_000);
    const big = { ...ctx, userAgent: huge, hostname: huge, session: huge, srcIp: huge };
    const assessment = assessed(probe.assessReport(report({ ua: undefined, url: 'u'.repeat(2048) }), big));
    const record = detectionRecord(assessment, big);
    expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThanOrEqual(MAX_DETECTION_RECORD_BYTES);
    for (const field of ['user_agent', 'hostname', 'session', 'src_ip'] as const) {
      expect(record[field]?.length, field).toBeLessThanOrEqual(MAX_LOG_FIELD);
      expect(record[field]?.endsWith(TRUNCATED_MARK), field).toBe(true);
    }
    expect(record._truncated).toEqual(expect.arrayContaining(['user_agent', 'hostname', 'session', 'src_ip']));
    expect(record.fingerprint).toBe('0123456789abcdef');
    expect(record.detection_result).toBe('human');
  });

  it('leaves an ordinary record without a truncation marker', () => {
    expect(detectionRecord(assessed(probe.assessReport(report(), ctx)), ctx)).not.toHaveProperty('_truncated');
  });
});

describe('report admission and refusals', () => {
  it('admits a burst of the per-minute budget from one address at one site, then answers with the wait', () => {
    const limitClock = new ManualClock();
    const service = new ProbeService({ secret: Buffer.alloc(32, 9), clock: limitClock, reportsPerMinute: 30 });
    const answers = Array.from({ length: 500 }, () => service.admitReport('site_a', '192.0.2.10'));
    expect(answers.filter((a) => a.ok)).toHaveLength(30);
    expect(answers[30]).toEqual({ ok: false, retryAfterSeconds: 2 });
    expect(service.refusedReports('site_a').rate_limited).toBe(470);
  });

  it('keeps separate budgets per address and per site', () => {
    const limitClock = new ManualClock();
    const service = new ProbeService({ secret: Buffer.alloc(32, 9), clock: limitClock, reportsPerMinute: 2 });
    for (let i = 0; i < 2; i++) expect(service.admitReport('site_a', '192.0.2.10').ok).toBe(true);
    expect(service.admitReport('site_a', '192.0.2.10').ok).toBe(false);
    expect(service.admitReport('site_a', '192.0.2.11').ok).toBe(true);
    expect(service.admitReport('site_b', '192.0.2.10').ok).toBe(true);
  });

  it('refills the budget over time, one report every 60 / perMinute seconds', () => {
    const limitClock = new ManualClock();
    const service = new ProbeService({ secret: Buffer.alloc(32, 9), clock: limitClock, reportsPerMinute: 30 });
    for (let i = 0; i < 30; i++) service.admitReport('site_a', '192.0.2.10');
    expect(service.admitReport('site_a', '192.0.2.10').ok).toBe(false);
    limitClock.advance(2_000);
    expect(service.admitReport('site_a', '192.0.2.10').ok).toBe(true);
    expect(service.admitReport('site_a', '192.0.2.10').ok).toBe(false);
  });

  it('remembers a bounded number of address budgets', () => {
    const limiter = new ReportRateLimiter(new ManualClock(), 30, 1000);
    for (let i = 0; i < 10_000; i++) limiter.admit('site_a', `10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBeLessThanOrEqual(1000);
  });

  it('counts refused reports per site by reason', () => {
    const service = new ProbeService({ secret: Buffer.alloc(32, 9), clock });
    failure(service.assessReport({ v: 2 }, ctx));
    failure(service.assessReport(report({ fp: 'NOT HEX' }), ctx));
    failure(service.assessReport(report(), { ...ctx, powRequired: true }));
    failure(service.assessReport(report({ pow: { challenge: 'A'.repeat(48), counter: 1 } }), ctx));
    assessed(service.assessReport(report(), ctx));
    expect(service.refusedReports('site_a')).toEqual({
      malformed: 2,
      proof_missing: 1,
      proof_of_work: 1,
      rate_limited: 0,
    });
    expect(service.refusedReports('site_other')).toEqual({
      malformed: 0,
      proof_missing: 0,
      proof_of_work: 0,
      rate_limited: 0,
    });
  });
});

describe('report response', () => {
  it('tells the probe the token lifetime and the next challenge', () => {
    const next = probe.challenges.issueChallenge({ siteId: 'site_a', difficulty: 4 });
    expect(reportResponse({ ttlSeconds: 60, next })).toEqual({
      blocked: false,
      ttl: 60,
      next: { challenge: next.challenge, difficulty: 4 },
    });
  });

  it('carries the block page when blocked', () => {
    expect(reportResponse({ ttlSeconds: 60, blockHtml: '<p>no</p>' })).toEqual({ blocked: true, html: '<p>no</p>' });
  });
});
