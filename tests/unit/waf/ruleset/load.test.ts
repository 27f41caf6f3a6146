import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dataFileReader, detectRuleSetDir, loadRuleSet } from '../../../../engine/waf/ruleset/index.ts';
import type { Directive } from '../../../../engine/waf/types.ts';
import { CRS3, CRS4, missing } from '../../../support/crs-dirs.ts';
import { skipAllWithout } from '../../../support/skip.ts';

const scratch = mkdtempSync(join(tmpdir(), 'rampart-ruleset-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes files under a fresh folder; returns its path. */
function tree(name: string, files: Record<string, string>): string {
  const root = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const ids = (directives: readonly Directive[]): string[] =>
  directives.flatMap((d) =>
    d.kind === 'rule' || d.kind === 'action' ? d.actions.filter((a) => a.name === 'id').map((a) => a.value ?? '') : [],
  );

describe('loadRuleSet over a small CRS-shaped folder', () => {
  const root = tree('small', {
    'crs-setup.conf.example': 'SecAction "id:900990,phase:1,pass,nolog,setvar:tx.crs_setup_version=4250"\n',
    'rules/REQUEST-901-INITIALIZATION.conf':
      'SecComponentSignature "OWASP_CRS/4.25.0"\nSecAction "id:901001,phase:1,pass,nolog"\n',
    'rules/REQUEST-903.9001-DRUPAL-EXCLUSION-RULES.conf': 'SecAction "id:903001,phase:1,pass,nolog"\n',
    'rules/REQUEST-905-COMMON-EXCEPTIONS.conf': 'SecAction "id:905001,phase:1,pass,nolog"\n',
    'rules/REQUEST-930-APPLICATION-ATTACK-LFI.conf': [
      'SecRule REQUEST_FILENAME "@pmFromFile lfi-os-files.data" "id:930120,phase:2,block"',
      'SecRule REMOTE_ADDR "@ipMatchFromFile lists/bad.txt" "id:930121,phase:1,block"',
      'Include extra/*.conf',
      'IncludeOptional missing/*.conf',
    ].join('\n'),
    'rules/lfi-os-files.data': '# comment\n.htaccess\r\n\n/etc/passwd\n',
    'rules/lists/bad.txt': '10.0.0.1\n',
    'rules/extra/b.conf': 'SecAction "id:2,phase:1,pass"\n',
    'rules/extra/a.conf': 'SecAction "id:1,phase:1,pass"\n',
    'rules/RESPONSE-950-DATA-LEAKAGES.conf': 'SecAction "id:950001,phase:4,pass,nolog"\n',
    'rules/REQUEST-900-EXCLUSION-RULES-BEFORE-CRS.conf.example': 'SecAction "id:900000,phase:1,pass"\n',
  });

  it('loads the setup first, then rules/*.conf in byte order with Includes in place', async () => {
    const rs = await loadRuleSet(root);
    expect(rs.problems).toEqual([]);
    expect(rs.files.map((f) => basename(f))).toEqual([
      'crs-setup.conf.example',
      'REQUEST-901-INITIALIZATION.conf',
      'REQUEST-903.9001-DRUPAL-EXCLUSION-RULES.conf',
      'REQUEST-905-COMMON-EXCEPTIONS.conf',
      'REQUEST-930-APPLICATION-ATTACK-LFI.conf',
      'a.conf',
      'b.conf',
      'RESPONSE-950-DATA-LEAKAGES.conf',
    ]);
    expect(ids(rs.directives)).toEqual([
      '900990',
      '901001',
      '903001',
      '905001',
      '930120',
      '930121',
      '1',
      '2',
      '950001',
    ]);
    expect(rs.version).toBe('4.25.0');
  });

  it('reads data files beside the rule file, without comments, blanks and CRs', async () => {
    const rs = await loadRuleSet(root);
    const env = dataFileReader(rs.dataFiles);
    const from = { file: join(root, 'rules', 'REQUEST-930-APPLICATION-ATTACK-LFI.conf'), line: 1 };
    expect(env.readDataFile('lfi-os-files.data', from)).toEqual(['.htaccess', '/etc/passwd']);
    expect(env.readDataFile('lists/bad.txt', from)).toEqual(['10.0.0.1']);
    expect(() => env.readDataFile('nope.data', from)).toThrow(/not loaded/);
  });

  it('takes the version from the setup file when no SecComponentSignature says it', async () => {
    const r = tree('setup-version', {
      'crs-setup.conf': 'SecAction "id:900990,phase:1,pass,nolog,setvar:tx.crs_setup_version=334"\n',
      'rules/REQUEST-901-INITIALIZATION.conf': 'SecAction "id:901001,phase:1,pass"\n',
    });
    expect((await loadRuleSet(r)).version).toBe('3.3.4');
  });
});

describe('loadRuleSet problems carry file and line', () => {
  it('reports a broken rule file at the line of the broken directive and goes on', async () => {
    const root = tree('broken', {
      'rules/REQUEST-901-INITIALIZATION.conf':
        'SecAction "id:1,phase:1,pass"\n\n# c\nSecRule ARGS "@rx a \\\n  "id:2"\n',
      'rules/REQUEST-942-APPLICATION-ATTACK-SQLI.conf': 'SecRule ARGS "@rx a" "id:942000,phase:2,block,chain"\n',
    });
    const rs = await loadRuleSet(root);
    expect(rs.problems).toEqual([
      {
        file: join(root, 'rules', 'REQUEST-901-INITIALIZATION.conf'),
        line: 4,
        message: expect.stringMatching(/unexpected text after the closing quote/) as string,
        code: 'text_after_quote',
        params: { in: 'SecRule', column: 24, text: 'id:2"' },
      },
      {
        file: join(root, 'rules', 'REQUEST-942-APPLICATION-ATTACK-SQLI.conf'),
        line: 1,
        message: expect.stringMatching(/chain at end of file/) as string,
        code: 'chain_at_end',
        params: { rule: '942000', ruleLine: 1 },
      },
    ]);
    expect(ids(rs.directives)).toEqual(['1', '942000']);
  });

  it('reports a missing data file, a missing Include and a duplicate id where they are written', async () => {
    const root = tree('missing', {
      'rules/REQUEST-901-INITIALIZATION.conf': 'SecAction "id:7,phase:1,pass"\nInclude nowhere.conf\n',
      'rules/REQUEST-930-APPLICATION-ATTACK-LFI.conf':
        '\nSecRule ARGS "@pmFromFile gone.data" "id:930100,phase:2,block"\nSecAction "id:7,phase:1,pass"\n',
    });
    const rs = await loadRuleSet(root);
    const lfi = join(root, 'rules', 'REQUEST-930-APPLICATION-ATTACK-LFI.conf');
    expect(rs.problems.map((p) => [basename(p.file), p.line])).toEqual([
      ['REQUEST-901-INITIALIZATION.conf', 2],
      ['REQUEST-930-APPLICATION-ATTACK-LFI.conf', 3],
      ['REQUEST-930-APPLICATION-ATTACK-LFI.conf', 2],
    ]);
    expect(rs.problems[0]?.message).toMatch(/Include nowhere.conf: no such file/);
    expect(rs.problems[1]?.message).toMatch(
      new RegExp(`duplicate rule id 7 \\(first at .*REQUEST-901-INITIALIZATION.conf:1\\)`),
    );
    expect(rs.problems[2]).toEqual({
      file: lfi,
      line: 2,
      message: expect.stringMatching(/data file gone.data not found/) as string,
      code: 'data_file_missing',
      params: { operator: 'pmFromFile', dataFile: 'gone.data', path: 'rules/gone.data' },
    });
    expect(rs.problems.slice(0, 2).map((p) => [p.code, p.params])).toEqual([
      ['include_missing', { directive: 'Include', path: 'nowhere.conf', resolved: 'rules/nowhere.conf' }],
      ['duplicate_id', { id: '7', firstFile: 'rules/REQUEST-901-INITIALIZATION.conf', firstLine: 1 }],
    ]);
  });

  it('reports an Include loop instead of recursing forever', async () => {
    const root = tree('loop', { 'rules/REQUEST-901-INITIALIZATION.conf': 'Include REQUEST-901-INITIALIZATION.conf\n' });
    const rs = await loadRuleSet(root);
    expect(rs.problems).toHaveLength(1);
    expect(rs.problems[0]?.message).toMatch(/includes itself/);
  });

  it('reports a folder that is not a rule set', async () => {
    const rs = await loadRuleSet(join(scratch, 'does-not-exist'));
    expect(rs.problems).toEqual([
      {
        file: join(scratch, 'does-not-exist'),
        line: 0,
        message: expect.stringMatching(/does not exist/) as string,
        code: 'folder_missing',
        params: {},
      },
    ]);
    const empty = tree('empty', { 'README.md': 'nothing' });
    expect((await loadRuleSet(empty)).problems[0]).toMatchObject({
      message: expect.stringMatching(/no REQUEST-\*\.conf rule files/) as string,
      code: 'no_rule_files',
      params: { folder: '.' },
    });
  });
});

describe("Debian's CRS 3.3.4", () => {
  skipAllWithout(missing.crs3);
  it('is found by detectRuleSetDir with its setup and exclusion files', () => {
    expect(detectRuleSetDir()).toEqual({
      dir: CRS3.dir,
      options: { setupFile: CRS3.setup, before: [CRS3.before], after: [CRS3.after] },
    });
    expect(detectRuleSetDir([{ dir: join(scratch, 'nothing'), etc: scratch }])).toBeNull();
  });

  it('loads without a problem: 35 files, version 3.3.4, 19 data files', async () => {
    const found = detectRuleSetDir();
    if (!found) throw new Error('no Debian CRS');
    const rs = await loadRuleSet(found.dir, found.options);
    expect(rs.problems).toEqual([]);
    expect(rs.version).toBe('3.3.4');
    expect(rs.files.length).toBe(35);
    expect(basename(rs.files[0] ?? '')).toBe('crs-setup.conf');
    expect(basename(rs.files[1] ?? '')).toBe('REQUEST-900-EXCLUSION-RULES-BEFORE-CRS.conf');
    expect(basename(rs.files.at(-1) ?? '')).toBe('RESPONSE-999-EXCLUSION-RULES-AFTER-CRS.conf');
    expect(rs.dataFiles.size).toBe(19);
    expect(rs.dataFiles.get(join(CRS3.rules, 'lfi-os-files.data'))).toContain('etc/passwd');
  });
});

describe('CRS v4', () => {
  skipAllWithout(missing.crs4);
  it('loads without a problem and tells its version', async () => {
    if (!CRS4) return;
    const rs = await loadRuleSet(CRS4.dir, { setupFile: CRS4.setup });
    expect(rs.problems).toEqual([]);
    expect(rs.version).toMatch(/^4\.\d+\.\d+$/);
    expect(rs.dataFiles.size).toBeGreaterThan(10);
  });
});
