import type { SiteRecord } from '#engine/config-store';
import { tarGz } from './tar.ts';
import { packagedCode } from './packaged-code.ts';
import { jsonText, markdownText, nginxAddress } from './escape.ts';

export interface MiniProgramSdkInput {
  site: SiteRecord;
  accessKey: string;
  /** host:port of the engine's gateway API, as the mini-program reaches it. */
  engineAddress: string;
  version: string;
  now: number;
  /** The SDK's JavaScript (`miniProgramSdkCode()`). */
  code: string;
}

/**
 * The mini-program SDK (gateways/mini-program) as one CommonJS file in ES2015, the module form
 * mini-program builds take. The engine's build writes it next to the bundled engine; an engine run
 * from source builds it with esbuild on first use.
 */
export const miniProgramSdkCode = packagedCode('mini-program-sdk.js', 'gateways/mini-program/index.ts', {
  platform: 'neutral',
  format: 'cjs',
  target: 'es2015',
});

function readme(input: MiniProgramSdkInput, gateway: string): string {
  const { site } = input;
  return `# Rampart mini-program SDK: ${markdownText(site.name)}

Site ID: ${markdownText(site.id)}
Rampart gateway API: ${markdownText(gateway)}
Access Key: ${markdownText(input.accessKey)}

These values are also in config.js. Download the SDK again after rotating the Access Key in the
console. Rampart monitors only: a request never waits for, or fails because of, Rampart.

## Integrate

Copy this folder into the mini-program (for example as rampart/), add the gateway API's address
to the mini-program's allowed request domains, and use the SDK's request function in place of the
platform's:

\`\`\`js
// app.js
const { createRampart } = require('./rampart/rampart-mini-program.js');
const config = require('./rampart/config.js');

const rampart = createRampart({ platform: wx, ...config });
App({
  onLaunch() {
    rampart.start();
  },
  rampart,
});

// in a page
getApp().rampart.request({ url: 'https://api.example.com/items', success(res) {}, fail(err) {} });
\`\`\`

\`request\` takes the platform's own options (url, method, data, header, success, fail, complete).
It attaches the token and identity as a Cookie header and notes each request for the site's
messaging-app log (sent in batches every 5 s; settings flushMs and maxBatch).
`;
}

/** The mini-program SDK download of a site: the SDK, its settings and a README. */
export function miniProgramSdkBundle(input: MiniProgramSdkInput): { fileName: string; content: Buffer } {
  const gateway = `http://${nginxAddress(input.engineAddress, 'engineAddress')}`;
  const config = { gateway, siteId: input.site.id, accessKey: input.accessKey };
  const dir = `rampart-mini-program-${input.site.id}`;
  const content = tarGz(
    [
      { name: `${dir}/README.md`, content: readme(input, gateway), mode: 0o600 },
      { name: `${dir}/config.js`, content: `module.exports = ${jsonText(config, 2)};\n`, mode: 0o600 },
      { name: `${dir}/rampart-mini-program.js`, content: input.code },
    ],
    input.now,
  );
  return { fileName: `${dir}.tar.gz`, content };
}
