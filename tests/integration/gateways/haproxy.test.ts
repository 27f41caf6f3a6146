/**
 * The HAProxy plugin bundle end to end (issue 17 item 3): a real HAProxy 2.6 (Debian's package) on
 * loopback, loading the bundle's rampart.cfg and its Lua action before its own configuration, in front
 * of a small origin, through the suite every forward-auth gateway passes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { haproxyBundle } from '#engine/gateways';
import { TestHaproxy, haproxyMissing } from '../../support/haproxy.ts';
import { describeGatewayEndToEnd } from './gateway-end-to-end.ts';

/** HAProxy's own configuration: the bundle's rampart.cfg is loaded after it (a second -f). */
const haproxyConfig = (port: number, originPort: number): string => `
global
    log stderr format raw local0 warning
defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s
frontend shop
    bind 127.0.0.1:${port}
    use_backend rampart_pages if { path_beg /_rampart/ }
    http-request lua.rampart_verdict unless { path_beg /_rampart/ }
    default_backend origin
backend origin
    server origin 127.0.0.1:${originPort}
`;

describeGatewayEndToEnd({
  label: 'HAProxy',
  kind: 'haproxy',
  missing: haproxyMissing(),
  bundle: haproxyBundle,
  injection: 'x\nfrontend open\n    bind 127.0.0.1:1\n--',
  async start(dir, bundle, port, originPort) {
    // haproxy -c runs first: a configuration it refuses fails here.
    const haproxy = new TestHaproxy(dir);
    await haproxy.start(haproxyConfig(port, originPort), [join(bundle, 'rampart.cfg')], port);
    return haproxy;
  },
  async checkHostile(bundle) {
    expect(await readFile(join(bundle, 'rampart.cfg'), 'utf8')).not.toMatch(/^frontend open/m);
    expect(await readFile(join(bundle, 'rampart.lua'), 'utf8')).not.toMatch(/^frontend open/m);
  },
});
