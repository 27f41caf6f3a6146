/**
 * A local HTTPS mirror of a CRS release for the "get CRS v4" tests: it serves
 * `coreruleset-<version>-minimal.tar.gz`, built here from a release folder (RAMPART_CRS_V4_RULES),
 * under a certificate made on the spot, whose PEM the engine is told to trust. What it serves can be
 * switched to another archive of the same files (a different SHA-256), to a tampered release or to one
 * that breaks off half-way.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import forge from 'node-forge';
import { tarGz, type TarEntry } from '#engine/gateways';

export type MirrorMode = 'release' | 'other' | 'tampered' | 'broken-off';

export interface CrsMirror {
  /** RAMPART_CRS_DOWNLOAD_URL and RAMPART_CRS_DOWNLOAD_CA for an engine that uses this mirror. */
  env: { RAMPART_CRS_DOWNLOAD_URL: string; RAMPART_CRS_DOWNLOAD_CA: string };
  /** The archive served in `release` mode, and the pin to give the engine for it. */
  release: Buffer;
  releaseSha256: string;
  other: Buffer;
  /** The release with one rule file changed (its SQL-injection rules taken out), packed like the release. */
  tampered: Buffer;
  mode: MirrorMode;
  /** Stops answering (connections refused from now on); close() is still needed. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** A certificate for 127.0.0.1, signed by its own key, that also serves as the trusted authority. */
function selfSigned(): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  const name = [{ name: 'commonName', value: '127.0.0.1' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true },
    { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  return { key: keyPem, cert: forge.pki.certificateToPem(cert) };
}

/** The release folder as the CRS project packs it: everything under `coreruleset-<version>/`. */
async function releaseEntries(dir: string, version: string): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  for (const found of (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())) {
    const path = join(found.parentPath, found.name);
    entries.push({ name: `coreruleset-${version}/${relative(dir, path)}`, content: await readFile(path) });
  }
  return entries.sort((a, b) => a.name.localeCompare(b.name));
}

export async function startCrsMirror(rulesDir: string, version: string): Promise<CrsMirror> {
  const entries = await releaseEntries(rulesDir, version);
  const release = tarGz(entries, Date.UTC(2025, 0, 1));
  // The same files packed at another time: a genuine archive, but not the bytes that were pinned.
  const other = tarGz(entries, Date.UTC(2025, 0, 2));
  const tampered = tarGz(
    entries.map((e) =>
      e.name.endsWith('/rules/REQUEST-942-APPLICATION-ATTACK-SQLI.conf')
        ? { ...e, content: Buffer.from('# nothing to see here\n') }
        : e,
    ),
    Date.UTC(2025, 0, 1),
  );
  const work = await mkdtemp(join(tmpdir(), 'rampart-crs-mirror-'));
  const { key, cert } = selfSigned();
  const caFile = join(work, 'mirror-ca.pem');
  await writeFile(caFile, cert);
  const path = `/mirror/v${version}/coreruleset-${version}-minimal.tar.gz`;
  const mirror: CrsMirror = {
    env: { RAMPART_CRS_DOWNLOAD_URL: '', RAMPART_CRS_DOWNLOAD_CA: caFile },
    release,
    releaseSha256: sha256(release),
    other,
    tampered,
    mode: 'release',
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
    close: async () => {
      await mirror.stop();
      await rm(work, { recursive: true, force: true });
    },
  };
  const server = createServer({ key, cert }, (req, res) => {
    if (req.url !== path) {
      res.writeHead(404).end();
      return;
    }
    const body = mirror.mode === 'other' ? other : mirror.mode === 'tampered' ? tampered : release;
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length });
    if (mirror.mode === 'broken-off') {
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
      return;
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  mirror.env.RAMPART_CRS_DOWNLOAD_URL = `https://127.0.0.1:${port}/mirror/v{version}/coreruleset-{version}-minimal.tar.gz`;
  return mirror;
}
