import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ENVOY_PREFIX, envoyBundle, envoyHeaderValue, traefikBundle, yamlString } from '#engine/gateways';
import { siteInputSchema } from '#engine/sites';
import type { SiteRecord } from '#engine/config-store';

// The Traefik and Envoy bundles as files. No Traefik or Envoy runs here (neither is packaged for
// Debian): these tests read the configuration they would load.

const site: SiteRecord = {
  ...siteInputSchema.parse({ name: 'Shop', domain: 'shop.example.com', runMode: 'block', accessMethod: 'plugin' }),
  id: 'site_abc123',
  createdAt: 0,
  updatedAt: 0,
};
const input = { site, accessKey: 'key_AbC-123', engineAddress: '10.0.0.5:9081', version: '1.2.3', now: 0 };

/**
 * A site name written to break out of every format in the bundle: YAML (quotes, a new line that
 * starts a key, flow and anchor characters, a comment), Markdown (a heading, a link, a code span)
 * and Unicode line and bidi controls.
 */
const HOSTILE_NAME =
  "Shop\" 'x'\nhttp: {evil: true}\r\n  injected: &a [*a] !!str # not a comment\u2028- item\u202e`code` [l](http://e) \\ %ENV%";

interface Entry {
  content: string;
  mode: number;
}

