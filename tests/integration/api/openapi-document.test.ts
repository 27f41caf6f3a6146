import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
  'x-rampart-access'?: unknown;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json> };
}

const documents: Partial<Record<'A' | 'B', Document>> = {};
const engines: TestEngine[] = [];
let python = '';
let workDir = '';

beforeAll(async () => {
  // The validator is a Python package, pinned, installed into the project's security virtualenv.
  const venv = spawnSync(process.execPath, ['scripts/security-venv.mjs'], { encoding: 'utf8', timeout: 300_000 });
  expect(venv.status, venv.stderr).toBe(0);
  python = venv.stdout.trim();
  workDir = await mkdtemp(join(tmpdir(), 'rampart-openapi-'));
  for (const edition of ['A', 'B'] as const) {
    const engine = await startTestEngine({ RAMPART_EDITION: edition });
    engines.push(engine);
    documents[edition] = (await (await fetch(`${engine.url}/api/v1/openapi.json`)).json()) as Document;
  }
}, 300_000);
afterAll(async () => {
  await Promise.all(engines.map((e) => e.dispose()));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

function doc(edition: 'A' | 'B'): Document {
  const found = documents[edition];
  if (!found) throw new Error(`no document for edition ${edition}`);
  return found;
}

function operation(d: Document, operationId: string): Operation {
  for (const methods of Object.values(d.paths)) {
    for (const op of Object.values(methods)) if (op.operationId === operationId) return op;
  }
  throw new Error(`no operation ${operationId}`);
}

function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsOf(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') out.push(item);
      else refsOf(item, out);
    }
  }
  return out;
}

describe('the OpenAPI document', () => {
  it.each(['A', 'B'] as const)('of edition %s passes openapi-spec-validator', async (edition) => {
    const file = join(workDir, `openapi-${edition}.json`);
    await writeFile(file, JSON.stringify(doc(edition)));
    const result = spawnSync(python, ['-m', 'openapi_spec_validator', file], { encoding: 'utf8', timeout: 120_000 });
    expect(result.status, `${result.stdout}\n${result.stderr}`.slice(0, 4000)).toBe(0);
  });

  it('resolves every $ref to a named component (the recursive menu item included)', () => {
    const d = doc('B');
    const refs = refsOf(d.paths);
    expect(refs).toContain('#/components/schemas/MenuItem');
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\/[A-Za-z]\w*$/);
      expect(d.components.schemas[ref.split('/').pop() ?? '']).toBeDefined();
    }
  });

  it('states what the answers are: renewPurchase has no body, the plugin is application/gzip', () => {
    const d = doc('B');
    const renew = operation(d, 'renewPurchase').responses;
    expect(renew['204']).toEqual({ description: 'Success, no content' });
    expect(renew['200']).toBeUndefined();
    expect(Object.keys(operation(d, 'downloadSitePlugin').responses['200']?.content ?? {})).toEqual([
      'application/gzip',
    ]);
    expect(operation(d, 'getOpenApi').responses['200']?.content?.['application/json']).toBeDefined();
  });

  it('states the runtime rules: e-mail format, the password rule, domain required in edition B only', () => {
    const d = doc('B');
    const setup = operation(d, 'completeSetup').requestBody?.content['application/json']?.schema as {
      properties: Record<string, Json>;
    };
    expect(setup.properties.email).toMatchObject({ type: 'string', format: 'email', maxLength: 254 });
    expect(String(setup.properties.password?.description)).toMatch(/8 to 16 characters.*at least 3 of/);
    const required = (e: 'A' | 'B', id: string) =>
      (operation(doc(e), id).requestBody?.content['application/json']?.schema.required as string[] | undefined) ?? [];
    for (const id of ['createSite', 'updateSite']) {
      expect(required('B', id)).toContain('domain');
      expect(required('A', id)).not.toContain('domain');
    }
  });

  it('names who may call each operation', () => {
    const d = doc('B');
    for (const methods of Object.values(d.paths)) {
      for (const op of Object.values(methods)) {
        const access = op['x-rampart-access'];
        expect(access === 'public' || access === 'signedIn' || Array.isArray(access), op.operationId).toBe(true);
      }
    }
    expect(operation(d, 'createAccount')['x-rampart-access']).toEqual(['administrator']);
  });
});
