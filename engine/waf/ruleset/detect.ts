/**
 * Where a rule set is installed on this machine. Debian and Ubuntu's modsecurity-crs package puts
 * the rules in /usr/share/modsecurity-crs/rules and the editable setup and exclusion files in
 * /etc/modsecurity/crs, loaded in the order of the package's owasp-crs.load.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadOptions } from './load.ts';

export interface InstalledRuleSet {
  dir: string;
  options: LoadOptions;
}

export interface RuleSetLocation {
  dir: string;
  /** Folder of crs-setup.conf and the REQUEST-900 / RESPONSE-999 exclusion files. */
  etc: string;
}

export const DEBIAN_LOCATION: RuleSetLocation = { dir: '/usr/share/modsecurity-crs', etc: '/etc/modsecurity/crs' };

/** The first location whose `rules/` folder exists, with the setup and exclusion files it has. */
export function detectRuleSetDir(locations: readonly RuleSetLocation[] = [DEBIAN_LOCATION]): InstalledRuleSet | null {
  for (const { dir, etc } of locations) {
    if (!existsSync(join(dir, 'rules'))) continue;
    const setup = join(etc, 'crs-setup.conf');
    const before = join(etc, 'REQUEST-900-EXCLUSION-RULES-BEFORE-CRS.conf');
    const after = join(etc, 'RESPONSE-999-EXCLUSION-RULES-AFTER-CRS.conf');
    return {
      dir,
      options: {
        setupFile: existsSync(setup) ? setup : undefined,
        before: existsSync(before) ? [before] : [],
        after: existsSync(after) ? [after] : [],
      },
    };
  }
  return null;
}
