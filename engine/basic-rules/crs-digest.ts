import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/**
 * The SHA-256 of a CRS release's content: of a manifest listing, in byte order of their paths, the
 * SHA-256 and path of every file the rule-set loader can read from a release folder (the
 * `crs-setup.conf*` files at its top and everything under `rules/`), one `<hex>  <path>` line each,
 * as `sha256sum` prints them. Unlike the archive's own hash it does not depend on how the files
 * were packed (gzip level, times), so it can be worked out from any copy of the release, and a
 * tampered, added or missing rule or data file changes it. Other files (LICENSE, README) are never
 * loaded and are left out.
 */
export async function releaseContentSha256(root: string): Promise<string> {
  const files: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (entry.name.startsWith('crs-setup.conf')) files.push(join(root, entry.name));
  }
  const rules = join(root, 'rules');
  for (const entry of await readdir(rules, { recursive: true, withFileTypes: true }).catch(() => [])) {
    // Anything under rules/ that is not a folder counts, links and devices too (the loader refuses those anyway).
    if (!entry.isDirectory()) files.push(join(entry.parentPath, entry.name));
  }
  const lines: string[] = [];
  for (const file of files) {
    const path = relative(root, file).split(sep).join('/');
    const content = await readFile(file).catch(() => Buffer.from(`unreadable:${path}`));
    lines.push(`${createHash('sha256').update(content).digest('hex')}  ${path}\n`);
  }
  lines.sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : a.slice(66) > b.slice(66) ? 1 : 0));
  return createHash('sha256').update(lines.join('')).digest('hex');
}
