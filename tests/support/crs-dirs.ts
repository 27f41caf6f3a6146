/**
 * Where the tests find the two Core Rule Sets: Debian's CRS 3.3.4 (package modsecurity-crs) and a
 * CRS v4 (CRS_V4_DIR, else the Go module cache: coreruleset@v4.*+incompatible with rules/ and
 * crs-setup.conf.example, or coraza-coreruleset/v4 with rules/@owasp_crs). Tests that need one skip
 * when it is absent.
 */
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

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

function latest(dir: string, prefix: string): string | null {
  if (!existsSync(dir)) return null;
  const found = readdirSync(dir)
    .filter((n) => n.startsWith(prefix))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const last = found.at(-1);
  return last === undefined ? null : join(dir, last);
}

function findCrs4(): Crs4 | null {
  const env = process.env.CRS_V4_DIR;
  if (env && existsSync(join(env, 'rules')))
    return { dir: env, rules: join(env, 'rules'), setup: join(env, 'crs-setup.conf.example') };
  const cache = process.env.GOMODCACHE ?? join(process.env.GOPATH ?? join(homedir(), 'go'), 'pkg', 'mod');
  const upstream = latest(join(cache, 'github.com', 'coreruleset'), 'coreruleset@v4.');
  if (upstream && existsSync(join(upstream, 'rules'))) {
    return { dir: upstream, rules: join(upstream, 'rules'), setup: join(upstream, 'crs-setup.conf.example') };
  }
  const coraza = latest(join(cache, 'github.com', 'corazawaf', 'coraza-coreruleset'), 'v4@v4.');
  if (coraza && existsSync(join(coraza, 'rules', '@owasp_crs'))) {
    const rules = join(coraza, 'rules', '@owasp_crs');
    return { dir: rules, rules, setup: join(coraza, 'rules', '@crs-setup.conf.example') };
  }
  return null;
}

export const CRS4 = findCrs4();
