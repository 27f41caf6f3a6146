/**
 * A rule set reads only its own files: Includes (plain, relative, glob) and data files named inside
 * rule files are refused when they lead outside the rule-set folder, also through symbolic links,
 * and the problems name paths relative to the folder without quoting what a refused file holds.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRuleSet } from '../../../../engine/waf/ruleset/index.ts';
import type { ParseProblem } from '../../../../engine/waf/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'rampart-confine-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A secret outside every rule set, shaped like a SecLang directive so a parser would echo it. */
const outside = join(scratch, 'host');
mkdirSync(outside);
writeFileSync(join(outside, 'secret.conf'), 'SECRET_TOKEN=hunter2 "id:1"\n');
writeFileSync(join(outside, 'secret.data'), 'hunter2\n');

let n = 0;
function ruleSet(files: Record<string, string>, links: Record<string, string> = {}): string {
  const root = join(scratch, `set${++n}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  for (const [path, target] of Object.entries(links)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    symlinkSync(target, join(root, path));
  }
  return root;
}

const RULE_FILE = 'rules/REQUEST-901-INITIALIZATION.conf';

async function problemsOf(root: string): Promise<ParseProblem[]> {
  const rs = await loadRuleSet(root);
  expect(rs.files.some((f) => f.startsWith(outside))).toBe(false);
  for (const p of rs.problems) {
    expect(p.message).not.toContain('hunter2');
    expect(p.message).not.toContain('SECRET_TOKEN');
    // Paths inside the set are shown relative to it (the rule text may itself name host paths).
    expect(p.message).not.toContain(root);
    expect(JSON.stringify(p.params)).not.toContain('hunter2');
  }
  return rs.problems;
}

describe('Include is confined to the rule-set folder', () => {
  it.each([
    ['an absolute path', join(outside, 'secret.conf')],
    ['a path climbing out with ..', '../../host/secret.conf'],
    ['a glob outside', join(outside, '*.conf')],
    ['a relative glob climbing out', '../../host/*'],
    ['the process environment', '/proc/self/environ'],
  ])('refuses %s without reading it', async (_what, target) => {
    const root = ruleSet({ [RULE_FILE]: `SecAction "id:901001,phase:1,pass,nolog"\nInclude ${target}\n` });
    const problems = await problemsOf(root);
    expect(problems).toEqual([
      {
        file: join(root, RULE_FILE),
        line: 2,
        message: expect.stringMatching(/outside the rule-set folder/) as string,
        code: 'include_outside',
        params: { directive: 'Include', path: target },
      },
    ]);
  });

  it('refuses a symbolic link inside the folder that points outside, named or matched by a glob', async () => {
    const root = ruleSet(
      {
        [RULE_FILE]: 'Include extra/link.conf\nInclude extra/*.conf\nInclude extra\n',
        'rules/extra/own.conf': 'SecMarker OWN\n',
      },
      { 'rules/extra/link.conf': join(outside, 'secret.conf') },
    );
    const rs = await loadRuleSet(root);
    const problems = await problemsOf(root);
    expect(problems.map((p) => p.line)).toEqual([1, 2, 3]);
    for (const p of problems) expect(p.message).toMatch(/outside the rule-set folder/);
    // The folder's own file is still included (by the glob and by the folder Include).
    expect(rs.files.filter((f) => f.endsWith('own.conf'))).toHaveLength(2);
  });

  it('refuses a rule file in rules/ that is a symbolic link to a host file', async () => {
    const root = ruleSet(
      { [RULE_FILE]: 'SecAction "id:901001,phase:1,pass,nolog"\n' },
      { 'rules/REQUEST-920-PROTOCOL-ENFORCEMENT.conf': join(outside, 'secret.conf') },
    );
    const problems = await problemsOf(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toMatch(
      /^rules\/REQUEST-920-PROTOCOL-ENFORCEMENT\.conf leads outside the rule-set folder/,
    );
  });

  it('follows a rules folder that is itself a link (a layout the installer chose)', async () => {
    const real = ruleSet({
      'REQUEST-901-INITIALIZATION.conf': 'SecAction "id:901001,phase:1,pass,nolog"\nInclude extra.inc\n',
      'extra.inc': 'SecAction "id:2,phase:1,pass"\n',
    });
    const root = ruleSet({ 'crs-setup.conf.example': 'SecAction "id:900990,phase:1,pass,nolog"\n' }, { rules: real });
    const rs = await loadRuleSet(root);
    expect(rs.problems).toEqual([]);
    expect(rs.files).toHaveLength(3);
  });
});

describe('data files are confined to the rule-set folder', () => {
  it.each([
    ['an absolute path', join(outside, 'secret.data')],
    ['a path climbing out', '../../host/secret.data'],
    ['/etc/passwd', '/etc/passwd'],
  ])('refuses %s for @pmFromFile and @ipMatchFromFile', async (_what, target) => {
    const root = ruleSet({
      [RULE_FILE]: `SecRule ARGS "@pmFromFile ${target}" "id:901100,phase:2,block"\nSecRule REMOTE_ADDR "@ipMatchFromFile ${target}" "id:901101,phase:1,block"\n`,
    });
    const rs = await loadRuleSet(root);
    expect(rs.dataFiles.size).toBe(0);
    const problems = await problemsOf(root);
    expect(problems).toEqual([
      {
        file: join(root, RULE_FILE),
        line: 1,
        message: expect.stringMatching(/outside the rule-set folder/) as string,
        code: 'data_file_outside',
        params: { operator: 'pmFromFile', dataFile: target },
      },
    ]);
  });

  it('refuses a data file inside the folder that is a link to a host file', async () => {
    const root = ruleSet(
      { [RULE_FILE]: 'SecRule ARGS "@pmFromFile words.data" "id:901100,phase:2,block"\n' },
      { 'rules/words.data': join(outside, 'secret.data') },
    );
    const rs = await loadRuleSet(root);
    expect(rs.dataFiles.size).toBe(0);
    expect((await problemsOf(root))[0]?.message).toMatch(/words\.data lies outside the rule-set folder/);
  });

  it('names a missing data file relative to the folder', async () => {
    const root = ruleSet({ [RULE_FILE]: 'SecRule ARGS "@pmFromFile gone.data" "id:901100,phase:2,block"\n' });
    expect((await problemsOf(root))[0]?.message).toMatch(
      /data file gone\.data not found beside the rule file \(rules\/gone\.data\)/,
    );
  });
});
