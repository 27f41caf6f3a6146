import type { OperatorDef } from '../types.ts';
import { networkMatcher, parseNetwork } from './ip-set.ts';

/**
 * ipMatch: true when the input is an IPv4 or IPv6 address inside one of the listed addresses or
 * CIDR networks. Inputs that are not addresses never match.
 *
 * Arguments: addresses and networks separated by commas (and/or spaces).
 *
 * Example: `SecRule REMOTE_ADDR "@ipMatch 127.0.0.1,::1,10.0.0.0/8" "id:15,allow"`
 */
export const ipMatch: OperatorDef = {
  name: 'ipMatch',
  compile(argument) {
    const entries = argument.split(/[,\s]+/).filter((e) => e !== '');
    if (entries.length === 0) throw new Error('@ipMatch needs at least one address or network');
    return networkMatcher(entries.map((e) => parseNetwork(e)));
  },
};
