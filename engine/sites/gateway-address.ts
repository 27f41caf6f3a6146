import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * The host:port that plugin bundles tell gateways to reach the gateway API at. An operator sets it in
 * the console; until then an address given at start-up (RAMPART_GATEWAY_ADDRESS) is used, and
 * otherwise one is worked out from where the gateway port listens: loopback only means gateways on
 * this host (127.0.0.1), a wildcard or LAN listener means the appliance's own LAN address, so an nginx
 * on another host can connect.
 */
export type GatewayAddressSource = 'console' | 'environment' | 'detected';

export interface GatewayAddress {
  address: string;
  source: GatewayAddressSource;
  /** What the automatic choice would be (shown beside an operator's own address). */
  automatic: string;
  /** Where the gateway port listens, host:port. */
  listening: string;
}

export interface GatewayListener {
  host: string;
  port: number;
  /** RAMPART_GATEWAY_ADDRESS, when given. */
  environment?: string | undefined;
}

/** IPv4 and IPv6 addresses of this host's interfaces, loopback excluded, IPv4 first. */
export type InterfaceAddresses = () => string[];

export const systemInterfaceAddresses: InterfaceAddresses = () => {
  const out: { address: string; family: number }[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      if (entry.internal) continue;
      // Link-local IPv6 needs a zone id that a gateway on another host cannot use.
      if (entry.family === 'IPv6' && /^fe80:/i.test(entry.address)) continue;
      out.push({ address: entry.address, family: entry.family === 'IPv4' ? 4 : 6 });
    }
  }
  return out.toSorted((a, b) => a.family - b.family).map((e) => e.address);
};

const hostPort = (host: string, port: number): string => `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;

const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || /^127\./.test(host);
const isWildcard = (host: string): boolean => host === '0.0.0.0' || host === '::' || host === '';

/** The automatic address for a listener: see the module comment. */
export function automaticGatewayAddress(listener: GatewayListener, interfaces: InterfaceAddresses): string {
  if (listener.environment) return listener.environment;
  if (isLoopback(listener.host)) return hostPort('127.0.0.1', listener.port);
  if (!isWildcard(listener.host)) return hostPort(listener.host, listener.port);
  const lan = interfaces()[0];
  return hostPort(lan ?? '127.0.0.1', listener.port);
}

/** host:port, with a host name, an IPv4 address or a bracketed IPv6 address, and a port 1 to 65535. */
export function gatewayAddressProblem(value: string): string | null {
  const match = /^(\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(value);
  if (!match) return 'must be host:port, for example 192.0.2.10:9081 or rampart.example.lan:9081';
  const port = Number(match[4]);
  if (port < 1 || port > 65_535) return 'must have a port from 1 to 65535';
  const v6 = match[2];
  if (v6 !== undefined && isIP(v6) !== 6) return 'must have a valid IPv6 address in brackets';
  const name = match[3];
  if (name !== undefined && isIP(name) === 0) {
    if (
      name.length > 253 ||
      name.split('.').some((label) => label.length === 0 || label.length > 63 || /^-|-$/.test(label))
    ) {
      return 'must have a valid host name';
    }
  }
  return null;
}
