/**
 * Hostile rule-set archives through the real engine's API: rule files that Include or read data
 * from host files (also through globs), a name that is both a file and a folder, and a relative
 * rule-set directory. Each is refused with a 400 that names paths inside the archive only, quotes
 * no host file, and leaves no upload folder behind.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { tarGz, zip, type ZipEntry as ArchiveEntry } from '../../support/archive-writers.ts';

let engine: TestEngine;
let admin: ApiClient;

beforeAll(async () => {
  engine = await startTestEngine({ RAMPART_EDITION: 'B' });
  admin = new ApiClient(engine.url);
  await admin.setup('root@example.com', 'Kettle#Blue7');
});
afterAll(async () => {
  await engine?.dispose();
});

/** A CRS-shaped set whose initialization file carries `hostile` lines. */
const ruleSet = (hostile: string): ArchiveEntry[] => [
  {
    name: 'crs/crs-setup.conf.example',
    data: 'SecAction "id:900990,phase:1,pass,nolog,setvar:tx.crs_setup_version=334"\n',
  },
  { name: 'crs/rules/REQUEST-901-INITIALIZATION.conf', data: `SecAction "id:901001,phase:1,pass,nolog"\n${hostile}\n` },
  {
    name: 'crs/rules/REQUEST-942-APPLICATION-ATTACK-SQLI.conf',
    data: 'SecRule ARGS "@rx select" "id:942100,phase:2,block,setvar:\'tx.anomaly_score=+5\'"\n',
  },
];

/** Text that must never reach a client: host file contents and the engine's own paths. */
const secrets = (): string[] => [
  'root:x:0:0',
  process.env.PATH ?? '/usr/bin',
  process.env.HOME ?? '/root',
  engine.dataDir,
  process.cwd(),
];

async function upload(fileName: string, archive: Buffer): Promise<{ status: number; message: string; text: string }> {
  const res = await admin.request<{ error?: { field: string; message: string } }>('POST', '/rule-set/upload', {
    fileName,
    contentBase64: archive.toString('base64'),
  });
  return { status: res.status, message: res.body.error?.message ?? '', text: res.text };
}

async function leftovers(): Promise<string[]> {
  const base = join(engine.dataDir, 'rule-sets');
  return existsSync(base) ? (await readdir(base)).filter((n) => n.startsWith('upload-')) : [];
}

describe('rule-set archives are confined to their own files', () => {
  it.each([
    [
      'Include of the process environment',
      'Include /proc/self/environ',
      /Include \/proc\/self\/environ: outside the rule-set folder/,
    ],
    ['Include of /etc/passwd', 'Include /etc/passwd', /outside the rule-set folder/],
    ['Include climbing out with ..', 'Include ../../../../../../../../etc/passwd', /outside the rule-set folder/],
    ['Include of a host glob', 'Include /etc/*', /outside the rule-set folder/],
    [
      '@pmFromFile of /etc/passwd',
      'SecRule ARGS "@pmFromFile /etc/passwd" "id:901100,phase:2,block"',
      /outside the rule-set folder/,
    ],
    [
      '@ipMatchFromFile climbing out',
      'SecRule REMOTE_ADDR "@ipMatchFromFile ../../../../../../../etc/hosts" "id:901101,phase:1,block"',
      /outside the rule-set folder/,
    ],
  ])('refuses %s (tar.gz and zip) with a 400 naming the archive path', async (_what, hostile, expected) => {
    for (const [fileName, archive] of [
      ['hostile.tar.gz', tarGz(ruleSet(hostile))],
      ['hostile.zip', zip(ruleSet(hostile))],
    ] as const) {
      const res = await upload(fileName, archive);
      expect(res.status, res.text).toBe(400);
      expect(res.message).toMatch(expected);
      expect(res.message).toMatch(/rules\/REQUEST-901-INITIALIZATION\.conf:2/);
      for (const secret of secrets()) expect(res.text).not.toContain(secret);
      expect(await leftovers()).toEqual([]);
    }
    const status = await admin.request<{ lastError: { message: string; file: string } }>('GET', '/rule-set');
    expect(status.body.lastError.file).toBe('rules/REQUEST-901-INITIALIZATION.conf');
    for (const secret of secrets()) expect(status.text).not.toContain(secret);
  });

  it('refuses a name that is both a file and a folder with a 400 and leaves nothing behind', async () => {
    const entries = [
      ...ruleSet(''),
      { name: 'crs/rules/extra', data: 'x' },
      { name: 'crs/rules/extra/a.conf', data: 'SecMarker A\n' },
    ];
    for (const [fileName, archive] of [
      ['clash.tar.gz', tarGz(entries)],
      ['clash.zip', zip(entries)],
    ] as const) {
      const res = await upload(fileName, archive);
      expect(res.status, res.text).toBe(400);
      expect(res.message).toMatch(
        new RegExp(`${fileName.replace('.', '\\.')}: crs/rules/extra is both a file and a folder`),
      );
      expect(await leftovers()).toEqual([]);
    }
  });

  it('installs a zip whose entries carry permission bits but no file type', async () => {
    const entries = ruleSet('').map((e) => ({ ...e, mode: 0o644 }));
    const res = await upload('plain-modes.zip', zip(entries));
    expect(res.status, res.text).toBe(200);
    expect(await leftovers()).toHaveLength(1);
  });

  it('refuses a relative rule-set directory without echoing the working directory', async () => {
    for (const dir of ['0', 'rules', './crs']) {
      const res = await admin.request<{ error: { field: string; message: string } }>('PUT', '/rule-set', { dir });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        field: 'dir',
        message: expect.stringMatching(/must be an absolute path/) as string,
      });
      expect(res.text).not.toContain(process.cwd());
    }
  });
});
