/**
 * CLI: runs the CRS regression cases of the 12 groups and prints
 * `crs_regression_pass_rate: <percent> %` (Debian's CRS 3.3.4 rules, v3.3.4 cases) and
 * `crs_v4_regression_pass_rate` (the CRS v4.25.0 rules, v4.25.0 cases), one line per group, and
 * writes the failures with their reasons to tests/crs/known-failures-<version>.md. The data comes
 * from outside the repository (tests/support/crs-dirs.ts: RAMPART_CRS_REGRESSION,
 * RAMPART_CRS_V4_RULES, the modsecurity-crs package); a suite without its data is skipped with a
 * line saying what is missing and how to provide it, except in CI (CI=true), where that fails. Cases with log expectations run in process
 * (runner.ts); the 3.3.4 cases that judge the web server's answer (a status only, or expect_error)
 * run over HTTP against nginx with Rampart's plugin (http-runner.ts). Without /usr/sbin/nginx those
 * are skipped, except in CI (CI=true) with --check, where that is an error.
 *
 *   npx tsx tests/crs/run.ts [--suite v3|v4] [--group 942] [--no-write] [--no-http] [--check] [--via proxy]
 *
 * `--via proxy` also judges the HTTP-level cases through Rampart's own reverse proxy (a CNAME site,
 * which gives the WAF request bodies) and prints `<suite>_via_proxy` next to the nginx figure.
 *
 * `--suite` or `--group` runs a part: nothing is written and --check guards only what ran.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GROUPS } from '#engine/waf';
import { CRS4, CRS4_VERSION } from '../support/crs-dirs.ts';
import { HAS_NGINX, startCrsGateway, type CrsGatewayOptions } from '../support/crs-http.ts';
import { runHttpCases } from './http-runner.ts';
import { runSuite, v3Options, v4Options, withHttpResults, type SuiteChoice, type SuiteResult } from './runner.ts';

const APACHE_400 = (what: string): string =>
  `web-server behaviour: Apache answers 400 to ${what}; nginx passes it on and Rampart blocks it (403), or lets it pass`;

/** Diagnosed causes, by version, then by case id or rule id, written beside each failure. */
const CAUSES: Record<string, Record<string, string>> = {
  '3.3.4': {
    '920100-4':
      "web-server behaviour: nginx answers 400 to CONNECT with an authority-form target (`1.2.3.4:80`) while parsing the request line, before any module (so Rampart) runs; CRS expects Apache's 405 or a ModSecurity deny (403)",
    '932100-3':
      'deployment: the nginx plugin asks Rampart through auth_request, which carries no request body, so an attack only in the body is not seen through nginx (the WAF inspects bodies given to it: in process, with plug-in-less access and through the built-in reverse proxy, where this case passes: --via proxy)',
    '920181':
      'web-server behaviour: Apache drops Content-Length when Transfer-Encoding is present (Node rejects such requests)',
  },
  '4.25.0': {
    '920181':
      'web-server behaviour: Apache drops Content-Length when Transfer-Encoding is present (Node rejects such requests)',
    '920270-4': APACHE_400('a Host header with `%00`'),
    '920610-2': APACHE_400('a request target with a `#fragment`'),
    '920274-1': APACHE_400('a Host header with `%1F`'),
    '920100-8':
      "web-server behaviour: Coraza's override expects 920100 for a colon in the path (Go's server); the request line is well formed for 920100's pattern, and ModSecurity behind nginx does not log it either (nginx-overrides: no_expect_ids 920100)",
    '920430-8':
      "web-server behaviour: Coraza's override expects no 920430 because Go's server answers 505 to HTTP/4.0 before the WAF runs (nginx does the same); in process the WAF sees the request and 920430 fires as the rule says",
    '920620-1':
      'web-server behaviour: Apache joins two Content-Type headers into one, so the case expects no 920620; Rampart sees both headers as sent, as ModSecurity behind nginx does (nginx-overrides: expect_ids 920620)',
    '921140-1':
      'web-server behaviour: Apache and nginx answer 400 to a header value with a bare CR before any module runs; in process the WAF is given the header and 921140 (header injection) fires as it should',
  },
};

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const groupArg = args.indexOf('--group');
const groups: readonly string[] = groupArg >= 0 ? [args[groupArg + 1] ?? ''] : GROUPS;
const suiteArg = args.indexOf('--suite');
const suiteWanted = suiteArg >= 0 ? (args[suiteArg + 1] ?? '') : 'all';
if (!['all', 'v3', 'v4'].includes(suiteWanted)) {
  console.log(`--suite takes v3 or v4, not ${suiteWanted}`);
  process.exit(2);
}
const write = !args.includes('--no-write') && groupArg < 0 && suiteArg < 0;
const viaArg = args.indexOf('--via');
const viaProxy = viaArg >= 0 && args[viaArg + 1] === 'proxy';
if (viaArg >= 0 && !viaProxy) {
  console.log(`--via takes proxy, not ${args[viaArg + 1] ?? ''}`);
  process.exit(2);
}

