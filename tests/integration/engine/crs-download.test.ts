/**
 * "Get CRS v4" against a local HTTPS mirror: the engine fetches coreruleset-4.25.0-minimal.tar.gz
 * (an archive built here from RAMPART_CRS_V4_RULES), checks it against the pinned SHA-256 and runs
 * it, so a site in block mode blocks SQL injection. A wrong hash, a connection that breaks off and a
 * mirror that does not answer are refused: the running set stays and nothing is left in
 * data/rule-sets. The mirror's certificate is made here and trusted through RAMPART_CRS_DOWNLOAD_CA.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tarGz, type TarEntry } from '#engine/gateways';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { rawRequest } from '../../support/http.ts';
import { CRS4, missing } from '../../support/crs-dirs.ts';
import { skipAllWithout } from '../../support/skip.ts';

const VERSION = '4.25.0';
const ARCHIVE_PATH = `/mirror/v${VERSION}/coreruleset-${VERSION}-minimal.tar.gz`;

interface Job {
  version: string;
  url: string;
  state: 'downloading' | 'installing' | 'installed' | 'failed';
  receivedBytes: number;
  totalBytes: number | null;
  failure: { code: string; message: string; params: Record<string, string | number> } | null;
}
interface Status {
  state: 'loaded' | 'missing';
  version: string | null;
  dir: string | null;
  ruleCount: number;
  download: Job | null;
}

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
async function releaseEntries(dir: string): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  for (const name of (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())) {
    const path = join(name.parentPath, name.name);
    entries.push({ name: `coreruleset-${VERSION}/${relative(dir, path)}`, content: await readFile(path) });
  }
  return entries.sort((a, b) => a.name.localeCompare(b.name));
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

let engine: TestEngine | undefined;
let admin: ApiClient;
let mirror: Server | undefined;
let work: string | undefined;
/** What the mirror serves next. */
let serve: 'release' | 'other' | 'broken-off' = 'release';
let release: Buffer;
let other: Buffer;

