import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nginxLogFormat, pluginBundle, tarGz } from '#engine/gateways';
import { siteInputSchema } from '#engine/sites';
import type { SiteRecord } from '#engine/config-store';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-bundle-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const site: SiteRecord = {
  ...siteInputSchema.parse({ name: 'Shop', domain: 'shop.example.com', runMode: 'block', accessMethod: 'plugin' }),
  id: 'site_abc123',
  createdAt: 0,
  updatedAt: 0,
};

async function extract(archive: Buffer): Promise<string> {
  const file = join(dir, 'bundle.tar.gz');
  await writeFile(file, archive);
  execFileSync('tar', ['xzf', file, '-C', dir]);
  return join(dir, 'rampart-nginx-site_abc123');
}

describe('tar writer', () => {
  it('writes archives that tar reads back byte for byte, with modes', async () => {
    const binary = Buffer.from(Array.from({ length: 1500 }, (_, i) => i % 256));
    const out = await extract(
      tarGz(
        [
          { name: 'rampart-nginx-site_abc123/a.txt', content: 'hello\n' },
          { name: 'rampart-nginx-site_abc123/b.bin', content: binary, mode: 0o755 },
        ],
        Date.UTC(2026, 0, 1),
      ),
    );
    expect(await readFile(join(out, 'a.txt'), 'utf8')).toBe('hello\n');
    expect(await readFile(join(out, 'b.bin'))).toEqual(binary);
    expect((await stat(join(out, 'b.bin'))).mode & 0o777).toBe(0o755);
  });

  it('refuses absolute and parent-directory names', () => {
    expect(() => tarGz([{ name: '/etc/passwd', content: '' }], 0)).toThrow(/unsupported/);
    expect(() => tarGz([{ name: 'a/../../b', content: '' }], 0)).toThrow(/unsupported/);
  });
});