function counts(r: SuiteResult): { inProcess: number; http: number; skipped: number } {
  const judged = r.results.filter((x) => x.status !== 'skip');
  const http = judged.filter((x) => x.http === true).length;
  return { inProcess: judged.length - http, http, skipped: r.results.length - judged.length };
}

function report(label: string, version: string, r: SuiteResult, through = 'nginx and the Rampart plugin'): void {
  const n = counts(r);
  console.log(`${label}: ${r.passRate.toFixed(1)} %`);
  console.log(
    `  evaluated: ${n.inProcess + n.http} of ${r.results.length} cases (${n.inProcess} in process, ${n.http} over HTTP through ${through}, ${n.skipped} skipped)`,
  );
  for (const [g, c] of [...r.byGroup].sort()) {
    const total = c.pass + c.fail;
    const http = r.results.filter((x) => x.group === g && x.http === true).length;
    console.log(
      `  ${g}: ${total === 0 ? '-' : ((100 * c.pass) / total).toFixed(1)} % (${c.pass}/${total} pass, ${http} of them over HTTP, ${c.skip} skipped)`,
    );
  }
  if (r.problems.length > 0)
    console.log(`  rule-set problems: ${r.problems.length} (first: ${r.problems.slice(0, 3).join(' | ')})`);
  if (!write || through !== 'nginx and the Rampart plugin') {
    for (const f of r.results.filter((x) => x.status === 'fail')) console.log(`  FAIL ${f.id}: ${f.reason}`);
    return;
  }
  const fails = r.results.filter((x) => x.status === 'fail');
  const skips = r.results.filter((x) => x.status === 'skip');
  const md = [
    `# CRS ${version} regression: known failures`,
    '',
    `Generated by \`npx tsx tests/crs/run.ts\`. Pass rate ${r.passRate.toFixed(1)} % over ${n.inProcess + n.http} of ${r.results.length} cases:`,
    `${n.inProcess} with log expectations run in process, ${n.http} that judge the web server's answer (a status only, or`,
    'an expected error) sent as raw bytes to nginx protecting a site with the Rampart plugin (tests/crs/http-runner.ts,',
    `tests/support/crs-http.ts). ${n.skipped} skipped (listed last).`,
    '',
    '| group | pass | fail | over HTTP | skipped |',
    '|---|---|---|---|---|',
    ...[...r.byGroup]
      .sort()
      .map(
        ([g, c]) =>
          `| ${g} | ${c.pass} | ${c.fail} | ${r.results.filter((x) => x.group === g && x.http === true).length} | ${c.skip} |`,
      ),
    '',
    '## Failures',
    '',
    ...fails.map((f) => {
      const causes = CAUSES[version] ?? {};
      const cause = causes[f.id] ?? causes[f.id.split('-')[0] ?? ''];
      return `- \`${f.id}\`: ${f.reason.replace(/\|/g, '\\|').slice(0, 300)}${cause ? ` (cause: ${cause})` : ''}`;
    }),
    '',
    '## Skipped',
    '',
    ...(skips.length === 0 ? ['(none)'] : skips.map((f) => `- \`${f.id}\`: ${f.reason}`)),
    '',
  ].join('\n');
  writeFileSync(join(here, `known-failures-${version}.md`), md);
}

