import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes, buildOpenApi, type AnyRoute, type ApiDeps } from '#engine/api';
import { ALL_CONTRACTS } from '../../../engine/api/contracts/index.ts';

// Building the route table runs no handler: the dependencies are never reached.
const deps = {} as ApiDeps;
const routes: AnyRoute[] = allRoutes(deps);

let python = '';
let workDir = '';
beforeAll(() => {
  const venv = spawnSync(process.execPath, ['scripts/security-venv.mjs'], { encoding: 'utf8', timeout: 300_000 });
  expect(venv.status, venv.stderr).toBe(0);
  python = venv.stdout.trim();
}, 300_000);
afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('the API contracts', () => {
  it('bind every route to exactly one contract', () => {
    for (const route of routes) {
      expect(route.contract, `${route.operationId} has no contract`).toBeDefined();
      expect(
        ALL_CONTRACTS.filter((c) => c === route.contract),
        route.operationId,
      ).toHaveLength(1);
      const declared: Record<string, unknown> = { ...route };
      delete declared.contract;
      delete declared.handler;
      expect(declared, route.operationId).toEqual(route.contract);
    }
  });

  it('each have exactly one route', () => {
    for (const contract of ALL_CONTRACTS) {
      expect(
        routes.filter((r) => r.contract === contract),
        contract.operationId,
      ).toHaveLength(1);
    }
  });

  it('have unique operationIds and unique method and path pairs', () => {
    const ids = routes.map((r) => r.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const places = routes.map((r) => `${r.method} ${r.path}`);
    expect(places.filter((p, i) => places.indexOf(p) !== i)).toEqual([]);
  });

  it('import nothing but zod and engine/shared, so the console can bundle them', async () => {
    const dir = 'engine/api/contracts';
    for (const file of await readdir(dir)) {
      const text = await readFile(join(dir, file), 'utf8');
      const specifiers = [...text.matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1] ?? '');
      for (const spec of specifiers) {
        expect(spec === 'zod' || spec === '#engine/shared' || /^\.\/[\w.-]+\.ts$/.test(spec), `${file}: ${spec}`).toBe(
          true,
        );
      }
    }
  });

  it.each(['A', 'B'] as const)(
    'generate an OpenAPI document (edition %s) that passes openapi-spec-validator',
    async (edition) => {
      const document = buildOpenApi(ALL_CONTRACTS, '0.0.0-test', edition);
      const operations = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>)
        .flatMap((methods) => Object.values(methods))
        .map((o) => o.operationId);
      for (const contract of ALL_CONTRACTS) expect(operations).toContain(contract.operationId);
      workDir ||= await mkdtemp(join(tmpdir(), 'rampart-contracts-'));
      const file = join(workDir, `contracts-${edition}.json`);
      await writeFile(file, JSON.stringify(document));
      const result = spawnSync(python, ['-m', 'openapi_spec_validator', file], { encoding: 'utf8', timeout: 120_000 });
      expect(result.status, `${result.stdout}\n${result.stderr}`.slice(0, 4000)).toBe(0);
    },
    150_000,
  );
});
