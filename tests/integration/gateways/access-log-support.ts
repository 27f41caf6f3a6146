import { createSocket } from 'node:dgram';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_MERGE_WAIT_MS } from '#engine/gateways';
import type { TestEngine } from '../../support/engine.ts';

/** A UDP port free on loopback now (for an engine's RAMPART_GATEWAY_LOG_PORT). */
export async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

/**
 * Checks that an unpacked bundle, downloaded through the console API, sends nginx's access-log lines
 * to the engine's gateway log port (RAMPART_GATEWAY_LOG_PORT, which test engines each set to their own).
 */
export async function expectAccessLogAt(folder: string, port: number): Promise<void> {
  const file = join(folder, 'rampart-site.conf');
  const conf = await readFile(file, 'utf8');
  if (!conf.includes(`:${port},tag=`)) throw new Error(`${file}: no access_log to the engine's log port ${port}`);
}

/** nginx adds this header to every answer of a test server: its $request_id, the records' log_id. */
export const REQUEST_ID_HEADER = 'x-test-request-id';
export const ADD_REQUEST_ID = `add_header X-Test-Request-Id $request_id always;`;

/**
 * The access record of one request (by nginx's request id), once written: a verdict's record waits
 * for nginx's log line (a few milliseconds) and is written at the latest after the merge bound.
 */
export async function recordOf(
  engine: TestEngine,
  siteId: string,
  requestId: string,
  waitMs = DEFAULT_MERGE_WAIT_MS + 2000,
): Promise<Record<string, unknown> | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    await engine.logStore.flush();
    const records = await engine.logStore.read(`access:${siteId}`, { from: 0, to: Number.MAX_SAFE_INTEGER });
    const record = records.find((r) => r.log_id === requestId);
    if (record !== undefined || Date.now() > deadline) return record;
    await sleep(20);
  }
}
