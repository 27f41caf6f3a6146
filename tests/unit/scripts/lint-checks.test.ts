/**
 * What `npm run lint` refuses beyond ESLint: imports across the module map (scripts/check-imports.mjs,
 * run over small trees made here) and unformatted files (prettier --check).
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../../..');
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rampart-lint-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function tree(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

function checkImports(): { status: number; output: string } {
  const run = spawnSync(process.execPath, [join(REPO, 'scripts/check-imports.mjs'), '--root', root], {
    encoding: 'utf8',
  });
  return { status: run.status ?? -1, output: run.stdout + run.stderr };
}

const MODULES = {
  'engine/waf/index.ts': "export { parse } from './seclang/index.ts';\n",
  'engine/waf/seclang/index.ts': 'export const parse = (): number => 1;\n',
  'engine/api/contracts/sites.contract.ts': 'export const siteShape = {};\n',
  'engine/api/index.ts': 'export const api = 1;\n',
};

describe('the module map', () => {
  it('passes a tree that imports other modules through their index', async () => {
    await tree({
      ...MODULES,
      'engine/basic-rules/index.ts': "import { parse } from '#engine/waf';\nexport const n = parse();\n",
    });
    expect(checkImports()).toMatchObject({ status: 0 });
  });

  it('fails on a deep import into another module, by alias or by relative path', async () => {
    await tree({
      ...MODULES,
      'engine/basic-rules/index.ts': "import { parse } from '#engine/waf/seclang';\nexport const n = parse();\n",
      'engine/sites/index.ts': "import { parse } from '../waf/seclang/index.ts';\nexport const m = parse();\n",
    });
    const result = checkImports();
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      'engine/basic-rules/index.ts: imports "#engine/waf/seclang" from inside module waf',
    );
    expect(result.output).toContain('engine/sites/index.ts: imports "../waf/seclang/index.ts" from inside module waf');
  });

  it('fails on a console import of engine code other than the API contracts', async () => {
    await tree({
      ...MODULES,
      'renderer/src/lib/ok.ts':
        "import { siteShape } from '../../../engine/api/contracts/sites.contract.ts';\nexport const s = siteShape;\n",
      'renderer/src/lib/bad.ts': "import { api } from '../../../engine/api/index.ts';\nexport const a = api;\n",
    });
    const result = checkImports();
    expect(result.status).toBe(1);
    expect(result.output).toContain('renderer/src/lib/bad.ts: the console imports engine code');
    expect(result.output).not.toContain('renderer/src/lib/ok.ts');
  });

  it('fails when a gateway package imports engine code or a package (it is shipped alone)', async () => {
    await tree({
      ...MODULES,
      'gateways/node/index.ts':
        "import { request } from 'node:http';\nimport { b } from './b.ts';\nexport const r = [request, b];\n",
      'gateways/node/b.ts': 'export const b = 1;\n',
      'gateways/other/index.ts':
        "import { api } from '../../engine/api/index.ts';\nimport Fastify from 'fastify';\nexport const x = [api, Fastify];\n",
    });
    const result = checkImports();
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      'gateways/other/index.ts: imports "../../engine/api/index.ts" from outside its package',
    );
    expect(result.output).toContain('gateways/other/index.ts: imports the package "fastify"');
    expect(result.output).not.toContain('gateways/node/');
  });

  it('fails when a shared component imports a domain component, or a domain component another domain', async () => {
    await tree({
      'renderer/src/components/sites/SiteTag.svelte': '<script lang="ts">\n</script>\n',
      'renderer/src/components/rules/RuleTag.svelte': '<script lang="ts">\n</script>\n',
      'renderer/src/components/shared/Card.svelte':
        '<script lang="ts">\n  import SiteTag from \'$components/sites/SiteTag.svelte\';\n</script>\n',
      'renderer/src/components/rules/RuleCard.svelte':
        '<script lang="ts">\n  import SiteTag from \'$components/sites/SiteTag.svelte\';\n</script>\n',
    });
    const result = checkImports();
    expect(result.status).toBe(1);
    expect(result.output).toContain('components/shared/Card.svelte: a shared component imports the sites component');
    expect(result.output).toContain('components/rules/RuleCard.svelte: a rules component imports the sites component');
  });

  it('fails on an import cycle', async () => {
    await tree({
      'engine/shared/index.ts': "export * from './a.ts';\n",
      'engine/shared/a.ts': "import { b } from './b.ts';\nexport const a = b;\n",
      'engine/shared/b.ts': "import { a } from './a.ts';\nexport const b = a;\n",
    });
    const result = checkImports();
    expect(result.status).toBe(1);
    expect(result.output).toContain('import cycle');
  });
});

describe('formatting', () => {
  it('npm run lint runs prettier --check, which fails on an unformatted file', async () => {
    const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.lint).toContain('prettier --check .');
    await tree({ 'engine/shared/ugly.ts': 'export   const x={a:1,\nb:2}\n' });
    const prettier = join(REPO, 'node_modules/prettier/bin/prettier.cjs');
    const run = spawnSync(process.execPath, [prettier, '--check', join(root, 'engine/shared/ugly.ts')], {
      encoding: 'utf8',
      cwd: REPO,
    });
    expect(run.status).not.toBe(0);
    expect(run.stdout + run.stderr).toContain('ugly.ts');
  });
});
