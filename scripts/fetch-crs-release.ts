/**
 * Fetches the Core Rule Set release the desktop installers carry, checks it and unpacks it into
 * dist/crs (never committed): electron-builder copies that folder into the app's resources, and the
 * desktop app points the engine at it (RAMPART_CRS_BUNDLED_DIR), so a desktop install runs CRS v4 on
 * first start without a download.
 *
 *   npx tsx scripts/fetch-crs-release.ts [--version 4.25.0] [--out dist/crs]
 *
 * The address is RAMPART_CRS_DOWNLOAD_URL (`{version}` stands for the version; default: the CRS
 * project's release page), with RAMPART_CRS_DOWNLOAD_CA for an internal mirror's certificate
 * authority: the same settings the engine's "get CRS" button uses. The archive must match the
 * SHA-256 pinned for it (when one is) and the unpacked release the pinned content hash
 * (engine/basic-rules/crs-releases.ts); otherwise the script exits 1 and leaves --out as it was.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rename, rm, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkReleaseContent,
  crsArchiveName,
  crsDownloadUrl,
  downloadRelease,
  CRS_RELEASE_PINS,
  DEFAULT_CRS_DOWNLOAD_URL,
  DEFAULT_CRS_VERSION,
} from '#engine/basic-rules';
import { extractArchive } from '#engine/waf';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}

async function main(): Promise<number> {
  const version = option('version', DEFAULT_CRS_VERSION);
  const out = resolve(root, option('out', 'dist/crs'));
  const pin = CRS_RELEASE_PINS[version];
  if (!pin) {
    process.stderr.write(`fetch-crs-release: no pin for CRS ${version} in engine/basic-rules/crs-releases.ts\n`);
    return 1;
  }
  const url = crsDownloadUrl(process.env.RAMPART_CRS_DOWNLOAD_URL || DEFAULT_CRS_DOWNLOAD_URL, version);
  const caFile = process.env.RAMPART_CRS_DOWNLOAD_CA;
  process.stdout.write(`fetch-crs-release: CRS ${version} from ${url}\n`);
  const fetched = await downloadRelease({
    version,
    url,
    pin,
    extraCa: caFile ? readFileSync(caFile, 'utf8') : undefined,
    maxBytes: 20 * 1024 * 1024,
    idleTimeoutMs: 30_000,
  });
  if (!fetched.ok) {
    process.stderr.write(`fetch-crs-release: ${fetched.error.message}\n`);
    return 1;
  }
  await mkdir(dirname(out), { recursive: true });
  const work = await mkdtemp(join(dirname(out), '.crs-'));
  try {
    const unpacked = await extractArchive(fetched.value, crsArchiveName(version), join(work, 'unpacked'));
    if (!unpacked.ok) {
      process.stderr.write(`fetch-crs-release: ${unpacked.error}\n`);
      return 1;
    }
    const refusal = await checkReleaseContent(unpacked.value.root, version, pin);
    if (refusal) {
      process.stderr.write(`fetch-crs-release: ${refusal.message}\n`);
      return 1;
    }
    await rm(out, { recursive: true, force: true });
    await rename(unpacked.value.root, out);
    process.stdout.write(
      `fetch-crs-release: CRS ${version} checked (content SHA-256 ${pin.contentSha256}) and unpacked into ${out}\n`,
    );
    return 0;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

void main().then((code) => process.exit(code));
