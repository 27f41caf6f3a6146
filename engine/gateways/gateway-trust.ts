import { BlockList, isIP } from 'node:net';
import type { SitesService } from '#engine/sites';

/** Believed when no RAMPART_GATEWAY_TRUSTED is given: gateways on this machine. */
export const DEFAULT_TRUSTED_GATEWAYS: readonly string[] = ['127.0.0.0/8', '::1'];

/** `::ffff:127.0.0.1` (an IPv4 peer of a dual-stack socket) as `127.0.0.1`. */
export const plainAddress = (address: string): string =>
  address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;

function addressList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

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
  const list = addressList(trusted ?? DEFAULT_TRUSTED_GATEWAYS);
  return (peer) => {
    const address = plainAddress(peer);
    const family = isIP(address);
    if (family === 0) return false;
    if (list.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
    return sites.heartbeatAddresses().some((a) => plainAddress(a) === address);
  };
}
