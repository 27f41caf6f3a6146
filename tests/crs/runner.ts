/**
 * Runs CRS regression cases in process: loads the rule set with the configuration the CRS project
 * uses for its own regression runs (paranoia level 4, DetectionOnly, test limits, the X-CRS-Test
 * marker rule), sends each stage's request through the WAF and checks the compatibility log the
 * way go-ftw checks ModSecurity's error log.
 */
import { basename, join } from 'node:path';
import { existsSync } from 'node:fs';
import { CRS3, CRS4, CRS4_VERSION, HAS_CRS3, crsRegressionTests, missing } from '../support/crs-dirs.ts';
import { parseSecLang } from '#engine/waf/seclang';
import { loadRuleSet } from '#engine/waf/ruleset';
import { createWaf, GROUPS, type GroupId, type Waf } from '#engine/waf';
import type { Directive } from '#engine/waf';
import { readCases, readOverrides, yamlFiles, type BuildOptions, type RegressionCase, type Stage } from './cases.ts';

/**
 * CRS tests/regression README "Requirements" (3.3.x names tx.paranoia_level, 4.x
 * tx.blocking_paranoia_level). The 4.x text is the one coraza-coreruleset's FTW test gives Coraza
 * (whose overrides the v4 suite applies): the limits the 920 cases assume (argument name 100,
 * argument 400, total 64000, 255 arguments, file 64100, files 65535) and the X-CRS-Test marker.
 */
export function testSetup(version: '3' | '4'): string {
  const level = version === '3' ? 'setvar:tx.paranoia_level=4' : 'setvar:tx.blocking_paranoia_level=4';
  const marker =
    version === '3'
      ? `SecRule REQUEST_HEADERS:X-CRS-Test "@rx ^.*$" "id:999999,phase:1,pass,t:none,log,msg:'%{MATCHED_VAR}'"`
      : `SecRule REQUEST_HEADERS:X-CRS-Test "@rx ^.*$" "id:999999,phase:1,pass,t:none,log,msg:'X-CRS-Test %{MATCHED_VAR}',ctl:ruleRemoveById=1-999999"`;
  return `SecAction "id:900005,phase:1,nolog,pass,ctl:ruleEngine=DetectionOnly,ctl:ruleRemoveById=910000,${level},setvar:tx.crs_validate_utf8_encoding=1,setvar:tx.arg_name_length=100,setvar:tx.arg_length=400,setvar:tx.total_arg_length=64000,setvar:tx.max_num_args=255,setvar:tx.max_file_size=64100,setvar:tx.combined_file_sizes=65535"
${marker}
`;
}

export interface SuiteOptions {
  version: '3' | '4';
  rulesDir: string;
  setupFile?: string;
  before?: string[];
  after?: string[];
  testsDir: string;
  overrides?: string;
  build?: BuildOptions;
}

export type CaseStatus = 'pass' | 'fail' | 'skip';

export interface CaseResult {
  id: string;
  group: string;
  status: CaseStatus;
  reason: string;
  /** Judged over HTTP (http-runner.ts) rather than in process. */
  http?: boolean;
}

export interface SuiteResult {
  results: CaseResult[];
  problems: string[];
  byGroup: Map<string, { pass: number; fail: number; skip: number }>;
  passRate: number;
  /** Cases skipped in process because a stage judges the web server's answer (as the YAML gives them, without overrides). */
  deferred: RegressionCase[];
}

/** Group key of a test folder: REQUEST-942-APPLICATION-ATTACK-SQLI -> 942. */
export function groupOfDir(dir: string): string {
  return /REQUEST-(\d{3})-/.exec(dir)?.[1] ?? basename(dir);
}

