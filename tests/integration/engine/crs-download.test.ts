/**
 * "Get CRS v4" against a local HTTPS mirror: the engine fetches coreruleset-4.25.0-minimal.tar.gz
 * (an archive built here from RAMPART_CRS_V4_RULES), checks it against the pinned SHA-256 and runs
 * it, so a site in block mode blocks SQL injection. A wrong hash, a connection that breaks off and a
 * mirror that does not answer are refused: the running set stays and nothing is left in
 * data/rule-sets. The mirror's certificate is made here and trusted through RAMPART_CRS_DOWNLOAD_CA.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { ApiClient } from '../../support/api-client.ts';
import { rawRequest } from '../../support/http.ts';
import { CRS4, missing } from '../../support/crs-dirs.ts';
import { skipAllWithout } from '../../support/skip.ts';
import { CRS_RELEASE_PINS } from '#engine/basic-rules';
import { sha256, startCrsMirror, type CrsMirror } from './crs-mirror.ts';

const VERSION = '4.25.0';
/** The repository's pin: the release's content hash (its archive's hash is not known). */
const PINNED = CRS_RELEASE_PINS[VERSION]!;

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

/** Starts a download and waits, through GET /rule-set, for its outcome. */
async function downloadOutcome(client: ApiClient): Promise<{ job: Job; started: Job; status: Status }> {
  const res = await client.request<Job>('POST', '/rule-set/download', { version: VERSION });
  expect(res.status, res.text).toBe(202);
  const deadline = Date.now() + 50_000;
  for (;;) {
    const status = (await client.request<Status>('GET', '/rule-set')).body;
    const job = status.download;
    if (job && job.state !== 'downloading' && job.state !== 'installing') return { job, started: res.body, status };
    if (Date.now() > deadline) throw new Error(`the download did not finish: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let engine: TestEngine | undefined;
let admin: ApiClient;
let mirror: CrsMirror | undefined;

describe('getting CRS v4 from a mirror', () => {
  skipAllWithout(missing.crs4);

  beforeAll(async () => {
    if (!CRS4) return;
    mirror = await startCrsMirror(CRS4.dir, VERSION);
    engine = await startTestEngine(
      { RAMPART_EDITION: 'B', ...mirror.env },
      {
        ruleSetLocations: [],
        crsPins: { [VERSION]: { ...PINNED, archiveSha256: mirror.releaseSha256 }, '4.24.0': null },
      },
    );
    admin = new ApiClient(engine.url);
    await admin.setup('root@example.com', 'Kettle#Blue7');
  }, 60_000);

  afterAll(async () => {
    await engine?.dispose();
    await mirror?.close();
  });

  async function status(): Promise<Status> {
    return (await admin.request<Status>('GET', '/rule-set')).body;
  }

  const download = (): Promise<{ job: Job; started: Job; status: Status }> => downloadOutcome(admin);

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
      receivedBytes: mirror?.release.length,
      totalBytes: mirror?.release.length,
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
    if (mirror) mirror.mode = 'other';
    const { job } = await download();
    expect(job.state).toBe('failed');
    expect(job.failure).toMatchObject({
      code: 'hash_mismatch',
      params: { expected: mirror?.releaseSha256, actual: sha256(mirror?.other ?? Buffer.alloc(0)) },
    });
    const after = await status();
    expect(after).toMatchObject({ state: 'loaded', dir: before.dir, ruleCount: before.ruleCount });
    expect(await ruleSetFolders()).toEqual(folders);
  }, 60_000);

  it('refuses a download that breaks off half-way; the running set stays and nothing is left behind', async () => {
    const before = await status();
    const folders = await ruleSetFolders();
    if (mirror) mirror.mode = 'broken-off';
    const { job } = await download();
    expect(job.state).toBe('failed');
    expect(job.failure?.code).toBe('truncated');
    expect(job.totalBytes).toBe(mirror?.release.length);
    expect(job.receivedBytes).toBeLessThan(mirror?.release.length ?? 0);
    expect(await status()).toMatchObject({ state: 'loaded', dir: before.dir, ruleCount: before.ruleCount });
    expect(await ruleSetFolders()).toEqual(folders);
  }, 60_000);

  it('says the mirror did not answer when nothing listens there', async () => {
    await mirror?.stop();
    const { job } = await download();
    expect(job.state).toBe('failed');
    expect(job.failure).toMatchObject({ code: 'unreachable', params: { detail: 'ECONNREFUSED' } });
    expect(job.failure?.message).toMatch(/did not answer .*upload the release archive instead/);
    expect((await status()).state).toBe('loaded');
  }, 60_000);
});

describe('getting CRS v4 from a mirror whose certificate authority was not given', () => {
  skipAllWithout(missing.crs4);
  let untrusting: TestEngine | undefined;
  let client: ApiClient;
  let own: CrsMirror | undefined;

  beforeAll(async () => {
    if (!CRS4) return;
    own = await startCrsMirror(CRS4.dir, VERSION);
    untrusting = await startTestEngine(
      { RAMPART_EDITION: 'B', RAMPART_CRS_DOWNLOAD_URL: own.env.RAMPART_CRS_DOWNLOAD_URL },
      { ruleSetLocations: [], crsPins: { [VERSION]: { ...PINNED, archiveSha256: own.releaseSha256 } } },
    );
    client = new ApiClient(untrusting.url);
    await client.setup('root@example.com', 'Kettle#Blue7');
  }, 60_000);

  afterAll(async () => {
    await untrusting?.dispose();
    await own?.close();
  });

  it('refuses the connection and says which setting trusts an internal mirror', async () => {
    const res = await client.request<Job>('POST', '/rule-set/download', { version: VERSION });
    expect(res.status, res.text).toBe(202);
    let job: Job | null = null;
    for (let i = 0; i < 200 && (job === null || job.state === 'downloading'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      job = (await client.request<Status>('GET', '/rule-set')).body.download;
    }
    expect(job).toMatchObject({ state: 'failed', receivedBytes: 0, failure: { code: 'untrusted' } });
    expect(job?.failure?.message).toMatch(/not trusted .*RAMPART_CRS_DOWNLOAD_CA/);
    expect((await client.request<Status>('GET', '/rule-set')).body.state).toBe('missing');
  });
});

describe("getting CRS v4 with the repository's own pin (the release's content hash)", () => {
  skipAllWithout(missing.crs4);
  let own: CrsMirror | undefined;
  let repo: TestEngine | undefined;
  let client: ApiClient;

  beforeAll(async () => {
    if (!CRS4) return;
    own = await startCrsMirror(CRS4.dir, VERSION);
    // No crsPins: the engine checks what engine/basic-rules/crs-releases.ts pins for 4.25.0.
    repo = await startTestEngine({ RAMPART_EDITION: 'B', ...own.env }, { ruleSetLocations: [] });
    client = new ApiClient(repo.url);
    await client.setup('root@example.com', 'Kettle#Blue7');
  }, 60_000);

  afterAll(async () => {
    await repo?.dispose();
    await own?.close();
  });

  const outcome = (): Promise<{ job: Job; status: Status }> => downloadOutcome(client);

  it('refuses a release whose rule files were changed, before any of it runs', async () => {
    if (own) own.mode = 'tampered';
    const { job, status } = await outcome();
    expect(job.state).toBe('failed');
    expect(job.failure).toMatchObject({ code: 'hash_mismatch', params: { expected: PINNED.contentSha256 } });
    expect(job.failure?.message).toMatch(/content hashes to [0-9a-f]{64}, not the [0-9a-f]{64} pinned/);
    expect(status.state).toBe('missing');
    const base = join(repo?.dataDir ?? '', 'rule-sets');
    expect(existsSync(base) ? await readdir(base) : []).toEqual([]);
  }, 60_000);

  it('installs the genuine release: the pinned content hash is that of CRS v4.25.0', async () => {
    if (own) own.mode = 'release';
    const { job, status } = await outcome();
    expect(job).toMatchObject({ state: 'installed', failure: null });
    expect(status).toMatchObject({ state: 'loaded' });
    expect(status.version).toMatch(/4\.25\.0/);
  }, 60_000);
});