describe('getting CRS v4 from a mirror', () => {
  skipAllWithout(missing.crs4);

  beforeAll(async () => {
    if (!CRS4) return;
    const entries = await releaseEntries(CRS4.dir);
    release = tarGz(entries, Date.UTC(2025, 0, 1));
    // The same files packed at another time: a genuine archive, but not the bytes that were pinned.
    other = tarGz(entries, Date.UTC(2025, 0, 2));
    work = await mkdtemp(join(tmpdir(), 'rampart-crs-mirror-'));
    const { key, cert } = selfSigned();
    const caFile = join(work, 'mirror-ca.pem');
    await writeFile(caFile, cert);
    mirror = createServer({ key, cert }, (req, res) => {
      if (req.url !== ARCHIVE_PATH) {
        res.writeHead(404).end();
        return;
      }
      const body = serve === 'other' ? other : release;
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length });
      if (serve === 'broken-off') {
        res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
        return;
      }
      res.end(body);
    });
    await new Promise<void>((resolve) => mirror?.listen(0, '127.0.0.1', resolve));
    const { port } = mirror.address() as AddressInfo;
    engine = await startTestEngine(
      {
        RAMPART_EDITION: 'B',
        RAMPART_CRS_DOWNLOAD_URL: `https://127.0.0.1:${port}/mirror/v{version}/coreruleset-{version}-minimal.tar.gz`,
        RAMPART_CRS_DOWNLOAD_CA: caFile,
      },
      { ruleSetLocations: [], crsPins: { [VERSION]: sha256(release), '4.24.0': null } },
    );
    admin = new ApiClient(engine.url);
    await admin.setup('root@example.com', 'Kettle#Blue7');
  }, 60_000);

  afterAll(async () => {
    await engine?.dispose();
    mirror?.closeAllConnections();
    await new Promise((resolve) => (mirror ? mirror.close(resolve) : resolve(undefined)));
    if (work) await rm(work, { recursive: true, force: true });
  });

  async function status(): Promise<Status> {
    return (await admin.request<Status>('GET', '/rule-set')).body;
  }

  /** Starts a download and waits, through GET /rule-set, for its outcome. */
  async function download(): Promise<{ job: Job; started: Job }> {
    const res = await admin.request<Job>('POST', '/rule-set/download', { version: VERSION });
    expect(res.status, res.text).toBe(200);
    const deadline = Date.now() + 50_000;
    for (;;) {
      const job = (await status()).download;
      if (job && job.state !== 'downloading' && job.state !== 'installing') return { job, started: res.body };
      if (Date.now() > deadline) throw new Error(`the download did not finish: ${JSON.stringify(job)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function ruleSetFolders(): Promise<string[]> {
    const base = join(engine?.dataDir ?? '', 'rule-sets');
    return existsSync(base) ? (await readdir(base)).sort() : [];
  }

  async function check(site: string, uri: string): Promise<string> {
    const key = (await admin.request<{ accessKey: string }>('GET', '/site-global')).body.accessKey;
    const res = await rawRequest(`${engine?.gatewayUrl ?? ''}/_rampart/check`, {
      method: 'POST',
      headers: { 'x-rampart-site': site, 'x-rampart-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        method: 'GET',
        uri,
        remoteAddr: '198.51.100.40',
        headers: { host: 'shop.example.com', 'user-agent': 'Mozilla/5.0' },
      }),
    });
    expect(res.status, res.text).toBe(200);
    return (JSON.parse(res.text) as { action: string }).action;
  }

  it('refuses a version whose SHA-256 is not pinned, before fetching anything', async () => {
    for (const version of ['4.24.0', '9.9.9']) {
      const res = await admin.request<{ error: { field: string; message: string } }>('POST', '/rule-set/download', {
        version,
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.field).toBe('version');
    }
    const res = await admin.request<{ error: { message: string } }>('POST', '/rule-set/download', {
      version: '4.24.0',
    });
    expect(res.body.error.message).toMatch(/no verified SHA-256 is pinned for CRS 4\.24\.0/);
    expect((await status()).download).toBeNull();
  });

  it('downloads the pinned release, reports its size, installs it, and a site in block mode then blocks SQL injection', async () => {
    expect((await status()).state).toBe('missing');
    const { job, started } = await download();
    expect(started).toMatchObject({ version: VERSION, state: 'downloading' });
    expect(job).toMatchObject({
      state: 'installed',
      failure: null,
      receivedBytes: release.length,
      totalBytes: release.length,
    });
    const now = await status();
    expect(now.state).toBe('loaded');
    expect(now.ruleCount).toBeGreaterThan(100);
    expect(now.version).toMatch(/4\.25\.0/);
    expect(await ruleSetFolders()).toEqual([expect.stringMatching(/^download-\d+$/)]);
    const site = (
      await admin.request<{ id: string }>('POST', '/sites', {
        name: 'shop',
        domain: 'shop.example.com',
        runMode: 'block',
        accessMethod: 'plugin',
      })
    ).body.id;
    // The harmless request first (a browser without a token may be sent to reload, but no rule
    // blocks it): after a rule fires, the client is denied for a minute.
    expect(await check(site, '/?id=42')).not.toBe('block');
    expect(await check(site, "/?id=1'%20or%201=1--")).toBe('block');
  }, 60_000);

  it('refuses an archive whose SHA-256 is not the pinned one; the running set stays and nothing is left behind', async () => {
    const before = await status();
    const folders = await ruleSetFolders();
    serve = 'other';
    const { job } = await download();
    expect(job.state).toBe('failed');
    expect(job.failure).toMatchObject({
      code: 'hash_mismatch',
      params: { expected: sha256(release), actual: sha256(other) },
    });
    const after = await status();
    expect(after).toMatchObject({ state: 'loaded', dir: before.dir, ruleCount: before.ruleCount });
    expect(await ruleSetFolders()).toEqual(folders);
  }, 60_000);

  it('refuses a download that breaks off half-way; the running set stays and nothing is left behind', async () => {
    const before = await status();
    const folders = await ruleSetFolders();
    serve = 'broken-off';
    const { job } = await download();
    expect(job.state).toBe('failed');
    expect(job.failure?.code).toBe('truncated');
    expect(job.totalBytes).toBe(release.length);
    expect(job.receivedBytes).toBeLessThan(release.length);
    expect(await status()).toMatchObject({ state: 'loaded', dir: before.dir, ruleCount: before.ruleCount });
    expect(await ruleSetFolders()).toEqual(folders);
  }, 60_000);

  it('says the mirror did not answer when nothing listens there', async () => {
    mirror?.closeAllConnections();
    await new Promise((resolve) => mirror?.close(resolve));
    const { job } = await download();
    expect(job.state).toBe('failed');
    expect(job.failure).toMatchObject({ code: 'unreachable', params: { detail: 'ECONNREFUSED' } });
    expect(job.failure?.message).toMatch(/did not answer .*upload the release archive instead/);
    expect((await status()).state).toBe('loaded');
  }, 60_000);
});