/**
 * `--check` (what `npm run test:crs` and CI use): exit 1 when a pass rate falls below the figure
 * recorded in baseline.json, or when a case made the engine throw. Raise the figures when the
 * engine gets better.
 */
const check = args.includes('--check');
const baseline = JSON.parse(readFileSync(join(here, 'baseline.json'), 'utf8')) as Record<string, number>;
let failed = false;
function guard(key: string, r: SuiteResult): void {
  const thrown = r.results.filter((x) => x.reason.startsWith('engine threw'));
  for (const t of thrown) console.log(`  ENGINE THREW ${t.id}: ${t.reason}`);
  const floor = baseline[key] ?? 0;
  if (Math.round(r.passRate * 10) / 10 < floor || thrown.length > 0) {
    console.log(`${key}: below the recorded ${floor} % or engine errors`);
    failed = true;
  }
}

/**
 * The cases the in-process run deferred, judged over HTTP. Without nginx they stay skipped: a local
 * run says so, CI with --check fails (.ci/run installs nginx).
 */
async function withHttp(suite: SuiteResult, ruleSet?: CrsGatewayOptions['ruleSet']): Promise<SuiteResult> {
  if (suite.deferred.length === 0 || args.includes('--no-http')) return suite;
  if (!HAS_NGINX) {
    if (check && process.env.CI === 'true') {
      console.log(
        `ERROR: /usr/sbin/nginx is missing: ${suite.deferred.length} HTTP-level CRS cases cannot run (CI installs nginx via apt)`,
      );
      failed = true;
    } else
      console.log(
        `note: /usr/sbin/nginx is missing: ${suite.deferred.length} HTTP-level CRS cases skipped (apt-get install nginx to run them)`,
      );
    return suite;
  }
  const gateway = await startCrsGateway(ruleSet === undefined ? {} : { ruleSet });
  try {
    return withHttpResults(suite, await runHttpCases(gateway, suite.deferred), groups);
  } finally {
    await gateway.stop();
  }
}

/** Runs one suite, or says that it was skipped and why (a failure under CI=true). */
async function suite(
  key: string,
  version: string,
  choice: SuiteChoice,
  ruleSet?: CrsGatewayOptions['ruleSet'],
): Promise<void> {
  if ('missing' in choice) {
    if (process.env.CI === 'true') {
      console.log(`ERROR: ${key} not measured (CI=true needs every suite): ${choice.missing}`);
      failed = true;
    } else console.log(`skipped: ${key} (CRS ${version}): ${choice.missing}`);
    return;
  }
  const inProcess = await runSuite(choice.options, groups);
  const result = await withHttp(inProcess, ruleSet);
  report(key, version, result);
  if (check) guard(key, result);
  if (viaProxy) {
    const proxied = await throughProxy(inProcess, ruleSet);
    report(`${key}_via_proxy`, version, proxied, "Rampart's reverse proxy (a CNAME site)");
    if (check) guard(`${key}_via_proxy`, proxied);
  }
}

/** The cases the in-process run deferred, judged over HTTP through Rampart's own reverse proxy. */
async function throughProxy(suite: SuiteResult, ruleSet?: CrsGatewayOptions['ruleSet']): Promise<SuiteResult> {
  if (suite.deferred.length === 0) return suite;
  const gateway = await startCrsGateway({ ...(ruleSet === undefined ? {} : { ruleSet }), via: 'proxy' });
  try {
    return withHttpResults(suite, await runHttpCases(gateway, suite.deferred), groups);
  } finally {
    await gateway.stop();
  }
}

if (suiteWanted !== 'v4') await suite('crs_regression_pass_rate', '3.3.4', v3Options());
if (suiteWanted !== 'v3')
  await suite(
    'crs_v4_regression_pass_rate',
    CRS4_VERSION.slice(1),
    v4Options(),
    CRS4 ? { rules: CRS4.rules, setup: CRS4.setup } : undefined,
  );
if (failed) process.exit(1);
