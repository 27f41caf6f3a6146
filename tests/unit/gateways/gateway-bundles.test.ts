import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { caddyBundle, haproxyBundle } from '#engine/gateways';
import { siteInputSchema } from '#engine/sites';
import type { SiteRecord } from '#engine/config-store';

// The Caddy and HAProxy bundles as files (their configurations run for real in
// tests/integration/gateways/caddy.test.ts and haproxy.test.ts).

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-gateway-bundles-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const site: SiteRecord = {
  ...siteInputSchema.parse({ name: 'Shop', domain: 'shop.example.com', runMode: 'block', accessMethod: 'plugin' }),
  id: 'site_abc123',
  createdAt: 0,
  updatedAt: 0,
};
const input = { site, accessKey: 'key_AbC-123', engineAddress: '10.0.0.5:9081', version: '1.2.3', now: 0 };

async function extract(archive: Buffer, folder: string): Promise<string> {
  const file = join(dir, 'bundle.tar.gz');
  await writeFile(file, archive);
  execFileSync('tar', ['xzf', file, '-C', dir]);
  return join(dir, folder);
}

describe('the Caddy bundle', () => {
  it('asks the verdict in the Caddy convention with the site and key, proxies /_rampart/, and keeps the key files private', async () => {
    const bundle = caddyBundle(input);
    expect(bundle.fileName).toBe('rampart-caddy-site_abc123.tar.gz');
    const out = await extract(bundle.content, 'rampart-caddy-site_abc123');
    const snippet = await readFile(join(out, 'rampart-site.caddy'), 'utf8');
    expect(snippet).toContain('forward_auth 10.0.0.5:9081 {');
    expect(snippet).toContain('uri /_rampart/verdict?gw=caddy');
    expect(snippet).toContain('header_up X-Rampart-Key "key_AbC-123"');
    expect(snippet).toContain('reverse_proxy /_rampart/* 10.0.0.5:9081 {');
    expect(JSON.parse(await readFile(join(out, 'config.json'), 'utf8'))).toMatchObject({
      engine: { address: '10.0.0.5:9081' },
      access_key: 'key_AbC-123',
    });
    expect(await readFile(join(out, 'rampart-keeper.sh'), 'utf8')).toContain('/etc/caddy/rampart/config.json');
    for (const file of ['rampart-site.caddy', 'config.json']) {
      expect((await stat(join(out, file))).mode & 0o077).toBe(0);
    }
  });

  it('refuses an engine address or key that a Caddyfile would read otherwise', () => {
    expect(() => caddyBundle({ ...input, engineAddress: '10.0.0.5:9081 {' })).toThrow(/host:port/);
    expect(() => caddyBundle({ ...input, accessKey: '{env.KEY}' })).toThrow(/Caddyfile/);
  });
});

describe('the HAProxy bundle', () => {
  it('loads its Lua action, asks the verdict in the HAProxy convention, and keeps the key files private', async () => {
    const bundle = haproxyBundle(input);
    expect(bundle.fileName).toBe('rampart-haproxy-site_abc123.tar.gz');
    const out = await extract(bundle.content, 'rampart-haproxy-site_abc123');
    const cfg = await readFile(join(out, 'rampart.cfg'), 'utf8');
    expect(cfg).toContain('lua-load rampart.lua');
    expect(cfg).toContain('server rampart 10.0.0.5:9081');
    const lua = await readFile(join(out, 'rampart.lua'), 'utf8');
    expect(lua).toContain('local KEY = "key_AbC-123"');
    expect(lua).toContain('/_rampart/verdict?gw=haproxy');
    expect(lua).toContain('core.register_action("rampart_verdict"');
    for (const file of ['rampart.lua', 'config.json']) {
      expect((await stat(join(out, file))).mode & 0o077).toBe(0);
    }
  });

  it('keeps a site name on its comment lines', async () => {
    const out = await extract(
      haproxyBundle({ ...input, site: { ...site, name: 'x\nfrontend open\n--' } }).content,
      'rampart-haproxy-site_abc123',
    );
    expect(await readFile(join(out, 'rampart.cfg'), 'utf8')).not.toMatch(/^frontend open/m);
    expect(await readFile(join(out, 'rampart.lua'), 'utf8')).not.toMatch(/^frontend open/m);
  });
});
