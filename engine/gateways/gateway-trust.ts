import { isIP } from 'node:net';
import { compileIpList, type SitesService } from '#engine/sites';

/** Believed when no RAMPART_GATEWAY_TRUSTED is given: gateways on this machine. */
export const DEFAULT_TRUSTED_GATEWAYS: readonly string[] = ['127.0.0.0/8', '::1'];

/** `::ffff:127.0.0.1` (an IPv4 peer of a dual-stack socket) as `127.0.0.1`. */
export const plainAddress = (address: string): string =>
  address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;

/**
 * Whether a peer is one of the site's gateways: a configured address or range
 * (RAMPART_GATEWAY_TRUSTED, default loopback) or an address that heartbeats came from (a gateway
 * that showed the Access Key). The unauthenticated browser routes believe only these about the
 * client, and the gateway log port accepts access-log lines only from these.
 */
export function gatewayTrust(
  trusted: readonly string[] | undefined,
  sites: Pick<SitesService, 'heartbeatAddresses'>,
): (peer: string) => boolean {
  const list = compileIpList(trusted ?? DEFAULT_TRUSTED_GATEWAYS, 'RAMPART_GATEWAY_TRUSTED');
  return (peer) => {
    const address = plainAddress(peer);
    if (list.has(address)) return true;
    return sites.heartbeatAddresses().some((a) => plainAddress(a) === address);
  };
}