describe('nginx plugin bundle', () => {
  it('carries the nginx snippets, config.json with the default interval, the keeper and a README', async () => {
    const { fileName, content } = pluginBundle({
      site,
      accessKey: 'KEY-123',
      engineAddress: '10.0.0.2:9081',
      version: '0.1.0',
      now: 0,
    });
    expect(fileName).toBe('rampart-nginx-site_abc123.tar.gz');
    const out = await extract(content);
    const config = JSON.parse(await readFile(join(out, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({
      engine: { address: '10.0.0.2:9081' },
      site: { site_id: 'site_abc123', domain: 'shop.example.com' },
      access_key: 'KEY-123',
      http: { interval_in_seconds: 3 },
    });
    const siteConf = await readFile(join(out, 'rampart-site.conf'), 'utf8');
    expect(siteConf).toContain('proxy_pass http://rampart_engine/_rampart/verdict;');
    expect(siteConf).toContain('proxy_set_header X-Rampart-Key "KEY-123";');
    expect(siteConf).toContain('proxy_pass http://rampart_pages;');
    expect(siteConf).toContain('proxy_set_header X-Request-Id $request_id;');
    const protect = await readFile(join(out, 'rampart-protect.conf'), 'utf8');
    expect(protect).toMatch(
      /auth_request \/_rampart_verdict;[\s\S]*error_page 401 = @rampart_reload;[\s\S]*error_page 403 = @rampart_block;/,
    );
    expect(protect).toContain('proxy_hide_header Server;');
    const upstream = await readFile(join(out, 'rampart-upstream.conf'), 'utf8');
    expect(upstream).toMatch(/upstream rampart_engine \{\s*server 10\.0\.0\.2:9081;/);
    expect(upstream).toMatch(/upstream rampart_pages \{\s*server 10\.0\.0\.2:9081;/);
    expect((await stat(join(out, 'rampart-keeper.sh'))).mode & 0o111).not.toBe(0);
    expect((await stat(join(out, 'config.json'))).mode & 0o077).toBe(0);
    expect(await readFile(join(out, 'README.md'), 'utf8')).toContain('interval_in_seconds');
  });

  it('escapes quotes and backslashes in the Access Key', async () => {
    const out = await extract(
      pluginBundle({ site, accessKey: 'a"b\\c', engineAddress: '127.0.0.1:9081', version: '0.1.0', now: 0 }).content,
    );
    expect(await readFile(join(out, 'rampart-site.conf'), 'utf8')).toContain('X-Rampart-Key "a\\"b\\\\c";');
  });

  it('refuses an Access Key nginx would read as a variable ($) rather than write it changed', () => {
    expect(() =>
      pluginBundle({ site, accessKey: 'a$b', engineAddress: '127.0.0.1:9081', version: '0.1.0', now: 0 }),
    ).toThrow(/accessKey/);
  });

  it("sends nginx's access-log line of verdict requests to the gateway log port, tied to the verdict by the request id", async () => {
    const out = await extract(
      pluginBundle({ site, accessKey: 'k', engineAddress: '10.0.0.2:9081', version: '0.1.0', now: 0 }).content,
    );
    const siteConf = await readFile(join(out, 'rampart-site.conf'), 'utf8');
    expect(siteConf).toContain('set $rampart_site "site_abc123";');
    expect(siteConf).toContain(
      'access_log syslog:server=10.0.0.2:9082,tag=rampart,nohostname rampart_access if=$rampart_guard;',
    );
    const verdictLocation = siteConf.slice(siteConf.indexOf('location = /_rampart_verdict'));
    expect(verdictLocation.slice(0, verdictLocation.indexOf('}'))).toContain(
      'proxy_set_header X-Rampart-Request-Id $request_id;',
    );
    const upstream = await readFile(join(out, 'rampart-upstream.conf'), 'utf8');
    expect(upstream).toContain(nginxLogFormat());
    const readme = await readFile(join(out, 'README.md'), 'utf8');
    expect(readme).toContain('10\\.0\\.0\\.2\\:9082 (UDP)');
  });

  it('uses the log port it is given, on the gateway API’s host (IPv6 too), and refuses one that is not a port', async () => {
    const out = await extract(
      pluginBundle({ site, accessKey: 'k', engineAddress: '[2001:db8::5]:9081', logPort: 5140, version: '1', now: 0 })
        .content,
    );
    expect(await readFile(join(out, 'rampart-site.conf'), 'utf8')).toContain('syslog:server=[2001:db8::5]:5140,');
    for (const logPort of [0, 65_536, 1.5]) {
      expect(() =>
        pluginBundle({ site, accessKey: 'k', engineAddress: '127.0.0.1:9081', logPort, version: '1', now: 0 }),
      ).toThrow(/logPort/);
    }
  });

  it("sends the reload and block responses without the client's query (X-Original-URI has it)", async () => {
    const out = await extract(
      pluginBundle({ site, accessKey: 'k', engineAddress: '127.0.0.1:9081', version: '0.1.0', now: 0 }).content,
    );
    const siteConf = await readFile(join(out, 'rampart-site.conf'), 'utf8');
    expect(siteConf).toContain('rewrite ^ /_rampart/reload? break;');
    expect(siteConf).toContain('rewrite ^ /_rampart/block? break;');
  });
});

describe('nginx plugin bundle with hostile text in the site record', () => {
  // Records stored before names were validated may hold anything; the bundle must hold on its own.
  const injection = 'x\nlocation ^~ /open { return 200 "injected"; }\n#';
  const hostile: SiteRecord = { ...site, name: injection, domain: 'shop.example.com\n}\nserver { listen 80; }\u202E' };

  it('keeps a site name that carries nginx directives inside its comment line', async () => {
    const out = await extract(
      pluginBundle({ site: hostile, accessKey: 'KEY', engineAddress: '127.0.0.1:9081', version: '0.1.0', now: 0 })
        .content,
    );
    for (const file of [
      'rampart-site.conf',
      'rampart-protect.conf',
      'rampart-upstream.conf',
      'rampart-keeper.sh',
      'README.md',
    ]) {
      const text = await readFile(join(out, file), 'utf8');
      const lines = text.split('\n');
      expect(
        lines.filter((l) => l.startsWith('location ^~ /open')),
        file,
      ).toEqual([]);
      expect(
        lines.filter((l) => /^\s*server \{/.test(l)),
        file,
      ).toEqual([]);
      // eslint-disable-next-line no-control-regex -- NUL must not reach the file
      expect(text, file).not.toMatch(/[\r\u0000\u202E\u2028]/);
    }
    expect(await readFile(join(out, 'rampart-site.conf'), 'utf8')).toContain(
      '# Rampart plugin for site "x\\u{A}location ^~ /open',
    );
  });

  it('writes the name into config.json so that it parses back unchanged', async () => {
    const out = await extract(
      pluginBundle({ site: hostile, accessKey: 'KEY', engineAddress: '127.0.0.1:9081', version: '0.1.0', now: 0 })
        .content,
    );
    const config = JSON.parse(await readFile(join(out, 'config.json'), 'utf8')) as {
      site: { name: string; domain: string };
    };
    expect(config.site).toMatchObject({ name: injection, domain: hostile.domain });
  });

  it('gives a keeper script that sh reads as one assignment', async () => {
    const out = await extract(
      pluginBundle({ site: hostile, accessKey: 'KEY', engineAddress: '127.0.0.1:9081', version: '0.1.0', now: 0 })
        .content,
    );
    const script = await readFile(join(out, 'rampart-keeper.sh'), 'utf8');
    const assignment = script.split('\n').find((l) => l.startsWith('SITE_NAME=')) ?? '';
    expect(execFileSync('sh', ['-c', `${assignment}\nprintf %s "$SITE_NAME"`]).toString()).toBe(
      'x\\u{A}location ^~ /open { return 200 "injected"; }\\u{A}#',
    );
    execFileSync('sh', ['-n', join(out, 'rampart-keeper.sh')]);
  });

  it('refuses an engine address that is not host:port', () => {
    expect(() =>
      pluginBundle({
        site,
        accessKey: 'KEY',
        engineAddress: '127.0.0.1:9081;\ninclude /etc/passwd',
        version: '0.1.0',
        now: 0,
      }),
    ).toThrow(/engineAddress/);
  });
});
