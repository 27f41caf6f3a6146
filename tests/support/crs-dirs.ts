/**
 * Where the tests find the Core Rule Sets and the CRS regression cases. None of it is in the
 * repository:
 *
 * - CRS 3.3.4 rules: Debian / Ubuntu's `modsecurity-crs` package (`npm run setup:system`).
 * - CRS v4.25.0 rules: `RAMPART_CRS_V4_RULES`, default `../shared/crs-rules/v4.25.0` (a folder with
 *   `rules/` and `crs-setup.conf.example`, as the CRS project releases it).
 * - CRS regression cases: `RAMPART_CRS_REGRESSION`, default `../shared/crs-regression` (a folder with
 *   `v3.3.4/tests`, `v4.25.0/tests`, ...).
 *
 * Relative paths are resolved from the repository root. A test that needs something absent skips
 * with `missing.<what>` as its reason (what was not found, and how to provide it).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The CRS v4 release the tests and benchmarks measure against (rules and regression cases alike). */
export const CRS4_VERSION = 'v4.25.0';

export const CRS_REGRESSION_DIR = resolve(REPO_ROOT, process.env.RAMPART_CRS_REGRESSION ?? '../shared/crs-regression');
export const CRS_V4_RULES_DIR = resolve(
  REPO_ROOT,
  process.env.RAMPART_CRS_V4_RULES ?? `../shared/crs-rules/${CRS4_VERSION}`,
);

export const CRS3 = {
  dir: '/usr/share/modsecurity-crs',
  rules: '/usr/share/modsecurity-crs/rules',
  setup: '/etc/modsecurity/crs/crs-setup.conf',
  before: '/etc/modsecurity/crs/REQUEST-900-EXCLUSION-RULES-BEFORE-CRS.conf',
  after: '/etc/modsecurity/crs/RESPONSE-999-EXCLUSION-RULES-AFTER-CRS.conf',
};

export const HAS_CRS3 =
  existsSync(join(CRS3.rules, 'REQUEST-942-APPLICATION-ATTACK-SQLI.conf')) && existsSync(CRS3.setup);

export interface Crs4 {
  /** Folder passed to loadRuleSet. */
  dir: string;
  /** Folder of the .conf and .data files. */
  rules: string;
  setup: string;
}

function findCrs4(): Crs4 | null {
  const rules = join(CRS_V4_RULES_DIR, 'rules');
  if (!existsSync(join(rules, 'REQUEST-942-APPLICATION-ATTACK-SQLI.conf'))) return null;
  return { dir: CRS_V4_RULES_DIR, rules, setup: join(CRS_V4_RULES_DIR, 'crs-setup.conf.example') };
}

export const CRS4 = findCrs4();

/** The folder of one release's regression cases (`<dir>/<version>/tests`), or null when absent. */
export function crsRegressionTests(version: string): string | null {
  const dir = join(CRS_REGRESSION_DIR, version, 'tests');
  return existsSync(dir) ? dir : null;
}

/** Why a test needing each piece of outside data skips, or undefined when the data is there. */
export const missing = {
  crs3: HAS_CRS3
    ? undefined
    : `Debian's CRS 3.3.4 rules are not installed (${CRS3.rules}): run npm run setup:system (apt-get install modsecurity-crs)`,
  crs4: CRS4
    ? undefined
    : `CRS ${CRS4_VERSION} rules not found in ${CRS_V4_RULES_DIR}: set RAMPART_CRS_V4_RULES to a CRS v4 release folder (rules/ and crs-setup.conf.example)`,
  regression(version: string): string | undefined {
    return crsRegressionTests(version)
      ? undefined
      : `CRS ${version} regression cases not found in ${join(CRS_REGRESSION_DIR, version, 'tests')}: set RAMPART_CRS_REGRESSION to a folder holding ${version}/tests/`;
  },
};