export async function loadSuiteWaf(
  opts: SuiteOptions,
  log: (l: string) => void,
): Promise<{ waf: Waf; problems: string[] }> {
  const rs = await loadRuleSet(opts.rulesDir, {
    ...(opts.setupFile !== undefined ? { setupFile: opts.setupFile } : {}),
    before: opts.before ?? [],
    after: opts.after ?? [],
  });
  const setup = parseSecLang(testSetup(opts.version), '<crs-test-setup>');
  // The CRS test configuration is appended to crs-setup.conf: insert it after the setup file's directives.
  const setupFile = opts.setupFile;
  let at = 0;
  rs.directives.forEach((d: Directive, i: number) => {
    if (setupFile !== undefined ? d.file === setupFile : /crs-setup/.test(d.file)) at = i + 1;
  });
  const directives = [...rs.directives.slice(0, at), ...setup.directives, ...rs.directives.slice(at)];
  const groups = Object.fromEntries(GROUPS.map((g) => [g, { enabled: true, level: 4 }])) as Record<
    GroupId,
    { enabled: boolean; level: number }
  >;
  const waf = createWaf({ directives, dataFiles: rs.dataFiles }, { groups, compatibilityLog: log });
  const problems = [...rs.problems, ...setup.problems, ...waf.problems].map((p) => `${p.file}:${p.line}: ${p.message}`);
  return { waf, problems };
}

function checkStage(waf: Waf, stage: Stage, lines: string[]): { status: CaseStatus; reason: string } {
  const e = stage.expect;
  if (stage.request === undefined) return { status: 'fail', reason: `request not built: ${stage.buildError ?? ''}` };
  if (e.expectError) return { status: 'skip', reason: 'expects an HTTP-level error (server rejects the request)' };
  const hasLog = e.logContains.length + e.noLogContains.length + e.expectIds.length + e.noExpectIds.length > 0;
  if (!hasLog)
    return { status: 'skip', reason: `status-only expectation ${JSON.stringify(e.status)} (web server behaviour)` };
  lines.length = 0;
  try {
    waf.inspect(stage.request);
  } catch (err) {
    return { status: 'fail', reason: `engine threw: ${(err as Error).message}` };
  }
  const log = lines.join('\n');
  const ids = [...log.matchAll(/\[id "(\d+)"\]/g)].map((m) => m[1]);
  const logged = `logged: ${[...new Set(ids)].join(' ') || '(none)'}`;
  for (const re of e.logContains)
    if (!re.test(log)) return { status: 'fail', reason: `missing ${re.source}; ${logged}` };
  for (const re of e.noLogContains)
    if (re.test(log)) return { status: 'fail', reason: `unexpected ${re.source}; ${logged}` };
  for (const id of e.expectIds) if (!ids.includes(id)) return { status: 'fail', reason: `missing id ${id}; ${logged}` };
  for (const id of e.noExpectIds)
    if (ids.includes(id)) return { status: 'fail', reason: `unexpected id ${id}; ${logged}` };
  return { status: 'pass', reason: '' };
}

export async function runSuite(opts: SuiteOptions, groupsWanted: readonly string[] = GROUPS): Promise<SuiteResult> {
  const lines: string[] = [];
  const { waf, problems } = await loadSuiteWaf(opts, (l) => lines.push(l));
  const overrides = opts.overrides && existsSync(opts.overrides) ? readOverrides(opts.overrides) : [];
  // The 3.3.x suite ran with Python ftw, the 4.x suite runs with go-ftw (cases.ts, BuildOptions).
  const build = opts.build ?? { client: opts.version === '3' ? 'ftw' : 'go-ftw' };
  const results: CaseResult[] = [];
  const dirs = yamlFiles(opts.testsDir);
  const cases: RegressionCase[] = [];
  for (const f of dirs) {
    const group = groupOfDir(f.slice(opts.testsDir.length));
    if (!groupsWanted.includes(group)) continue;
    cases.push(...readCases(f, group, build));
  }
  const deferred: RegressionCase[] = [];
  for (const c of cases) {
    if (process.env.CRS_TRACE) process.stderr.write(`${c.id}\n`);
    const [ruleId, testId] = c.id.split('-');
    const ov = overrides.find((o) => o.ruleId === ruleId && o.testIds.includes(testId ?? ''));
    let status: CaseStatus = 'pass';
    let reason = '';
    const stages = ov
      ? c.stages.map((stage) => ({ ...stage, expect: { ...stage.expect, ...pickLog(ov.expect, stage.expect) } }))
      : c.stages;
    for (const s of stages) {
      const r = checkStage(waf, s, lines);
      if (r.status === 'fail') {
        status = 'fail';
        reason = r.reason;
        break;
      }
      if (r.status === 'skip') {
        status = 'skip';
        reason = r.reason;
      }
    }
    results.push({ id: c.id, group: c.group, status, reason });
    // Over HTTP the case's own expectations apply: the v4 overrides are Coraza's, for Go's net/http server.
    if (status === 'skip') deferred.push(c);
  }
  return { ...tally(results, groupsWanted), problems, deferred };
}