/** The files of a bundle's ustar archive, read in memory. */
function unpack(archive: Buffer): Map<string, Entry> {
  const tar = gunzipSync(archive);
  const files = new Map<string, Entry>();
  for (let offset = 0; offset + 512 <= tar.length && tar[offset] !== 0;) {
    const field = (start: number, length: number): string =>
      tar
        .subarray(offset + start, offset + start + length)
        .toString('utf8')
        .replace(/\0[\s\S]*$/, '');
    const size = parseInt(field(124, 12), 8);
    files.set(field(0, 100), {
      content: tar.subarray(offset + 512, offset + 512 + size).toString('utf8'),
      mode: parseInt(field(100, 8), 8),
    });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

function file(files: Map<string, Entry>, name: string): string {
  const entry = files.get(name);
  if (entry === undefined) throw new Error(`${name} is not in the bundle: ${[...files.keys()].join(', ')}`);
  return entry.content;
}

type Yaml = Record<string, unknown>;
const at = (value: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((node, key) => (node as Record<string | number, unknown> | undefined)?.[key], value);

/** The lines of a file that hold some piece of the hostile name: each must be a comment. */
const linesHolding = (text: string, piece: string): string[] => text.split('\n').filter((l) => l.includes(piece));

describe('the Traefik bundle', () => {
  const folder = 'rampart-traefik-site_abc123';
  const files = unpack(traefikBundle(input).content);
  const config = parse(file(files, `${folder}/rampart-traefik.yml`)) as Yaml;
  const middlewares = at(config, 'http', 'middlewares') as Yaml;

  it('holds the README, config.json, the dynamic configuration and the keeper, the key files private', () => {
    expect(traefikBundle(input).fileName).toBe(`${folder}.tar.gz`);
    expect([...files.keys()].toSorted()).toEqual(
      ['README.md', 'config.json', 'rampart-keeper.sh', 'rampart-traefik.yml'].map((f) => `${folder}/${f}`),
    );
    expect(files.get(`${folder}/rampart-traefik.yml`)?.mode).toBe(0o600);
    expect(files.get(`${folder}/config.json`)?.mode).toBe(0o600);
    expect(files.get(`${folder}/rampart-keeper.sh`)?.mode).toBe(0o755);
    expect(JSON.parse(file(files, `${folder}/config.json`))).toMatchObject({
      engine: { address: '10.0.0.5:9081' },
      site: { site_id: 'site_abc123' },
      access_key: 'key_AbC-123',
    });
    expect(file(files, `${folder}/rampart-keeper.sh`)).toContain('/etc/traefik/rampart/config.json');
  });

  it('chains: add the site and key, ask the verdict with X-Forwarded-* set by Traefik, remove the key before the application', () => {
    expect(at(middlewares, 'rampart-site_abc123', 'chain', 'middlewares')).toEqual([
      'rampart-site_abc123-sign',
      'rampart-site_abc123-verdict',
      'rampart-site_abc123-unsign',
    ]);
    expect(at(middlewares, 'rampart-site_abc123-sign', 'headers', 'customRequestHeaders')).toEqual({
      'X-Rampart-Site': 'site_abc123',
      'X-Rampart-Key': 'key_AbC-123',
    });
    expect(at(middlewares, 'rampart-site_abc123-verdict', 'forwardAuth')).toEqual({
      address: 'http://10.0.0.5:9081/_rampart/verdict?gw=traefik',
      trustForwardHeader: false,
    });
    // An empty value is Traefik's way to remove a header.
    expect(at(middlewares, 'rampart-site_abc123-unsign', 'headers', 'customRequestHeaders')).toEqual({
      'X-Rampart-Key': '',
      'X-Rampart-Site': '',
    });
  });

  it('writes the Access Key in the signing middleware only', () => {
    const text = file(files, `${folder}/rampart-traefik.yml`);
    expect(text.split('key_AbC-123').length - 1).toBe(1);
    expect(text).toMatch(
      /-sign":\n {6}headers:\n {8}customRequestHeaders:\n {10}X-Rampart-Site: "site_abc123"\n {10}X-Rampart-Key: "key_AbC-123"\n/,
    );
  });

  it("sends /_rampart/ on the site's host to Rampart over HTTP and HTTPS, with the site and scheme and without client-sent X-Rampart-* headers", () => {
    const routers = at(config, 'http', 'routers') as Yaml;
    expect(Object.keys(routers).toSorted()).toEqual(['rampart-site_abc123-pages', 'rampart-site_abc123-pages-tls']);
    for (const [name, scheme, tls] of [
      ['rampart-site_abc123-pages', 'http', undefined],
      ['rampart-site_abc123-pages-tls', 'https', {}],
    ] as const) {
      expect(routers[name]).toEqual({
        rule: 'Host(`shop.example.com`) && PathPrefix(`/_rampart/`)',
        priority: 10000,
        middlewares: [name],
        service: 'rampart-site_abc123',
        ...(tls === undefined ? {} : { tls }),
      });
      expect(at(middlewares, name, 'headers', 'customRequestHeaders')).toEqual({
        'X-Rampart-Site': 'site_abc123',
        'X-Rampart-Scheme': scheme,
        'X-Rampart-Remote-Addr': '',
        'X-Rampart-Key': '',
      });
    }
    expect(at(config, 'http', 'services', 'rampart-site_abc123', 'loadBalancer')).toEqual({
      passHostHeader: true,
      servers: [{ url: 'http://10.0.0.5:9081' }],
    });
  });

  it('tells in its README where the client address comes from, and what it does not do', () => {
    const readme = file(files, `${folder}/README.md`);
    expect(readme).toContain('rampart\\-site\\_abc123\\@file');
    expect(readme).toContain("Keep the site's **Source IP** setting at its default");
    expect(readme).toContain('last X-Forwarded-For entry Traefik appends');
    expect(readme).toContain('does not add the probe to your HTML pages');
    expect(readme).toContain('Access records have no response status, bytes or time');
    expect(readme).toContain('has not been run against a real Traefik');
  });

  it('writes a placeholder host, and says so, when the domain cannot be a Host rule', () => {
    for (const domain of ['', '*.example.com', 'shop.example.com`) || PathPrefix(`/']) {
      const text = file(
        unpack(traefikBundle({ ...input, site: { ...site, domain } }).content),
        `${folder}/rampart-traefik.yml`,
      );
      const parsed = parse(text) as Yaml;
      expect(at(parsed, 'http', 'routers', 'rampart-site_abc123-pages', 'rule')).toBe(
        'Host(`set-the-site-domain.invalid`) && PathPrefix(`/_rampart/`)',
      );
      expect(text).toMatch(/^# rampart pages routers below, replace set-the-site-domain\.invalid/m);
    }
  });

  it('keeps a hostile site name in comments and escaped text', () => {
    const hostile = unpack(traefikBundle({ ...input, site: { ...site, name: HOSTILE_NAME } }).content);
    const text = file(hostile, `${folder}/rampart-traefik.yml`);
    const parsed = parse(text) as Yaml;
    expect(parsed).toEqual(config);
    for (const piece of ['{evil: true}', 'injected: &a', '- item', '%ENV%']) {
      const lines = linesHolding(text, piece);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatch(/^# /);
    }
    const readme = file(hostile, `${folder}/README.md`);
    expect(readme.split('\n')[0]).toMatch(/^# Rampart Traefik plugin: Shop\\"/);
    expect(readme).not.toMatch(/^http: \{evil/m);
    expect(readme).not.toContain('\u2028');
    expect(JSON.parse(file(hostile, `${folder}/config.json`))).toMatchObject({ site: { name: HOSTILE_NAME } });
  });

  it('refuses an engine address that is not host:port', () => {
    expect(() => traefikBundle({ ...input, engineAddress: '10.0.0.5:9081"\nhttp:' })).toThrow(/host:port/);
  });
});

describe('the Envoy bundle', () => {
  const folder = 'rampart-envoy-site_abc123';
  const files = unpack(envoyBundle(input).content);
  const config = parse(file(files, `${folder}/rampart-envoy.yaml`)) as Yaml;
  const filter = at(config, 'http_filters', 0) as Yaml;
  const authz = at(filter, 'typed_config') as Yaml;
  const exact = (list: unknown): string[] =>
    (at(list, 'patterns') as { exact: string; ignore_case: boolean }[]).map((p) => {
      expect(p.ignore_case).toBe(true);
      return p.exact;
    });

  it('holds the README, config.json, the configuration parts and the keeper, the key files private', () => {
    expect(envoyBundle(input).fileName).toBe(`${folder}.tar.gz`);
    expect([...files.keys()].toSorted()).toEqual(
      ['README.md', 'config.json', 'rampart-envoy.yaml', 'rampart-keeper.sh'].map((f) => `${folder}/${f}`),
    );
    expect(files.get(`${folder}/rampart-envoy.yaml`)?.mode).toBe(0o600);
    expect(files.get(`${folder}/config.json`)?.mode).toBe(0o600);
    expect(files.get(`${folder}/rampart-keeper.sh`)?.mode).toBe(0o755);
    expect(JSON.parse(file(files, `${folder}/config.json`))).toMatchObject({
      site: { site_id: 'site_abc123' },
      access_key: 'key_AbC-123',
    });
    expect(Object.keys(config).toSorted()).toEqual(['clusters', 'http_filters', 'routes']);
  });

  it('asks Rampart over HTTP at the Envoy prefix with the site and key, failing closed', () => {
    expect(filter.name).toBe('envoy.filters.http.ext_authz');
    expect(authz['@type']).toBe('type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz');
    expect(authz.failure_mode_allow).toBe(false);
    expect(at(authz, 'http_service', 'server_uri')).toEqual({
      uri: 'http://10.0.0.5:9081',
      cluster: 'rampart',
      timeout: '5s',
    });
    expect(at(authz, 'http_service', 'path_prefix')).toBe(ENVOY_PREFIX);
    expect(at(authz, 'http_service', 'authorization_request', 'headers_to_add')).toEqual([
      { key: 'X-Rampart-Site', value: 'site_abc123' },
      { key: 'X-Rampart-Key', value: 'key_AbC-123' },
    ]);
    expect(at(authz, 'with_request_body')).toEqual({ max_request_bytes: 131072, allow_partial_message: true });
    expect(file(files, `${folder}/rampart-envoy.yaml`)).toMatch(
      /# Fail closed: .*\n( *#.*\n)* +failure_mode_allow: false\n/,
    );
  });

  it('lets through the headers the verdict reads and sends a refusal to the client with its page headers', () => {
    expect(exact(authz.allowed_headers)).toEqual(
      expect.arrayContaining([
        'cookie',
        'user-agent',
        'referer',
        'x-forwarded-for',
        'x-forwarded-proto',
        'content-type',
      ]),
    );
    expect(exact(at(authz, 'http_service', 'authorization_response', 'allowed_client_headers'))).toEqual([
      'content-type',
      'cache-control',
      'content-security-policy',
      'set-cookie',
      'x-rampart-guard',
    ]);
  });

  it("lets through the site's own client-address header", () => {
    const custom: SiteRecord = { ...site, sourceIp: { ...site.sourceIp, mode: 'custom', customHeader: 'X-Client-IP' } };
    const parsed = parse(
      file(unpack(envoyBundle({ ...input, site: custom }).content), `${folder}/rampart-envoy.yaml`),
    ) as Yaml;
    expect(exact(at(parsed, 'http_filters', 0, 'typed_config', 'allowed_headers'))).toContain('x-client-ip');
    expect(exact(authz.allowed_headers)).not.toContain('x-client-ip');
  });

  it('sends /_rampart/ to the rampart cluster with the filter off, the site, and the client address and scheme', () => {
    expect(at(config, 'routes')).toEqual([
      {
        match: { prefix: '/_rampart/' },
        route: { cluster: 'rampart' },
        request_headers_to_add: [
          { header: { key: 'X-Rampart-Site', value: 'site_abc123' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
          {
            header: { key: 'X-Rampart-Remote-Addr', value: '%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%' },
            append_action: 'OVERWRITE_IF_EXISTS_OR_ADD',
          },
          { header: { key: 'X-Rampart-Scheme', value: '%REQ(:SCHEME)%' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
        ],
        typed_per_filter_config: {
          'envoy.filters.http.ext_authz': {
            '@type': 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute',
            disabled: true,
          },
        },
      },
    ]);
    expect(JSON.stringify(config).split('key_AbC-123').length - 1).toBe(1);
  });

  it('defines the rampart cluster at the engine address, an IPv6 host without brackets', () => {
    const address = (engineAddress: string): unknown =>
      at(
        parse(file(unpack(envoyBundle({ ...input, engineAddress }).content), `${folder}/rampart-envoy.yaml`)),
        'clusters',
        0,
        'load_assignment',
        'endpoints',
        0,
        'lb_endpoints',
        0,
        'endpoint',
        'address',
        'socket_address',
      );
    expect(at(config, 'clusters', 0, 'name')).toBe('rampart');
    expect(address('10.0.0.5:9081')).toEqual({ address: '10.0.0.5', port_value: 9081 });
    expect(address('[2001:db8::5]:9081')).toEqual({ address: '2001:db8::5', port_value: 9081 });
    expect(address('rampart.internal:9081')).toEqual({ address: 'rampart.internal', port_value: 9081 });
  });

  it('tells in its README to set use_remote_address, and what it does not do', () => {
    const readme = file(files, `${folder}/README.md`);
    expect(readme).toContain('`use_remote_address: true`');
    expect(readme).toContain('`failure_mode_allow` is false');
    expect(readme).toContain('Envoy does not add the probe to your HTML pages');
    expect(readme).toContain('Access records have no response status, bytes or time');
    expect(readme).toContain('has not been run against a real Envoy');
  });

  it('keeps a hostile site name in comments and escaped text', () => {
    const hostile = unpack(envoyBundle({ ...input, site: { ...site, name: HOSTILE_NAME } }).content);
    const text = file(hostile, `${folder}/rampart-envoy.yaml`);
    expect(parse(text)).toEqual(config);
    for (const piece of ['{evil: true}', 'injected: &a', '- item', '%ENV%']) {
      const lines = linesHolding(text, piece);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatch(/^# /);
    }
    expect(file(hostile, `${folder}/README.md`)).not.toMatch(/^http: \{evil/m);
  });

  it('refuses an Access Key or site id Envoy would read as a command, and an engine address that is not host:port', () => {
    expect(() => envoyBundle({ ...input, accessKey: '%DOWNSTREAM_REMOTE_ADDRESS%' })).toThrow(/Envoy/);
    expect(() => envoyBundle({ ...input, site: { ...site, id: 'site\nx' } })).toThrow(/Envoy/);
    expect(() => envoyBundle({ ...input, engineAddress: 'rampart' })).toThrow(/host:port/);
  });
});

describe('yamlString', () => {
  it('reads back as the text itself, on one line, whatever it holds', () => {
    for (const text of [HOSTILE_NAME, '', 'plain', '"\\"', '\t\u0000\u007f\u0085\u2029\ufeff', 'emoji 🛡 中文']) {
      const written = yamlString(text);
      expect(written).not.toMatch(/[\n\r\u0085\u2028\u2029]/);
      expect(parse(`value: ${written}\n`)).toEqual({ value: text });
    }
  });

  it('writes a lone surrogate as U+FFFD', () => {
    expect(parse(`value: ${yamlString('a\ud800b')}`)).toEqual({ value: 'a\ufffdb' });
  });

  it('refuses % and control characters in an Envoy header value', () => {
    expect(envoyHeaderValue('site_abc', 'id')).toBe('"site_abc"');
    expect(() => envoyHeaderValue('100%', 'id')).toThrow(/id: cannot be written into an Envoy header value/);
    expect(() => envoyHeaderValue('a\u2028b', 'id')).toThrow(/Envoy/);
  });
});
