import type { OperatorDef } from '../types.ts';
import { networkMatcher, parseNetwork } from './ip-set.ts';
import { NO_POSITION, dataFileEntries } from './phrase-list.ts';

/**
 * ipMatchFromFile (alias ipMatchF): like @ipMatch, with one address or CIDR network per line of a
 * data file; blank lines and `#` comments skipped.
 *
 * Arguments: the data file name, resolved by the engine beside the rule file.
 *
 * Example: `SecRule REMOTE_ADDR "@ipMatchFromFile ip_blacklist.data" "id:16,deny"`
 */
export const ipMatchFromFile: OperatorDef = {
  name: 'ipMatchFromFile',
  compile(argument, env) {
    const name = argument.trim();
    if (/^https?:\/\//i.test(name)) throw new Error(`@ipMatchFromFile: remote data files are not supported (${name})`);
    const networks = dataFileEntries(env.readDataFile(name, NO_POSITION)).map((line) => parseNetwork(line.trim()));
    return networkMatcher(networks);
  },
};

/** ipMatchF: the short name of @ipMatchFromFile. */
export const ipMatchF: OperatorDef = { ...ipMatchFromFile, name: 'ipMatchF' };
