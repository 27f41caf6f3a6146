import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import type * as Contracts from '../../../engine/api/contracts/index.ts';

/**
 * The console bundles engine/api/contracts (and through it engine/shared): nothing on that path may
 * import a Node built-in or touch Node at load time. Bundled for the browser and run where there is
 * no `process`, `Buffer` or `require` (only a browser's URL and text codecs), the contracts load and the site form's schema works.
 */
describe('the API contracts in a browser', () => {
  it('bundle without Node built-ins and load without Node', async () => {
    const bundle = await build({
      entryPoints: ['engine/api/contracts/index.ts'],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      globalName: 'contracts',
      logLevel: 'silent',
    });
    const text = bundle.outputFiles[0]?.text ?? '';
    expect(bundle.warnings).toEqual([]);
    expect(text).not.toMatch(/\brequire\(|\bfrom\s*['"]node:/);
    const contracts = runInNewContext(`${text}; contracts`, {
      URL,
      URLSearchParams,
      TextEncoder,
      TextDecoder,
    }) as typeof Contracts;
    expect(contracts.ALL_CONTRACTS.length).toBeGreaterThan(30);
    expect(contracts.requestFor(contracts.getSite, { params: { id: 'site 1' } }).url).toBe('/api/v1/sites/site%201');
    const parsed = contracts.siteInputSchema.safeParse({ name: 'Shop', tokenExpirySeconds: 5 });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ code: 'too_small', minimum: 10, path: ['tokenExpirySeconds'] });
  });
});
