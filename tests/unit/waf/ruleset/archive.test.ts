import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { tar, zip, type TarEntry, type ZipEntry } from '../../../support/archive-writers.ts';
import { extractArchive, findRuleSetRoot, loadRuleSet, MAX_ENTRIES } from '../../../../engine/waf/ruleset/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'rampart-archive-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const target = (): string => join(scratch, `t${++n}`);

const RULES = {
  'REQUEST-901-INITIALIZATION.conf':
    'SecComponentSignature "OWASP_CRS/4.1.0"\nSecAction "id:901001,phase:1,pass,nolog"\n',
  'REQUEST-930-APPLICATION-ATTACK-LFI.conf': 'SecRule ARGS "@pmFromFile lfi-os-files.data" "id:930120,phase:2,block"\n',
  'lfi-os-files.data': '/etc/passwd\n',
};

const crsEntries = (prefix: string): TarEntry[] => [
  { name: `${prefix}/`, type: '5' },
  { name: `${prefix}/crs-setup.conf.example`, data: 'SecAction "id:900990,phase:1,pass,nolog"\n' },
  { name: `${prefix}/rules/`, type: '5' },
  ...Object.entries(RULES).map(([f, data]) => ({ name: `${prefix}/rules/${f}`, data })),
];

describe('extractArchive', () => {
  it('unpacks a .tar.gz and finds the rule-set root inside its top folder', async () => {
    const dir = target();
    const result = await extractArchive(gzipSync(tar(crsEntries('coreruleset-4.1.0'))), 'crs.tar.gz', dir);
    expect(result).toEqual({
      ok: true,
      value: {
        root: join(dir, 'coreruleset-4.1.0'),
        files: [
          'coreruleset-4.1.0/crs-setup.conf.example',
          ...Object.keys(RULES).map((f) => `coreruleset-4.1.0/rules/${f}`),
        ],
      },
    });
    const rs = await loadRuleSet(join(dir, 'coreruleset-4.1.0'));
    expect(rs.problems).toEqual([]);
    expect(rs.version).toBe('4.1.0');
    expect(rs.dataFiles.size).toBe(1);
  });

  it('reads GNU long names (paths over 100 bytes)', async () => {
    const prefix = `a/${'very-long-folder-name-'.repeat(6)}crs`;
    const dir = target();
    const result = await extractArchive(gzipSync(tar(crsEntries(prefix), { gnuLongNames: true })), 'crs.tgz', dir);
    expect(result.ok && result.value.root).toBe(join(dir, prefix));
    expect(readFileSync(join(dir, prefix, 'rules', 'lfi-os-files.data'), 'utf8')).toBe('/etc/passwd\n');
  });

  it('unpacks a .zip with stored and deflated entries', async () => {
    const dir = target();
    const entries: ZipEntry[] = [
      { name: 'owasp-crs/', store: true },
      {
        name: 'owasp-crs/rules/REQUEST-901-INITIALIZATION.conf',
        data: RULES['REQUEST-901-INITIALIZATION.conf'],
        store: true,
      },
      {
        name: 'owasp-crs/rules/REQUEST-930-APPLICATION-ATTACK-LFI.conf',
        data: RULES['REQUEST-930-APPLICATION-ATTACK-LFI.conf'],
      },
      { name: 'owasp-crs/rules/lfi-os-files.data', data: '/etc/passwd\n'.repeat(100) },
    ];
    const result = await extractArchive(zip(entries), 'CRS.ZIP', dir);
    expect(result.ok && result.value.root).toBe(join(dir, 'owasp-crs'));
    expect(readFileSync(join(dir, 'owasp-crs', 'rules', 'lfi-os-files.data'), 'utf8')).toBe(
      '/etc/passwd\n'.repeat(100),
    );
    expect((await loadRuleSet(join(dir, 'owasp-crs'))).problems).toEqual([]);
  });

  it('accepts an archive of the bare rules folder or of the rule files alone', async () => {
    const dir = target();
    const bare = await extractArchive(
      zip(Object.entries(RULES).map(([f, data]) => ({ name: `rules/${f}`, data }))),
      'r.zip',
      dir,
    );
    expect(bare.ok && bare.value.root).toBe(dir);
    const flat = await extractArchive(
      zip(Object.entries(RULES).map(([f, data]) => ({ name: `x/${f}`, data }))),
      'r.zip',
      target(),
    );
    expect(flat.ok && flat.value.root.endsWith('/x')).toBe(true);
  });

  const refused: [string, () => Buffer, string, RegExp][] = [
    [
      'a ../ path in a tar',
      () => gzipSync(tar([...crsEntries('crs'), { name: 'crs/../../evil.conf', data: 'x' }])),
      'a.tar.gz',
      /path traversal/,
    ],
    [
      'an absolute path in a tar',
      () => gzipSync(tar([{ name: '/etc/cron.d/evil', data: 'x' }, ...crsEntries('crs')])),
      'a.tar.gz',
      /absolute path/,
    ],
    [
      'a symlink in a tar',
      () => gzipSync(tar([...crsEntries('crs'), { name: 'crs/rules/link.conf', type: '2', link: '/etc/passwd' }])),
      'a.tgz',
      /symbolic link/,
    ],
    [
      'a hard link in a tar',
      () => gzipSync(tar([...crsEntries('crs'), { name: 'crs/rules/h.conf', type: '1', link: 'crs/x' }])),
      'a.tgz',
      /hard link/,
    ],
    [
      'a ../ path in a zip',
      () =>
        zip([
          { name: 'rules/REQUEST-901-X.conf', data: 'x' },
          { name: '../evil', data: 'x' },
        ]),
      'a.zip',
      /path traversal/,
    ],
    [
      'a backslash ..\\ path in a zip',
      () =>
        zip([
          { name: 'rules/REQUEST-901-X.conf', data: 'x' },
          { name: 'a\\..\\..\\evil', data: 'x' },
        ]),
      'a.zip',
      /path traversal/,
    ],
    [
      'a symlink in a zip',
      () => zip([{ name: 'rules/REQUEST-901-X.conf', data: '/etc/passwd', mode: 0o120777 }]),
      'a.zip',
      /symbolic link/,
    ],
    [
      'too many entries',
      () => zip(Array.from({ length: MAX_ENTRIES + 1 }, (_, i) => ({ name: `rules/REQUEST-${i}.conf`, store: true }))),
      'a.zip',
      /more than 5000 entries/,
    ],
    [
      'a tar.gz that unpacks past 100 MB',
      () => gzipSync(tar([{ name: 'rules/REQUEST-901-X.conf', data: 'x'.repeat(101 * 1024 * 1024) }])),
      'a.tar.gz',
      /more than 100 MB/,
    ],
    ['an archive without a rule set', () => zip([{ name: 'README.md', data: 'hello' }]), 'a.zip', /no rule set inside/],
    ['a corrupt zip', () => Buffer.from('PK not really'), 'a.zip', /no end of central directory/],
    ['a file that is not gzip', () => Buffer.from('plain text'), 'a.tar.gz', /not gzip data/],
    ['an unknown archive type', () => Buffer.from('x'), 'a.rar', /unsupported archive type/],
  ];
  for (const [what, build, name, message] of refused) {
    it(`refuses ${what} and writes nothing`, async () => {
      const dir = target();
      const result = await extractArchive(build(), name, dir);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error).toMatch(message);
      expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
      expect(existsSync(join(scratch, 'evil'))).toBe(false);
    });
  }

  it('refuses a zip entry whose data does not match its CRC', async () => {
    const good = zip([{ name: 'rules/REQUEST-901-X.conf', data: 'SecMarker A\n', store: true }]);
    const bad = Buffer.from(good);
    bad[30 + 'rules/REQUEST-901-X.conf'.length] = 0x41;
    const result = await extractArchive(bad, 'a.zip', target());
    expect(!result.ok && result.error).toMatch(/CRC mismatch/);
    expect(!result.ok && result.code).toBe('archive_corrupt');
  });

  it('refuses a name that is both a file and a folder, before writing anything', async () => {
    const entries = [
      ...crsEntries('crs'),
      { name: 'crs/rules/extra', data: 'a file' },
      { name: 'crs/rules/extra/inner.conf', data: 'SecMarker A\n' },
    ];
    for (const [archive, name] of [
      [gzipSync(tar(entries)), 'crs.tar.gz'],
      [zip(entries.filter((e) => e.type !== '5').map((e) => ({ name: e.name, data: e.data }))), 'crs.zip'],
    ] as const) {
      const dir = target();
      const result = await extractArchive(archive, name, dir);
      expect(result).toEqual({
        ok: false,
        error: `${name}: crs/rules/extra is both a file and a folder in the archive`,
        code: 'archive_file_and_folder',
        params: { archive: name, name: 'crs/rules/extra' },
      });
      expect(existsSync(dir)).toBe(false);
    }
  });

  it('takes zip entries whose mode has permission bits but no file type as ordinary files', async () => {
    const dir = target();
    const archive = zip(Object.entries(RULES).map(([f, data]) => ({ name: `crs/rules/${f}`, data, mode: 0o644 })));
    const result = await extractArchive(archive, 'crs.zip', dir);
    expect(result.ok).toBe(true);
    expect(readFileSync(join(dir, 'crs', 'rules', 'lfi-os-files.data'), 'utf8')).toBe('/etc/passwd\n');
  });
});

describe('findRuleSetRoot', () => {
  it('prefers the shallowest folder with rules/REQUEST-*.conf', () => {
    expect(findRuleSetRoot(['x/tests/rules/REQUEST-1.conf', 'x/rules/REQUEST-1.conf', 'x/README'])).toBe('x');
    expect(findRuleSetRoot(['rules/REQUEST-901.conf'])).toBe('');
    expect(findRuleSetRoot(['a/b/REQUEST-901.conf'])).toBe('a/b');
    expect(findRuleSetRoot(['a/b/RESPONSE-950.conf'])).toBeNull();
  });
});
