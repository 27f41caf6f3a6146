/**
 * The Caddy plugin bundle end to end (issue 17 item 3): a real Caddy (Debian's package) on loopback
 * in front of a small origin, through the suite every forward-auth gateway passes.
 */
import { expect } from 'vitest';
import { caddyBundle } from '#engine/gateways';
import { TestCaddy, caddyMissing } from '../../support/caddy.ts';
import { describeGatewayEndToEnd } from './gateway-end-to-end.ts';

const siteBlock = (port: number, bundle: string, originPort: number): string => `
http://:${port} {
	bind 127.0.0.1
	import ${bundle}/rampart-site.caddy
	reverse_proxy 127.0.0.1:${originPort}
}`;

describeGatewayEndToEnd({
  label: 'Caddy',
  kind: 'caddy',
  missing: caddyMissing(),
  bundle: caddyBundle,
  injection: 'x\n}\nrespond /open "injected"\n#',
  async start(dir, bundle, port, originPort) {
    // caddy validate runs first: a configuration it refuses fails here.
    const caddy = new TestCaddy(dir);
    await caddy.start(siteBlock(port, bundle, originPort), port);
    return caddy;
  },
  checkHostile(_bundle, open) {
    expect(open.body).not.toContain('injected');
  },
});
