/**
 * Runs the CRS regression cases that judge a web server's answer (an expected status and no log
 * expectation, or `expect_error`) the way go-ftw does: each stage's request goes as raw bytes over
 * TCP to nginx protecting a site with Rampart's plugin bundle (tests/support/crs-http.ts), and the
 * status of the answer is compared with the expectation. The cases with log expectations stay in
 * process (runner.ts).
 */
import type { WafRequest } from '#engine/waf';
import type { CrsGateway } from '../support/crs-http.ts';
import type { RegressionCase, Stage, StageExpect } from './cases.ts';
import type { CaseResult } from './runner.ts';

/** A stage judged over HTTP: it expects an error, or a status with no log expectation. */
export function isHttpLevel(e: StageExpect): boolean {
  const hasLog = e.logContains.length + e.noLogContains.length + e.expectIds.length + e.noExpectIds.length > 0;
  return e.expectError || (!hasLog && e.status !== undefined);
}

/**
 * The bytes a CRS runner sends: the request line from method, uri and version as written (a
 * missing version leaves `METHOD URI`), the headers in order, a blank line and the body. The token
 * cookie of the gateway is added as one more header (see crs-http.ts); raw requests get it right
 * after their request line, with their own line ending.
 */
export function requestBytes(stage: Stage, cookie: string): Buffer {
  if (stage.raw !== undefined) {
    const text = stage.raw.toString('latin1');
    const eol = text.indexOf('\n');
    if (eol < 0) return stage.raw;
    const nl = text[eol - 1] === '\r' ? '\r\n' : '\n';
    return Buffer.from(`${text.slice(0, eol + 1)}Cookie: ${cookie}${nl}${text.slice(eol + 1)}`, 'latin1');
  }
  const r = stage.request as WafRequest;
  const line = r.protocol === '' ? `${r.method} ${r.uri}` : `${r.method} ${r.uri} ${r.protocol}`;
  const head = [line, ...r.headers.map(([k, v]) => `${k}: ${v}`), `Cookie: ${cookie}`, '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), r.body ?? Buffer.alloc(0)]);
}

/** Each case from its own loopback address: Rampart denies a client for a minute after a block. */
const sourceAddress = (n: number): string => `127.1.${Math.floor(n / 250)}.${(n % 250) + 1}`;

async function judge(gateway: CrsGateway, stage: Stage, from: string): Promise<{ ok: boolean; reason: string }> {
  const e = stage.expect;
  const out = await gateway.send(requestBytes(stage, gateway.tokenCookie), from);
  const access = await gateway.lastAccess(from);
  const got = out.status === null ? `no status (${out.error ?? 'closed'})` : `status ${out.status}`;
  const who =
    access === undefined
      ? 'nginx answered without asking Rampart'
      : `Rampart ${access.guardStatus}${access.rules ? ` (rules ${access.rules})` : ''}`;
  const ok = e.expectError
    ? out.status === null || out.status >= 400
    : e.status !== undefined && out.status !== null && e.status.includes(out.status);
  const wanted = e.expectError ? 'an error' : JSON.stringify(e.status);
  return { ok, reason: `over HTTP: expected ${wanted}, got ${got}; ${who}` };
}

/** Judges the HTTP-level stages of the cases; their other stages passed in process. */
export async function runHttpCases(
  gateway: CrsGateway,
  cases: readonly RegressionCase[],
  first = 0,
): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  let n = first;
  for (const c of cases) {
    let result: CaseResult = { id: c.id, group: c.group, status: 'skip', reason: 'no expectation to judge' };
    for (const stage of c.stages) {
      if (!isHttpLevel(stage.expect)) continue;
      const r = await judge(gateway, stage, sourceAddress(n++));
      if (!r.ok) {
        result = { id: c.id, group: c.group, status: 'fail', reason: r.reason, http: true };
        break;
      }
      result = { id: c.id, group: c.group, status: 'pass', reason: r.reason, http: true };
    }
    results.push(result);
  }
  return results;
}