function tally(
  results: CaseResult[],
  groupsWanted: readonly string[],
): Pick<SuiteResult, 'results' | 'byGroup' | 'passRate'> {
  const byGroup = new Map<string, { pass: number; fail: number; skip: number }>();
  for (const g of groupsWanted) byGroup.set(g, { pass: 0, fail: 0, skip: 0 });
  for (const r of results) {
    const g = byGroup.get(r.group);
    if (g) g[r.status]++;
  }
  const pass = results.filter((r) => r.status === 'pass').length;
  const fail = results.filter((r) => r.status === 'fail').length;
  return { results, byGroup, passRate: pass + fail === 0 ? 0 : (100 * pass) / (pass + fail) };
}

/** The suite with the HTTP-level results in place of the cases it skipped. */
export function withHttpResults(
  suite: SuiteResult,
  http: readonly CaseResult[],
  groupsWanted: readonly string[] = GROUPS,
): SuiteResult {
  const byId = new Map(http.map((r) => [r.id, r]));
  const results = suite.results.map((r) => (r.status === 'skip' ? (byId.get(r.id) ?? r) : r));
  return { ...suite, ...tally(results, groupsWanted), deferred: suite.deferred.filter((c) => !byId.has(c.id)) };
}

/** An override replaces only the log expectations it states. */
function pickLog(ov: Stage['expect'], base: Stage['expect']): Partial<Stage['expect']> {
  const hasLog = ov.logContains.length + ov.noLogContains.length + ov.expectIds.length + ov.noExpectIds.length > 0;
  return hasLog
    ? {
        logContains: ov.logContains,
        noLogContains: ov.noLogContains,
        expectIds: ov.expectIds,
        noExpectIds: ov.noExpectIds,
      }
    : { status: ov.status ?? base.status };
}

/** A suite to run, or why it cannot run here (what is missing and how to provide it). */
export type SuiteChoice = { options: SuiteOptions } | { missing: string };

/** CRS 3.3.4: Debian's modsecurity-crs rules with the v3.3.4 cases (tests/support/crs-dirs.ts). */
export function v3Options(): SuiteChoice {
  const testsDir = crsRegressionTests('v3.3.4');
  if (!HAS_CRS3 || testsDir === null)
    return { missing: missing.crs3 ?? missing.regression('v3.3.4') ?? 'CRS 3.3.4 data missing' };
  return {
    options: {
      version: '3',
      rulesDir: CRS3.dir,
      setupFile: CRS3.setup,
      before: existsSync(CRS3.before) ? [CRS3.before] : [],
      after: existsSync(CRS3.after) ? [CRS3.after] : [],
      testsDir,
    },
  };
}

/**
 * CRS v4: the rules of one release (RAMPART_CRS_V4_RULES) judged by the cases of the same release
 * (RAMPART_CRS_REGRESSION/v4.25.0), with the deviations the CRS project accepts for Coraza.
 */
export function v4Options(): SuiteChoice {
  const testsDir = crsRegressionTests(CRS4_VERSION);
  if (!CRS4 || testsDir === null)
    return { missing: missing.crs4 ?? missing.regression(CRS4_VERSION) ?? 'CRS v4 data missing' };
  return {
    options: {
      version: '4',
      rulesDir: CRS4.dir,
      ...(existsSync(CRS4.setup) ? { setupFile: CRS4.setup } : {}),
      testsDir,
      overrides: join(testsDir, '..', 'coraza-overrides.yaml'),
    },
  };
}
