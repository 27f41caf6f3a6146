import type { SiteRecord } from '#engine/config-store';
import { tarGz } from './tar.ts';
import { packagedCode } from './packaged-code.ts';
import { jsonText, markdownText, nginxAddress } from './escape.ts';
import { DEFAULT_INTERVAL_SECONDS } from './nginx-bundle.ts';

export interface NodeGatewayBundleInput {
  site: SiteRecord;
  accessKey: string;
  /** host:port at which the gateway reaches the engine's gateway API. */
  engineAddress: string;
  version: string;
  now: number;
  /** The package's JavaScript (`nodeGatewayCode()`). */
  code: string;
}

/**
 * The Node gateway package (gateways/node) as plain JavaScript, one ES module. The engine's build
 * (scripts/build-engine.mjs) writes it next to the bundled engine; an engine run from source builds
 * it with esbuild (a development dependency) on first use.
 */
export const nodeGatewayCode = packagedCode('gateway-node.js', 'gateways/node/index.ts', {
  platform: 'node',
  format: 'esm',
  target: 'node20',
});

/** Where the README's example expects this folder, next to the application's main module. */
const FOLDER = './rampart-node';

function readme(input: NodeGatewayBundleInput): string {
  const { site } = input;
  return `# Rampart Node gateway: ${markdownText(site.name)}

Site ID: ${markdownText(site.id)}
Domain: ${site.domain ? markdownText(site.domain) : '(not set)'}
Rampart gateway API: http://${markdownText(input.engineAddress)}
Access Key: ${markdownText(input.accessKey)}

These values are also in config.json, which the example below reads. This folder holds the
site's Access Key: keep it readable by the gateway's user only, and download it again after
rotating the key in the console.

## Install (Node 20 or newer; no dependencies)

Copy this folder into your application (for example as ${FOLDER}) and put the gateway in
front of everything else:

\`\`\`js
import { readFileSync } from 'node:fs';
import { createGateway } from '${FOLDER}/index.js';

const config = JSON.parse(readFileSync(new URL('${FOLDER}/config.json', import.meta.url), 'utf8'));
const gateway = createGateway(config);

createServer(gateway.listener(app));                 // node:http
expressApp.use(gateway.express());                   // Express: before body parsers and routes
await fastifyApp.register(gateway.fastifyPlugin());  // Fastify: an onRequest hook for the whole app
\`\`\`

Put \`PROBE_PAGE_TAG\` (exported by index.js) before \`</body>\` of your HTML pages, so the probe
renews tokens while a page is open. Call \`gateway.close()\` on shutdown.

## Settings (config.json or the options of createGateway)

- \`failMode\`: \`"closed"\` (default, as nginx) answers 503 while Rampart cannot be reached;
  \`"open"\` lets requests through then.
- \`connectTimeoutMs\` (2000), \`timeoutMs\` (5000): how long to wait for Rampart.
- \`trustedProxyHops\` (0): believe X-Forwarded-For for this many proxies in front of the gateway.
- \`heartbeatIntervalSeconds\` (${DEFAULT_INTERVAL_SECONDS}): keep it at ${DEFAULT_INTERVAL_SECONDS}; 10 or more shows the gateway as disconnected.

## How it works

For every request the gateway asks Rampart for a verdict, with the headers the nginx plugin sends.
2xx passes the request on; 401 answers with the site's reload response, whose page runs the browser
probe and obtains a token; 403 with the block response. Requests under /_rampart/ (the probe) go
to Rampart. A heartbeat every ${DEFAULT_INTERVAL_SECONDS} seconds shows the gateway as connected in the console.
`;
}

/** The Node gateway download of a plugin-access site: the package's JavaScript, its settings and a README. */
export function nodeGatewayBundle(input: NodeGatewayBundleInput): { fileName: string; content: Buffer } {
  const address = nginxAddress(input.engineAddress, 'engineAddress');
  const config = {
    engine: `http://${address}`,
    siteId: input.site.id,
    accessKey: input.accessKey,
    failMode: 'closed',
    heartbeatIntervalSeconds: DEFAULT_INTERVAL_SECONDS,
    version: input.version,
  };
  const pkg = {
    name: '@rampart/gateway-node',
    version: input.version,
    private: true,
    type: 'module',
    exports: { '.': './index.js' },
    engines: { node: '>=20' },
  };
  const dir = `rampart-node-${input.site.id}`;
  const content = tarGz(
    [
      { name: `${dir}/README.md`, content: readme(input), mode: 0o600 },
      { name: `${dir}/config.json`, content: jsonText(config, 2) + '\n', mode: 0o600 },
      { name: `${dir}/package.json`, content: jsonText(pkg, 2) + '\n' },
      { name: `${dir}/index.js`, content: input.code },
    ],
    input.now,
  );
  return { fileName: `${dir}.tar.gz`, content };
}
