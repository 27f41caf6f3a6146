/**
 * The reverse proxy under many and slow clients (issue 17, bad input): 10,000 idle connections held
 * open while a request still passes, then all of them gone again; a slow-loris head cut off with
 * 408. The engine runs in its own process (as installed), so the test's 10,000 client sockets and
 * the engine's 10,000 do not share one process's file-descriptor limit.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../support/api-client.ts';
import { freePort } from '../../support/engine.ts';

/** The open-file limit this test (and the engine it starts) runs under. */
const FILE_LIMIT = Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim()) || 1024;
/** 10,000 where the limit allows (.ci/run raises it); fewer, and said so, where it does not. */
const IDLE = Math.min(10_000, FILE_LIMIT - 1000);
if (IDLE < 10_000) {
  console.log(`proxy-connections: the open-file limit is ${FILE_LIMIT}: holding ${IDLE} idle connections, not 10,000`);
}
/** The engine's client head timeout here: idle connections and slow heads are cut after it. */
const HEAD_TIMEOUT_MS = 12_000;

let dataDir: string;
let engine: ChildProcess;
let origin: Server;
let admin: ApiClient;
let proxyPort: number;

interface Status {
  clientConnections: number;
  originConnections: number;
  listeners: { port: number; listening: boolean }[];
}
const status = async (): Promise<Status> => (await admin.request<Status>('GET', '/proxy/status')).body;

/** One request through the proxy (no token: the reload page answers, which is enough to see it serves). */
function ask(): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: proxyPort, path: '/', agent: false, headers: { host: 'busy.test' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'rampart-proxy-connections-'));
  origin = createServer((_req, res) => res.end('origin'));
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  const consolePort = await freePort();
  engine = spawn(process.execPath, ['--import', 'tsx', 'engine/main.ts'], {
    env: {
      ...process.env,
      RAMPART_DATA: dataDir,
      RAMPART_EDITION: 'B',
      RAMPART_LOG_LEVEL: 'silent',
      RAMPART_CONSOLE_PORT: String(consolePort),
      RAMPART_GATEWAY_HOST: '127.0.0.1',
      RAMPART_GATEWAY_PORT: String(await freePort()),
      RAMPART_GATEWAY_LOG_PORT: String(await freePort()),
      RAMPART_INTAKE_PORT: String(await freePort()),
      RAMPART_PROXY_HOST: '127.0.0.1',
      RAMPART_PROXY_CLIENT_HEAD_TIMEOUT_MS: String(HEAD_TIMEOUT_MS),
    },
    stdio: 'ignore',
  });
  admin = new ApiClient(`http://127.0.0.1:${consolePort}`);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${consolePort}/api/v1/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline || engine.exitCode !== null) throw new Error('the engine did not start');
    await sleep(100);
  }
  await admin.setup('root@example.com', 'Kettle#Blue7');
  proxyPort = await freePort();
  const site = await admin.request('POST', '/sites', {
    name: 'busy',
    domain: 'busy.test',
    runMode: 'block',
    accessMethod: 'cname',
    cname: {
      http: true,
      https: false,
      httpPort: proxyPort,
      originAddress: `127.0.0.1:${(origin.address() as { port: number }).port}`,
    },
  });
  expect(site.status, site.text).toBe(201);
  while (!(await status()).listeners.some((l) => l.port === proxyPort && l.listening)) await sleep(50);
}, 60_000);

afterAll(async () => {
  if (engine?.exitCode === null) {
    const exited = new Promise((resolve) => engine.once('exit', resolve));
    engine.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    if (engine.exitCode === null) engine.kill('SIGKILL');
  }
  await new Promise((resolve) => (origin ? origin.close(resolve) : resolve(undefined)));
  await rm(dataDir, { recursive: true, force: true });
});

describe('the reverse proxy with many and slow clients', () => {
  it(`holds ${IDLE.toLocaleString('en')} idle connections, still serves, and cuts them off after the head timeout`, async () => {
    const before = await status();
    const sockets: Socket[] = [];
    let closedByServer = 0;
    // In batches, from several loopback addresses (so the test's own ephemeral ports do not run short).
    for (let batch = 0; batch < IDLE; batch += 500) {
      const opened = await Promise.all(
        Array.from(
          { length: Math.min(500, IDLE - batch) },
          (_, i) =>
            new Promise<Socket>((resolve, reject) => {
              const socket = netConnect({
                host: '127.0.0.1',
                port: proxyPort,
                localAddress: `127.0.3.${((batch + i) % 200) + 1}`,
              });
              socket.once('connect', () => resolve(socket));
              socket.once('error', reject);
              socket.resume();
              socket.once('end', () => closedByServer++);
            }),
        ),
      );
      sockets.push(...opened);
    }
    const deadline = Date.now() + 5000;
    while ((await status()).clientConnections < before.clientConnections + IDLE && Date.now() < deadline)
      await sleep(100);
    expect((await status()).clientConnections).toBeGreaterThanOrEqual(before.clientConnections + IDLE);
    expect(await ask()).toBe(412);
    // Connections that never send a request are ended by the engine once the head timeout passes.
    const cut = Date.now() + HEAD_TIMEOUT_MS + 10_000;
    while ((await status()).clientConnections > before.clientConnections && Date.now() < cut) await sleep(250);
    expect((await status()).clientConnections).toBe(before.clientConnections);
    expect(closedByServer).toBe(IDLE);
    for (const s of sockets) s.destroy();
    expect(engine.exitCode).toBeNull();
  }, 120_000);

  it(
    'answers a slow-loris head with 408 once the head timeout passes, and closes the connection',
    async () => {
      const answer = await new Promise<string>((resolve) => {
        const socket = netConnect({ host: '127.0.0.1', port: proxyPort });
        let out = '';
        let n = 0;
        const drip = setInterval(() => {
          if (socket.writable) socket.write(n++ === 0 ? 'GET / HTTP/1.1\r\n' : `x-drip-${n}: 1\r\n`);
        }, 200);
        socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
        socket.on('close', () => {
          clearInterval(drip);
          resolve(out);
        });
        // The engine may reset the connection after its answer: what came before counts.
        socket.on('error', () => {
          clearInterval(drip);
          resolve(out);
        });
      });
      expect(answer).toMatch(/^HTTP\/1.1 408/);
    },
    HEAD_TIMEOUT_MS + 10_000,
  );
});
